"""NodeManager sizes inferred from a trace's peak concurrency (``mrsim.tracker.yarn.config.infer_nm_resources``).

Every figure is worked out by hand in the comments: containers are normalised to multiples of 1024 MB, so the
AM's default 1536 MB is a 2048 MB container, and maps and reduces default to 1024 MB.
"""

from __future__ import annotations

import argparse
import json

import pytest

from mrsim.cli import main
from mrsim.tracker.yarn import create_yarn_scheduler, replay_yarn
from mrsim.tracker.yarn.config import YarnConf, build_yarn_conf, infer_nm_resources
from mrsim.tracker.yarn.engine import yarn_conf
from mrsim.model.cluster import ClusterSpec, TrackerSpec, uniform_cluster
from tests.tracker.yarn.helpers import SHARED_DATA, job, workload

JOBCLIENT = SHARED_DATA / "jhist" / "mapreduce-client-jobclient" / "job_1329348432655_0001-10.jhist"


def _inferred(*slots: tuple[int, int]) -> ClusterSpec:
    """A cluster as inferred from a trace: per host, its peak concurrent map and reduce attempts."""
    return ClusterSpec(tuple(TrackerSpec(f"h{i}", map_slots=m, reduce_slots=r) for i, (m, r) in enumerate(slots)),
                       source="inferred from test")


def test_defaults_raised_to_hold_the_one_nodes_containers_and_its_am() -> None:
    # One node that ran 7 maps and 1 reduce at once, and the AM (there is no other node): 7 x 1024 + 1 x 1024 + a
    # 2048 MB AM = 10240 MB > 8192, and 7 + 1 + 1 = 9 vcores > 8. Both are raised; the reason is recorded per field
    # for spec.yarn.inferred.
    w = workload(job("j1", [10.0] * 10, [5.0]))
    conf, note = infer_nm_resources(YarnConf(), _inferred((7, 1)), w)
    assert (conf.nm_memory_mb, conf.nm_vcores) == (10240.0, 9.0)
    assert dict(conf.inferred).keys() == {"nm_memory_mb", "nm_vcores"}
    assert conf.describe()["inferred"]["nm_memory_mb"] == (
        "10240 MB, not yarn.nodemanager.resource.memory-mb = 8192: 7 map + 1 reduce containers at once on h0 "
        "(the trace's peak) and the AM's container")
    assert note is not None and "10240 MB and 9 vcores" in note and "--yarn-site" in note


def test_on_several_nodes_the_busiest_one_without_the_am() -> None:
    # h0 ran 7 maps + 1 reduce, h1 9 maps: the AM's node is unknown, so only the containers count. h0 needs
    # 8 x 1024 = 8192 MB and 8 vcores (the defaults hold it); h1 needs 9 x 1024 = 9216 MB and 9 vcores.
    w = workload(job("j1", [10.0] * 20, [5.0]))
    conf, _note = infer_nm_resources(YarnConf(), _inferred((7, 1), (9, 0)), w)
    assert (conf.nm_memory_mb, conf.nm_vcores) == (9216.0, 9.0)
    assert "on h1 (the trace's peak)" in dict(conf.inferred)["nm_memory_mb"]
    conf, note = infer_nm_resources(YarnConf(), _inferred((7, 1), (2, 0)), w)
    assert conf == YarnConf() and note is None


def test_the_jobs_own_container_sizes_count() -> None:
    # 3 maps of 3000 MB (normalised: 3072) and a 512 MB AM (1024) on one host: 3 x 3072 + 1024 = 10240 MB; vcores
    # 3 + 1 = 4 stay within the default 8.
    props = {"mapreduce.map.memory.mb": "3000", "yarn.app.mapreduce.am.resource.mb": "512"}
    w = workload(job("j1", [10.0] * 3, props=props))
    conf, _note = infer_nm_resources(YarnConf(), _inferred((3, 0)), w)
    assert (conf.nm_memory_mb, conf.nm_vcores) == (10240.0, 8.0)
    assert list(dict(conf.inferred)) == ["nm_memory_mb"]


def test_never_lowered_and_never_over_a_given_value() -> None:
    w = workload(job("j1", [10.0] * 3))
    # 3 maps + the AM: 3 x 1024 + 2048 = 5120 MB <= 8192: Hadoop's default stands (a peak is a lower bound)
    conf, note = infer_nm_resources(YarnConf(), _inferred((3, 0)), w)
    assert conf == YarnConf() and note is None
    # the trace's job confs (or --yarn-site) gave the NodeManager memory: kept; vcores are still inferred
    given = build_yarn_conf(trace_props={"yarn.nodemanager.resource.memory-mb": "4096"})
    conf, _note = infer_nm_resources(given, _inferred((8, 1)), w)
    assert (conf.nm_memory_mb, conf.nm_vcores) == (4096.0, 10.0)  # 8 + 1 + 1 vcores
    # a cluster file that declares node memory and vcores wins over both
    sized = ClusterSpec((TrackerSpec("h0", map_slots=8, reduce_slots=1,
                                     resources=(("memory_mb", 4096.0), ("vcores", 4.0))),), source="file")
    assert infer_nm_resources(YarnConf(), sized, w) == (YarnConf(), None)


def test_only_for_a_cluster_inferred_from_the_trace() -> None:
    args = argparse.Namespace(yarn_site=None, mapred_site=None, ignore_trace_conf=False, slowstart=None,
                              heartbeat_interval=None)
    w = workload(job("j1", [10.0] * 10))
    busy = _inferred((7, 1))
    assert yarn_conf(args, w, busy, inferred_cluster=False) == (build_yarn_conf(overrides={"slowstart": None}), [])
    conf, notes = yarn_conf(args, w, busy, inferred_cluster=True)
    assert conf.nm_memory_mb == 10240.0 and len(notes) == 1 and notes[0].startswith("mrsim: note: YARN NodeManagers")


def test_a_replay_on_the_inferred_nodemanager_runs_the_peak_at_once() -> None:
    # One NodeManager of the inferred 10240 MB (7 maps + 1 reduce + the AM), FIFO, heartbeats aligned at whole
    # seconds, 7 maps of 10 s. AM at 0 (NM heartbeat 0), its first allocate at 1 asks for the maps, the NM heartbeat
    # at 1 allocates all 7 (FIFO: as many as fit), the allocate at 2 receives them: all start at 2 and end at 12.
    # On Hadoop's 8192 MB default only 6 fit beside the 2048 MB AM: the 7th waits for a container to free. The six
    # end at 12 (their exits come before the NM heartbeat of that instant, which frees them and allocates the 7th);
    # the AM's allocate at 13 receives it: it runs 13-23.
    w = workload(job("j1", [10.0] * 7))
    for mem, finish, last_start in ((10240.0, 12.0, 2.0), (8192.0, 23.0, 13.0)):
        conf = YarnConf(nm_memory_mb=mem, nm_vcores=9.0)
        r = replay_yarn(w, uniform_cluster(1, 7, 1), conf, create_yarn_scheduler("fifo", {}), aligned_heartbeats=True)
        assert (r.jobs.finish_s[0], float(max(r.tasks.start_s))) == (finish, last_start)


@pytest.mark.skipif(not JOBCLIENT.exists(), reason="shared data absent")
def test_the_jobclient_jhist_without_conf(capsys) -> None:
    # The log shows 7 maps at once on its one host and one reduce: 7 x 1024 + 1024 + 2048 = 10240 MB, announced on
    # stderr and recorded in spec.yarn.inferred; --yarn-site overrides it.
    assert main(["validate", str(JOBCLIENT), "--json", "--no-cache"]) == 0
    out, err = capsys.readouterr()
    spec = json.loads(out)["spec"]
    assert spec["yarn"]["nm_memory_mb"] == 10240.0 and "nm_memory_mb" in spec["yarn"]["inferred"]
    assert "YARN NodeManagers of 10240 MB and 9 vcores" in err
    assert spec["assumed"]["heartbeat"].startswith("NodeManager heartbeat")  # not the JobTracker's formula
    assert json.loads(out)["jobs"][0]["error_pct"] == pytest.approx(1.8, abs=0.1)  # +32.5 on Hadoop's 8192 MB


@pytest.mark.skipif(not JOBCLIENT.exists(), reason="shared data absent")
def test_isolated_yarn_validation_reports_the_nodemanager_heartbeat(capsys) -> None:
    # --isolate replays each job alone through YARN mode: the interval it reports is the NodeManagers' 1 s, not
    # the JobTracker formula's 0.3 s for one tracker
    assert main(["validate", str(JOBCLIENT), "--json", "--no-cache", "--isolate"]) == 0
    spec = json.loads(capsys.readouterr().out)["spec"]
    assert spec["heartbeat_interval_s"] == 1.0 and spec["assumed"]["heartbeat"].startswith("NodeManager heartbeat")
