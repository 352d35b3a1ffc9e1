"""The fluid model of size-based scheduling under estimation errors (Dell'Amico, EURECOM RR-13-282, 2013).

The whole cluster is one server of capacity 1 shared between jobs; a job is an (arrival, size) pair with sizes from
SWIM bytes (:mod:`mrsim.profiler.swim`); size-based disciplines see ``size * LogNormal(0, sigma^2)`` estimates.
Every discipline is event-driven and exact up to floating point, with O(log n) work per event.

Modules: :mod:`~mrsim.studies.fluid.policy` (names), :mod:`~mrsim.studies.fluid.workload` (input), :mod:`~mrsim.studies.fluid.estimation`
(errors), one module per discipline (:mod:`~mrsim.studies.fluid.fifo`, :mod:`~mrsim.studies.fluid.ps`, :mod:`~mrsim.studies.fluid.srpt`,
:mod:`~mrsim.studies.fluid.fsp`, :mod:`~mrsim.studies.fluid.las`), :mod:`~mrsim.studies.fluid.naive` (O(n)-per-event reference used as a
test oracle and benchmark baseline) and :mod:`~mrsim.studies.fluid.run` (entry points).

Example::

    >>> from mrsim.studies.fluid import run_fluid
    >>> out = run_fluid([(0.0, 3.0), (1.0, 1.0)], "fsp-ps")
    >>> [j["finish_s"] for j in out["jobs"]], out["summary"]["mean_completion_s"]
    ([4.0, 2.0], 2.5)
"""

from mrsim.studies.fluid.estimation import estimate_sizes, named_stream
from mrsim.studies.fluid.fsp import LateTreatment
from mrsim.studies.fluid.policy import FluidPolicy
from mrsim.studies.fluid.run import load_workload, run_fluid, simulate
from mrsim.studies.fluid.schedule import EVENT_ORDER, FluidSchedule
from mrsim.studies.fluid.workload import FluidWorkload

__all__ = [
    "EVENT_ORDER",
    "FluidPolicy",
    "FluidSchedule",
    "FluidWorkload",
    "LateTreatment",
    "estimate_sizes",
    "load_workload",
    "named_stream",
    "run_fluid",
    "simulate",
]
