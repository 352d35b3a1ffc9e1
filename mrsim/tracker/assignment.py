"""Task assignment of the JobTracker core: which pending task a launch picks and when the attempt ends.

``JobTracker.obtain_new_map_task`` / ``obtain_new_reduce_task`` (the calls every scheduler plug-in makes, Hadoop's
``JobInProgress.obtainNew*Task``) are :func:`launch_map` and :func:`launch_reduce`. A launch

1. asks a feature for a backup attempt when the job has no pending task of that kind (speculation);
2. asks the ``task_fits`` hook whether the tracker can take the task now (the resources feature: its resource
   request, the free slots a high-RAM task needs; ``mrsim/tracker/features/resources.py``);
3. picks the task: a feature's pick when one set ``pick_task`` (a federation's task placed in the tracker's
   datacenter: ``mrsim/tracker/features/federation.py``), else a killed or failed one first (``findNewMapTask``
   step 1), else for maps the locality search over the job's host and rack caches (``locality.pick_local_map``:
   node-local, rack-local, then any), else the next never-launched index;
4. sets the attempt's end: its trace duration over the node's speed, a replayed failed attempt's own length,
   the rack-local / off-switch slowdowns, a feature's launch lag; a reduce launched before its job's map stage
   ended waits for it (``mrsim/tracker/stages.py``, the reduce model);
5. queues the completion (or hands it to a feature's ``finish_model``) and runs the ``on_launch`` hooks (where
   the resources feature takes the task's request from the tracker).

Cost O(1) amortised per launch, plus the locality cache walk (amortised O(1): lazy deletion).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from mrsim.tracker.events import EV_TASK_DONE, ORDER_TASK_DONE
from mrsim.tracker.locality import pick_local_map
from mrsim.tracker.scheduling import Locality
from mrsim.tracker.state import JOB_SHIFT, REDUCE_BIT, JobState, TrackerState

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker

#: Locality levels bound once: ``Locality.NODE`` is an attribute lookup on the enum's class (its metaclass's
#: ``__getattr__`` hook, about 800 instructions), which cost a tenth of a launch (docs/performance.md)
_NODE: Final = Locality.NODE
_NON_LOCAL: Final = Locality.NON_LOCAL
_ANY: Final = Locality.ANY
_RACK: Final = Locality.RACK


def launch_map(jt: "JobTracker", job: JobState, tracker: TrackerState, locality: Locality) -> int:
    """``JobTracker.obtain_new_map_task``: launch one of the job's pending maps on ``tracker`` now, within the
    ``locality`` cap; the locality level achieved (1 node, 2 rack, 3 off-switch or a backup), 0 if none."""
    if job.maps_pending == 0:
        if jt.offer_backup is not None and jt.offer_backup(job, tracker, False, locality):
            return 3
        return 0
    if jt.task_fits is not None and not jt.task_fits(job, tracker, False):
        return 0  # its request or a high-RAM map's slots do not fit now (the resources feature)
    level = 2
    if jt.pick_task is not None:
        i = jt.pick_task(job, tracker, False, locality)
        if i < 0:
            return 0
    elif job.requeued_maps:
        i = job.requeued_maps.pop()
    elif job.host_cache is None:
        # The members RACK and ANY (what FIFO and most plug-ins pass) by identity first: comparing an IntEnum with
        # ``==`` is a generic rich comparison; an int or another member still gets it.
        if locality is not _RACK and locality is not _ANY and (locality == _NODE or locality == _NON_LOCAL):
            return 0
        i = job.next_map
        job.next_map = i + 1
    else:
        i, level = pick_local_map(job, tracker, locality)
        if i < 0:
            return 0
        job.next_map += 1
    job.maps_pending -= 1
    jt.pending_maps -= 1
    # The per-task arrays are indexed through the generic item protocol, which takes an object: the index boxed
    # once here (an int above 256 is an allocation), not at each of the four accesses below.
    key: Any = i
    if job.map_launched is not None:
        job.map_launched[key] = 1
        job.map_locality[key] = level
    now = jt.kernel.now
    jt.last_task = i  # before the hooks below: the launch_lag hook reads which task it starts (as for reduces)
    gid = (job.index << JOB_SHIFT) | i
    trace_s: float = job.map_dur[key]  # unboxed here: divided as a machine double
    duration = trace_s / tracker.speed
    if jt.attempt_length is not None:
        lost = jt.attempt_length(job, gid)
        if lost >= 0.0:
            duration = lost / tracker.speed
    if level != 2 or job.host_cache is not None:
        if level == 2:
            duration *= jt.rack_local_slowdown
        elif level == 3:
            duration *= jt.off_switch_slowdown
    if jt.launch_lag is not None:
        duration += jt.launch_lag(job, tracker, 0)
    finish = now + duration
    job.map_start_w[key] = now  # the arrays' writable views (JobState: one conversion a store)
    job.map_finish_w[key] = finish
    job.map_tracker_w[key] = tracker.index
    if job.live_maps is not None:
        job.live_maps.add(i)
    job.running_maps += 1
    tracker.running_maps += job.map_width
    if job.start_time < 0.0:
        job.start_time = now
    model = jt.finish_model
    if model is None:
        jt.kernel.schedule(finish, ORDER_TASK_DONE, EV_TASK_DONE, tracker.index, gid)
    else:
        model.finish_model(job, tracker, gid)
    if jt.on_launch:
        for hook in jt.on_launch:
            hook.launched(job, tracker, gid)
    return level


def launch_reduce(jt: "JobTracker", job: JobState, tracker: TrackerState) -> bool:
    """``JobTracker.obtain_new_reduce_task``: launch the job's next reduce on ``tracker`` now, if slow start
    is met and it fits; whether one (or a backup) was launched."""
    if job.reduces_pending == 0 or not job.reduces_ready:
        if jt.offer_backup is not None and job.reduces_ready:
            return jt.offer_backup(job, tracker, True, _ANY)
        return False
    if jt.task_fits is not None and not jt.task_fits(job, tracker, True):
        return False
    if jt.pick_task is not None:
        i = jt.pick_task(job, tracker, True, _ANY)
        if i < 0:
            return False
    elif job.requeued_reduces:
        i = job.requeued_reduces.pop()
    else:
        i = job.next_reduce
        job.next_reduce = i + 1
    job.reduces_pending -= 1
    jt.pending_ready_reduces -= 1
    now = jt.kernel.now
    jt.last_task = i
    gid = (job.index << JOB_SHIFT) | REDUCE_BIT | i
    key: Any = i  # boxed once for the per-task arrays (as in launch_map)
    job.reduce_start_w[key] = now  # through the writable views (as in launch_map)
    job.reduce_tracker_w[key] = tracker.index
    if job.live_reduces is not None:
        job.live_reduces.add(i)
    job.running_reduces += 1
    tracker.running_reduces += job.reduce_width
    if job.start_time < 0.0:
        job.start_time = now
    lost = jt.attempt_length(job, gid) if jt.attempt_length is not None else -1.0
    lag = jt.launch_lag(job, tracker, 1) if jt.launch_lag is not None else 0.0
    if lost >= 0.0:  # a replayed failed attempt: holds the slot for its logged duration, then fails
        finish = now + lag + lost / tracker.speed
        job.reduce_shuffle_end_w[key] = finish
        job.reduce_finish_w[key] = finish
        model = jt.finish_model
        if model is None:
            jt.kernel.schedule(finish, ORDER_TASK_DONE, EV_TASK_DONE, tracker.index, gid)
        else:
            model.finish_model(job, tracker, gid)
    elif job.map_stage_done:
        speed = tracker.speed
        shuffle_end = now + lag + job.next_typical_shuffle() / speed
        trace_s: float = job.reduce_dur[key]
        finish = shuffle_end + trace_s / speed
        job.reduce_shuffle_end_w[key] = shuffle_end
        job.reduce_finish_w[key] = finish
        model = jt.finish_model
        if model is None:
            jt.kernel.schedule(finish, ORDER_TASK_DONE, EV_TASK_DONE, tracker.index, gid)
        else:
            model.finish_model(job, tracker, gid)
    else:
        job.waiting_reduces.append(gid)  # SimMR's filler: finish time set when the map stage ends
        if lag > 0.0:
            job.reduce_shuffle_end_w[key] = now + lag  # the shuffle cannot end before the attempt has started
    if jt.on_launch:
        for hook in jt.on_launch:
            hook.launched(job, tracker, gid)
    return True
