"""LoTES and the greedy baseline on multi-resource heterogeneous clusters (Tran & Beck, "Google Data center
Scheduling": sections 4-7).

Layers, bottom up:

* :mod:`~mrsim.lotes.spec` - frozen cluster and workload descriptions; :mod:`~mrsim.lotes.google` - Tables 1 and 3;
* :mod:`~mrsim.lotes.allocation` (stage 1 LP), :mod:`~mrsim.lotes.bins` (Algorithm 1),
  :mod:`~mrsim.lotes.assignment` (stage 2 LP and the plan);
* :mod:`~mrsim.lotes.fittree`, :mod:`~mrsim.lotes.qindex`, :mod:`~mrsim.lotes.state` - machine state and its indexes;
* :mod:`~mrsim.lotes.policies` - the LoTES dispatcher (stage 3) and greedy;
* :mod:`~mrsim.lotes.workload`, :mod:`~mrsim.lotes.engine`, :mod:`~mrsim.lotes.metrics` - the event simulator;
* :mod:`~mrsim.lotes.experiment`, :mod:`~mrsim.lotes.plots` - replications, sweeps, figures.

Time is in hours throughout.
"""

from mrsim.lotes.allocation import Allocation, solve_allocation
from mrsim.lotes.assignment import LotesPlan, build_plan
from mrsim.lotes.bins import nondominated_bins
from mrsim.lotes.engine import RunResult, simulate
from mrsim.lotes.experiment import RunSpec, System, run_point, sweep, sweep_specs
from mrsim.lotes.google import table1_cluster, table3_workload
from mrsim.lotes.policies import Policy
from mrsim.lotes.spec import Cluster, JobClass, JobShape, MachineConfig, Workload

__all__ = [
    "Allocation",
    "Cluster",
    "JobClass",
    "JobShape",
    "LotesPlan",
    "MachineConfig",
    "Policy",
    "RunResult",
    "RunSpec",
    "System",
    "Workload",
    "build_plan",
    "nondominated_bins",
    "run_point",
    "simulate",
    "solve_allocation",
    "sweep",
    "sweep_specs",
    "table1_cluster",
    "table3_workload",
]
