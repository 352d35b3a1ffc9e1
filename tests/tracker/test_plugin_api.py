"""The plug-in contract: SimMR's narrow interface on the heartbeat engine, and the registry."""

from __future__ import annotations

import pytest

from mrsim.tracker.replay import ReplayOptions, replay
from mrsim.tracker.scheduling import NarrowPolicy, NarrowPolicyScheduler, available_schedulers, create_scheduler
from mrsim.errors import InputError
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import Workload
from tests.tracker.helpers import job, job_finish, one_node, starts


class ShortestJobFirst(NarrowPolicy):
    """A SimMR-style policy: the job with the fewest remaining maps gets the next map slot."""

    name = "sjf"

    def choose_next_map_task(self, job_queue):
        ready = [j for j in job_queue if j.pending_maps]
        return min(ready, key=lambda j: (j.n_maps - j.finished_maps, j.index)) if ready else None

    def choose_next_reduce_task(self, job_queue):
        ready = [j for j in job_queue if j.pending_reduces and j.reduces_ready]
        return ready[0] if ready else None


def test_narrow_policy_runs_on_the_heartbeat_engine():
    # One map slot, task mode. A (3 maps) arrives first and starts at 0; B (1 map) arrives at 1. When the slot
    # frees at 10, SJF picks B (1 remaining) over A (2 remaining).
    jobs = [job("A", 0.0, maps=[10, 10, 10]), job("B", 1.0, maps=[10])]
    r = replay(Workload.of(jobs), one_node(1, 1), HadoopConf(), NarrowPolicyScheduler(ShortestJobFirst()),
               ReplayOptions(heartbeat_interval_s=0.0, check_invariants=True))
    assert starts(r, "B") == [10]
    assert starts(r, "A") == [0, 20, 30]
    assert job_finish(r, "A") == 40


def test_registry_lists_fifo_and_rejects_unknown_names():
    assert "fifo" in available_schedulers()
    assert create_scheduler("FIFO").name == "fifo"
    with pytest.raises(InputError, match="unknown scheduler 'nope'"):
        create_scheduler("nope")
