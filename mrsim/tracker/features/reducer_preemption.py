"""Reducer preemption for hanging map requests (an engine feature of resource-vector clusters).

Hadoop 2.8+'s MapReduce ApplicationMaster (``RMContainerAllocator.preemptReducersForHangingMapRequests``): a job
whose reduces hold containers while its maps got none for ``mapreduce.job.reducer.unconditional-preempt.delay.sec``
seconds (``HadoopConf.reducer_preempt_delay_s``, 300) kills its newest reduces, one per pending map at most. On a
resource-vector cluster maps and reduces share one pool per node, as YARN containers do, so first-wave reduces
waiting for their job's maps can fill every container: a deadlock that real clusters break this way. After a
preemption the job launches no reduce until every map has launched (``JobState.reduces_held``, which the resources
feature's fit check honours, ``mrsim/tracker/features/resources.py``); Hadoop's AM instead applies its ramp-up
limits (a documented simplification, ``docs/engine.md``).

:class:`ReducerPreemptionFeature` attaches to ``on_launch`` (a map launch is the job getting a container; a reduce
launch with maps pending arms the check) and one event of its own, the check. ``mrsim.tracker.replay`` attaches it
on resource-vector clusters only, after the resources feature (slot clusters keep maps and reduces apart: nothing
to preempt). Cost: one call per launch, and one event per delay per job that has reduces running while its maps
wait. The count of preempted reduces stays on the engine (``jt.reduces_preempted``) so the ``--json`` summary
keeps its key order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mrsim.tracker.events import ORDER_TIMER
from mrsim.tracker.state import REDUCE_BIT, JobState, TrackerState

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker


class ReducerPreemptionFeature:
    """Preempts reduces of jobs whose maps wait for containers (see the module docstring)."""

    def attach(self, jt: "JobTracker") -> None:
        self.jt = jt
        self.delay = float(jt.conf.reducer_preempt_delay_s)
        self.ev_check = jt.register_event(self._on_check)
        jt.register(self, on_launch=self._launched)

    def _launched(self, job: JobState, tracker: TrackerState, gid: int) -> None:
        jt = self.jt
        if gid & REDUCE_BIT:
            if job.reduce_req is not None and job.maps_pending and not job.hang_check:
                self._arm(job, jt.kernel.now)
        elif job.map_req is not None:
            job.last_map_launch = jt.kernel.now
            if job.reduces_held and job.maps_pending == 0:
                job.reduces_held = False  # every map has a container: the preempted reduces may ramp up again
                jt.wake_for_reduces()

    def _arm(self, job: JobState, now: float) -> None:
        """Queue the job's check for when its maps will have waited ``delay`` seconds."""
        job.hang_check = True
        self.jt.schedule(max(now, job.last_map_launch + self.delay), ORDER_TIMER, self.ev_check, job.index, 0)

    def _on_check(self, now: float, order: int, index: int, _b: int) -> None:
        jt = self.jt
        job = jt.jobs[index]
        job.hang_check = False
        if job.finish_time >= 0.0 or index not in jt.running_jobs or not job.maps_pending or not job.running_reduces:
            return
        if now < job.last_map_launch + self.delay:
            self._arm(job, now)  # a map launched since the check was armed
            return
        job.reduces_held = True
        for _ in range(min(job.maps_pending, job.running_reduces)):
            if jt.kill_task(job, reduce=True) < 0.0:
                break
            jt.reduces_preempted += 1
        if job.maps_pending and job.running_reduces:
            # The AM re-checks its hanging map requests on every heartbeat: if the containers freed went elsewhere
            # (another job's reduce, another node) and its maps still wait, it preempts again a delay later.
            job.hang_check = True
            jt.schedule(now + self.delay, ORDER_TIMER, self.ev_check, job.index, 0)
