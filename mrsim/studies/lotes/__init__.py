"""LoTES and the greedy baseline on multi-resource heterogeneous clusters (Tran & Beck, "Google Data center
Scheduling": sections 4-7).

Layers, bottom up:

* :mod:`~mrsim.studies.lotes.spec` - frozen cluster and workload descriptions; :mod:`~mrsim.studies.lotes.google` - Tables 1 and 3;
* :mod:`~mrsim.studies.lotes.allocation` (stage 1 LP), :mod:`~mrsim.studies.lotes.bins` (Algorithm 1),
  :mod:`~mrsim.studies.lotes.assignment` (stage 2 LP and the plan);
* :mod:`~mrsim.studies.lotes.fittree`, :mod:`~mrsim.studies.lotes.qindex`, :mod:`~mrsim.studies.lotes.state` - machine state and its indexes;
* :mod:`~mrsim.studies.lotes.policies` - the LoTES dispatcher (stage 3) and greedy;
* :mod:`~mrsim.studies.lotes.workload`, :mod:`~mrsim.studies.lotes.push`, :mod:`~mrsim.studies.lotes.engine`,
  :mod:`~mrsim.studies.lotes.metrics` - the paper's push model as a configuration of the JobTracker engine;
* :mod:`~mrsim.studies.lotes.experiment`, :mod:`~mrsim.studies.lotes.plots` - replications, sweeps, figures.

Time is in hours throughout.
"""

from mrsim.studies.lotes.allocation import Allocation, solve_allocation
from mrsim.studies.lotes.assignment import LotesPlan, build_plan
from mrsim.studies.lotes.bins import nondominated_bins
from mrsim.studies.lotes.engine import RunResult, simulate
from mrsim.studies.lotes.experiment import RunSpec, System, run_point, sweep, sweep_specs
from mrsim.studies.lotes.google import table1_cluster, table3_workload
from mrsim.studies.lotes.policies import Policy
from mrsim.studies.lotes.spec import Cluster, JobClass, JobShape, MachineConfig, Workload

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
