"""The engine's invariants (``_check()`` in the sortedcontainers sense), for tests: run after every event with
``jt.run(jt.check_invariants)`` or ``ReplayOptions(check_invariants=True)``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mrsim.tracker.state import INF

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker


def check_invariants(jt: "JobTracker") -> None:
    """Slot accounting and job counters are consistent (``_check()`` in the sortedcontainers sense).

    Cost O(trackers + running jobs); for tests, run after every event.
    """
    now = jt.kernel.now
    maps = reduces = 0
    for t in jt.trackers:
        assert 0 <= t.running_maps <= t.map_slots, f"{t}: map slots over-used"
        assert 0 <= t.running_reduces <= t.reduce_slots, f"{t}: reduce slots over-used"
        assert t.next_hb == INF or t.next_hb >= now, f"{t}: heartbeat queued in the past"
        maps += t.running_maps
        reduces += t.running_reduces
    jm = jr = 0
    remaining = ready = 0
    pending_maps = pending_reduces = 0
    for job in jt.running_jobs.values():
        pending_maps += job.maps_pending
        if job.reduces_ready:
            pending_reduces += job.reduces_pending
        assert 0 <= job.finished_maps <= job.next_map <= job.n_maps, f"{job}: map counters"
        assert 0 <= job.finished_reduces <= job.next_reduce <= job.n_reduces, f"{job}: reduce counters"
        assert job.running_maps == job.next_map - len(job.requeued_maps) - job.finished_maps, f"{job}: running maps"
        assert job.running_reduces == job.next_reduce - len(job.requeued_reduces) - job.finished_reduces, f"{job}: running reduces"
        assert job.maps_pending == job.n_maps - job.next_map + len(job.requeued_maps), f"{job}: pending maps"
        assert job.reduces_pending == job.n_reduces - job.next_reduce + len(job.requeued_reduces), f"{job}: pending reduces"
        assert job.next_reduce == 0 or job.reduces_ready, f"{job}: reduce launched before slow start"
        jm += job.running_maps * job.map_width  # trackers count slots (memory-based scheduling)
        jr += job.running_reduces * job.reduce_width
        remaining += job.n_maps - job.finished_maps
        if job.reduces_ready:
            ready += job.n_reduces - job.finished_reduces
    jm += jt.held_maps
    jr += jt.held_reduces
    assert maps == jm and reduces == jr, "tracker and job running counts disagree"
    assert remaining == jt.remaining_maps, "remaining map load out of sync"
    assert ready == jt.remaining_ready_reduces, "remaining reduce load out of sync"
    assert pending_maps == jt.pending_maps, "pending map count out of sync"
    assert pending_reduces == jt.pending_ready_reduces, "pending ready reduce count out of sync"
    assert jt.cluster_status_maps == sum(t.status_maps for t in jt.trackers)
    for feature in jt.features:
        check = getattr(feature, "check_invariants", None)
        if check is not None:
            check()
