"""Geo-distributed job scheduling across a datacenter federation (Hung, Golubchik, Yu, SoCC'15).

The paper's push model run on the one engine (the JobTracker in task-completion mode with the federation feature
and the geo controller, ``schedulers/geo_controller.py``; docs/architecture.md "Studies"): jobs are sets of
per-datacenter sub-jobs; a central controller orders jobs on every arrival and departure (FCFS, Global-SRPT,
Independent-SRPT, Reordering on either SRPT, SWAG) and the datacenters' local schedulers follow. The model written
directly on the event kernel is the test oracle ``tests/oracles/geo_simulator.py``.

Modules, bottom up: :mod:`.model` (frozen federation/jobs), :mod:`.streams` (named seeded RNGs),
:mod:`.placement` (task placement, template adapter), :mod:`.workloads` (paper-like synthetic traces),
:mod:`.spec` (JSON/TOML job specs), :mod:`.policies` (ordering algorithms), :mod:`.result` (a run's record),
:mod:`.engine_inputs` (a workload as engine job templates and a federated cluster), :mod:`.run` (one run on the
engine), :mod:`.metrics`, :mod:`.experiments` (sweeps), :mod:`.plots`, :mod:`.figures`. See docs/geo.md.
"""

from mrsim.studies.geo.model import Federation, GeoJob, GeoWorkload
from mrsim.studies.geo.placement import Placement, PlacementKind, from_templates
from mrsim.studies.geo.policies import Policy, Snapshot
from mrsim.studies.geo.result import GeoResult, SizeMeasure
from mrsim.studies.geo.run import simulate
from mrsim.studies.geo.spec import load_spec, parse_spec
from mrsim.studies.geo.workloads import DurationModel, Scenario, TraceType, synthesize

__all__ = [
    "DurationModel",
    "Federation",
    "GeoJob",
    "GeoResult",
    "GeoWorkload",
    "Placement",
    "PlacementKind",
    "Policy",
    "Scenario",
    "SizeMeasure",
    "Snapshot",
    "TraceType",
    "from_templates",
    "load_spec",
    "parse_spec",
    "simulate",
    "synthesize",
]
