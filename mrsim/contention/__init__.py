"""Resource contention on worker nodes: the TDAM queueing models of the Epochs/CA-FIFO dissertation (seed 002).

Modules, bottom up:

* :mod:`~mrsim.contention.network`: centre kinds, network descriptions, Seidmann's multi-server split.
* :mod:`~mrsim.contention.mva`: exact MVA (single class at every ``n <= N``; small multi-class for validation).
* :mod:`~mrsim.contention.amva`: Bard-Schweitzer approximate MVA for multiple classes.
* :mod:`~mrsim.contention.multicore`: the chapter-4 two-layer memory-contention model (Algorithms 3, 5, 6).
* :mod:`~mrsim.contention.node`: one worker node (m-core CPU + disks) as a solvable network.
* :mod:`~mrsim.contention.epochs`: the literal Epochs algorithm (chapter 5, Algorithm 7).
* :mod:`~mrsim.contention.incremental`: :class:`NodeContention`, the per-node model the replay engine drives.
* :mod:`~mrsim.contention.mapphase`: the chapter-3 map-phase estimate (eqs. 3.1 to 3.3).
* :mod:`~mrsim.contention.dispatch`: the stream dispatchers of sections 5.5 and 6.4 (RR, LRT, LMUF, LMUF-T).

See ``docs/contention.md`` for the engine integration contract.
"""

from mrsim.contention.amva import schweitzer_amva
from mrsim.contention.epochs import EpochJob, EpochRecord, EpochsResult, epochs
from mrsim.contention.incremental import MixCache, NodeContention, predicted_utilization
from mrsim.contention.multicore import (
    MemoryDemands,
    demands_from_core_and_stall,
    demands_from_stall,
    memory_contention_multiclass,
    two_layer_multiclass,
    two_layer_single_class,
)
from mrsim.contention.mva import ExactMVAResult, MultiClassResult, exact_mva, exact_mva_multiclass
from mrsim.contention.network import Centre, CentreKind, Network, seidmann, seidmann_split
from mrsim.contention.node import NodeSolution, NodeSpec, node_demand, solve_mix

__all__ = [
    "Centre",
    "CentreKind",
    "EpochJob",
    "EpochRecord",
    "EpochsResult",
    "ExactMVAResult",
    "MemoryDemands",
    "MixCache",
    "MultiClassResult",
    "Network",
    "NodeContention",
    "NodeSolution",
    "NodeSpec",
    "demands_from_core_and_stall",
    "demands_from_stall",
    "epochs",
    "exact_mva",
    "exact_mva_multiclass",
    "memory_contention_multiclass",
    "node_demand",
    "predicted_utilization",
    "schweitzer_amva",
    "seidmann",
    "seidmann_split",
    "solve_mix",
    "two_layer_multiclass",
    "two_layer_single_class",
]
