"""The paper's synthetic workloads as engine inputs: :func:`engine_inputs` and :func:`federation_cluster` live in
:mod:`mrsim.studies.geo.engine_inputs` (``mrsim geo`` runs on them); re-exported here for the federation figures."""

from mrsim.studies.geo.engine_inputs import engine_inputs, federation_cluster

__all__ = ["engine_inputs", "federation_cluster"]
