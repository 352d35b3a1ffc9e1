"""A what-if cluster size on a trace that names its hosts: the trace's own TaskTrackers, fewer or more of them.

``--nodes N`` on a real trace keeps what the trace taught of each node (its slots per host, inferred as the most
attempts it ran at once; its rack; its name, by which split locations, stall windows and outlier TaskTrackers
attach) instead of swapping in Hadoop's default 2 + 2 slots on nodes the trace never named:

* N below the inferred count: the first N hosts in the inferred cluster's order (the order the trace first names
  them), so that a smaller cluster is a subset of a larger one;
* N above it: every inferred host, then copies in the same order, host after host (``<host>~2``, ``<host>~3``...),
  each in its original's rack with its original's slots. A copy is a new machine: no stall window or outlier
  behaviour of its original, no split on it;
* N equal to it: the inferred cluster itself, so the replay is the plain replay, byte for byte.

``--racks R`` regroups the nodes into R racks in contiguous blocks (as ``--nodes`` does on a synthetic trace);
``--cores C`` sets every node's cores (the contention model's). ``--map-slots`` / ``--reduce-slots`` set every
node's slots, as on the inferred cluster. Cost: O(N).
"""

from __future__ import annotations

from dataclasses import replace

from mrsim.errors import InputError
from mrsim.io.limits import check_limit
from mrsim.model.cluster import DEFAULT_RACK, ClusterSpec, TrackerSpec

COPY_MARK = "~"


def resized(inferred: ClusterSpec, nodes: int, racks: int | None = None, cores: int | None = None) -> ClusterSpec:
    """The module docstring's cluster of ``nodes`` TaskTrackers made from ``inferred``."""
    if nodes < 1:
        raise InputError(f"--nodes must be at least 1, got {nodes}")
    check_limit("nodes", nodes, "--nodes")
    base = inferred.trackers
    if not base:
        raise InputError("--nodes: the trace names no hosts to build the cluster from")
    trackers = list(base[:nodes])
    copy = 2
    while len(trackers) < nodes:
        for t in base[:nodes - len(trackers)]:
            trackers.append(replace(t, name=f"{t.name}{COPY_MARK}{copy}"))
        copy += 1
    if racks is not None:
        if racks < 1 or racks > nodes:
            raise InputError(f"--racks must be between 1 and the number of nodes, got {racks}")
        per_rack = -(-nodes // racks)
        trackers = [replace(t, rack=DEFAULT_RACK if racks == 1 else f"/rack{i // per_rack + 1:02d}")
                    for i, t in enumerate(trackers)]
    if cores is not None:
        trackers = [replace(t, cores=cores) for t in trackers]
    return replace(inferred, trackers=tuple(trackers))


def describe(inferred: ClusterSpec, cluster: ClusterSpec) -> str:
    """How ``cluster`` was made from ``inferred``, for the run's assumption line."""
    n, base = len(cluster.trackers), len(inferred.trackers)
    if n < base:
        return f"the first {n} of the trace's {base} inferred hosts, with their inferred slots (docs/what-if.md)"
    if n > base:
        return (f"the trace's {base} inferred hosts and {n - base} copies of them, with their inferred slots; the "
                "copies have no stalls and hold no splits (docs/what-if.md)")
    return f"the trace's {base} inferred hosts, with their inferred slots"


def is_copy(tracker: TrackerSpec) -> bool:
    """Whether ``tracker`` is a copy :func:`resized` added (its name is not a host of the trace)."""
    head, mark, tail = tracker.name.rpartition(COPY_MARK)
    return bool(mark and head and tail.isdigit())
