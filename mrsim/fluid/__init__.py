"""The fluid model of size-based scheduling under estimation errors (Dell'Amico, EURECOM RR-13-282, 2013).

The whole cluster is one server of capacity 1 shared between jobs; a job is an (arrival, size) pair with sizes from
SWIM bytes (:mod:`mrsim.profiler.swim`); size-based disciplines see ``size * LogNormal(0, sigma^2)`` estimates.
Every discipline is event-driven and exact up to floating point, with O(log n) work per event.

Modules: :mod:`~mrsim.fluid.policy` (names), :mod:`~mrsim.fluid.workload` (input), :mod:`~mrsim.fluid.estimation`
(errors), one module per discipline (:mod:`~mrsim.fluid.fifo`, :mod:`~mrsim.fluid.ps`, :mod:`~mrsim.fluid.srpt`,
:mod:`~mrsim.fluid.fsp`, :mod:`~mrsim.fluid.las`), :mod:`~mrsim.fluid.naive` (O(n)-per-event reference used as a
test oracle and benchmark baseline) and :mod:`~mrsim.fluid.run` (entry points).

Example::

    >>> from mrsim.fluid import run_fluid
    >>> out = run_fluid([(0.0, 3.0), (1.0, 1.0)], "fsp-ps")
    >>> [j["finish_s"] for j in out["jobs"]], out["summary"]["mean_completion_s"]
    ([4.0, 2.0], 2.5)
"""

from mrsim.fluid.estimation import estimate_sizes, named_stream
from mrsim.fluid.fsp import LateTreatment
from mrsim.fluid.policy import FluidPolicy
from mrsim.fluid.run import load_workload, run_fluid, simulate
from mrsim.fluid.schedule import EVENT_ORDER, FluidSchedule
from mrsim.fluid.workload import FluidWorkload

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
