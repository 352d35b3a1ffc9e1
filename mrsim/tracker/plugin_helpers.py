"""Small helpers that several scheduler plug-ins share, so that no plug-in keeps a copy of another's code.

Not part of the engine core: the core never imports this module, and nothing here changes what the engine does.
Each helper is the one written-out form of a step two or more plug-ins take the same way (the rule: no block of
six or more lines repeated between plug-ins, checked by ``tests/test_architecture.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sortedcontainers import SortedList

    from mrsim.tracker.jobtracker import JobTracker
    from mrsim.tracker.state import TrackerState


def rekey(order: SortedList, old: Any, new: Any) -> None:
    """Replace the entry ``old`` by ``new`` in a sorted order; ``None`` stands for "not in the order".

    The plug-ins keep queues, pools and jobs in ``SortedList`` orders keyed by tuples that end in the object
    itself, and move an entry when its sort key changes. The caller compares ``old`` with ``new`` first and skips
    the call when they are equal (the common case). Cost: O(log n) per side that is not ``None``.
    """
    if old is not None:
        order.remove(old)
    if new is not None:
        order.add(new)


def keep_polling(jt: JobTracker, tracker: TrackerState, waiting: bool, was_waiting: bool) -> bool:
    """Keep trackers heartbeating while a job waits for a chance that only later heartbeats bring.

    Delay scheduling (Fair Scheduler ``JobInfo.skippedAtLastHeartbeat``) and missed-opportunity counters (Capacity
    Scheduler ``JobInProgress.scheduleOffSwitch``) move only when ``assignTasks`` runs, so a job that waits for
    locality needs heartbeats from trackers with free slots even though no event changed. While ``waiting``, this
    tracker is asked for another heartbeat, and when the wait begins (``was_waiting`` False) every idle tracker with
    a free slot is woken (``jt.wake_all``), as Hadoop's trackers keep heartbeating anyway. Returns ``waiting``: the
    plug-in's flag for the next call. Cost: O(1), plus O(trackers) when a wait begins.
    """
    if waiting:
        jt.request_heartbeat(tracker)
        if not was_waiting:
            jt.wake_all()
    return waiting
