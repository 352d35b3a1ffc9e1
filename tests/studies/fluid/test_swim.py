"""SWIM reader, idealised sizes and the bytes-to-tasks template model."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from mrsim.errors import InputError
from mrsim.profiler.swim import (MB, SwimTaskModel, read_swim, swim_job_sizes, swim_task_counts,
                               swim_to_templates)
from tests.tracker.helpers import SHARED_DATA

DATA = SHARED_DATA / "swim"
FB09_0 = DATA / "FB-2009_samples_24_times_1hr_0.tsv"
FB10 = DATA / "FB-2010_samples_24_times_1hr_0.tsv"

TINY = "job0\t10\t10\t100\t20\t30\njob1\t40\t30\t0\t0\t50\n"


def _write(tmp_path: Path, text: str, name: str = "t.tsv") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_reads_columns(tmp_path: Path) -> None:
    tr = read_swim(_write(tmp_path, TINY))
    assert tr.job_ids == ("job0", "job1")
    assert tr.submit_s.tolist() == [10.0, 40.0]
    assert tr.input_bytes.tolist() == [100.0, 0.0]
    assert tr.shuffle_bytes.tolist() == [20.0, 0.0]
    assert tr.output_bytes.tolist() == [30.0, 50.0]
    assert tr.t_last == 40.0


def test_sizes_follow_the_released_simulator(tmp_path: Path) -> None:
    # raw = m + (1 + d/n) s + r = 100 + 5*20 + 30 = 230 and 50; scale = 0.9 * 40 / 280.
    tr = read_swim(_write(tmp_path, TINY))
    sizes = swim_job_sizes(tr)
    assert sizes.tolist() == pytest.approx([230 * 36 / 280, 50 * 36 / 280])
    assert sizes.sum() == pytest.approx(0.9 * tr.t_last)
    # d/n = 1, load 2: raw 170 and 50, total work 80 s.
    assert swim_job_sizes(tr, load=2.0, dn=1.0).tolist() == pytest.approx([170 * 80 / 220, 50 * 80 / 220])


def test_real_files_parse_and_scale() -> None:
    for path, n in ((FB09_0, 5894), (FB10, 24442)):
        tr = read_swim(path)
        assert len(tr) == n
        assert np.all(np.diff(tr.submit_s) >= 0)
        assert swim_job_sizes(tr).sum() == pytest.approx(0.9 * tr.t_last)


def test_gzip_and_blank_and_comment_lines(tmp_path: Path) -> None:
    p = tmp_path / "t.tsv.gz"
    with gzip.open(p, "wt") as fh:
        fh.write("# comment\n\n" + TINY)
    assert read_swim(p).job_ids == ("job0", "job1")


def test_unsorted_input_is_sorted_stably(tmp_path: Path) -> None:
    tr = read_swim(_write(tmp_path, "b\t5\t0\t1\t1\t1\na\t1\t0\t1\t1\t1\nc\t5\t0\t1\t1\t1\n"))
    assert tr.job_ids == ("a", "b", "c")


@pytest.mark.parametrize("text, fragment", [
    ("job0\t10\t10\t100\t20\n", "t.tsv:1: expected 6 columns"),
    ("job0\t10\t10\t100\t20\t30\njob1\tx\t1\t1\t1\t1\n", "t.tsv:2: column 2 (submit time) is not a number: 'x'"),
    ("job0\t10\t10\t-5\t20\t30\n", "t.tsv:1: column 4 (map input bytes) must be finite and >= 0"),
    ("job0\t10\t10\t1\tnan\t30\n", "t.tsv:1: column 5 (shuffle bytes) must be finite"),
    ("job0\t1\t1\t1\t1\t1\njob0\t2\t1\t1\t1\t1\n", "t.tsv:2: job id 'job0' repeats line 1"),
    ("\n# nothing\n", "no jobs"),
])
def test_bad_lines_name_file_and_line(tmp_path: Path, text: str, fragment: str) -> None:
    with pytest.raises(InputError, match=None) as exc:
        read_swim(_write(tmp_path, text))
    assert fragment in str(exc.value)
    assert "\n" not in str(exc.value)


def test_missing_file_and_unscalable_traces(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_swim(tmp_path / "absent.tsv")
    zero = read_swim(_write(tmp_path, "j\t5\t5\t0\t0\t0\n"))
    with pytest.raises(InputError, match="zero bytes"):
        swim_job_sizes(zero)
    with pytest.raises(InputError, match="load"):
        swim_job_sizes(read_swim(_write(tmp_path, TINY)), load=0.0)
    with pytest.raises(InputError, match="d/n"):
        swim_job_sizes(read_swim(_write(tmp_path, TINY)), dn=-1.0)


def test_task_model_by_hand(tmp_path: Path) -> None:
    # Job a: 100 MB input -> splits of 64 and 36 MB at 8 MB/s = 8 s and 4.5 s; 3e9 shuffle bytes -> 3 reduces,
    # each shuffling 1e9 B at 4 MB/s and writing 12 MB / 3 at 4 MB/s = 1 s.
    # Job b: map-only, 10 MB input, 8 MB output written by its single map at 4 MB/s: 1.25 + 2 s.
    text = f"a\t0\t0\t{100 * 2**20}\t3000000000\t{12 * 2**20}\nb\t5\t5\t{10 * 2**20}\t0\t{8 * 2**20}\n"
    w = swim_to_templates(_write(tmp_path, text))
    a, b = w.jobs
    assert a.map_durations.tolist() == pytest.approx([8.0, 4.5])
    assert a.typical_shuffle_durations.tolist() == pytest.approx([1e9 / (4 * MB)] * 3)
    assert a.reduce_durations.tolist() == pytest.approx([1.0] * 3)
    assert a.first_shuffle_durations.size == 0
    assert a.extra["shuffle_bytes"] == 3e9
    assert b.n_reduces == 0
    assert b.map_durations.tolist() == pytest.approx([1.25 + 2.0])
    assert b.submit_s == 5.0


def test_task_model_conf_keys_and_caps(tmp_path: Path) -> None:
    model, warnings = SwimTaskModel.from_conf({"dfs.block.size": 2**27, "hive.exec.reducers.max": "2",
                                               "map_mb_s": 16, "no.such.key": 1})
    assert warnings == ["unknown SWIM task-model key 'no.such.key' ignored"]
    assert model.dfs_block_size == 2**27 and model.max_reducers == 2 and model.map_mb_s == 16
    assert model.effective()["dfs.block.size"] == 2**27
    tr = read_swim(_write(tmp_path, f"a\t0\t0\t{300 * 2**20}\t5000000000\t1\nb\t1\t1\t0\t0\t1\n"))
    maps, reduces = swim_task_counts(tr, model)
    assert maps.tolist() == [3, 1]  # ceil(300/128); an empty input still has one map
    assert reduces.tolist() == [2, 0]  # ceil(5e9/1e9) = 5 capped at 2; no shuffle, no reduces
    bigger, _ = SwimTaskModel.from_conf({"mapred.min.split.size": 2**30})
    assert swim_task_counts(tr, bigger)[0].tolist() == [1, 1]
    with pytest.raises(InputError, match="map_mb_s"):
        SwimTaskModel(map_mb_s=0.0)
    with pytest.raises(InputError, match="max_reducers"):
        SwimTaskModel.from_conf({"hive.exec.reducers.max": 2.5})


def test_fb2009_templates_are_consistent_with_bytes() -> None:
    model = SwimTaskModel()
    w = swim_to_templates(FB09_0, model)
    assert len(w) == 5894
    tr = read_swim(FB09_0)
    maps, reduces = swim_task_counts(tr, model)
    assert w.n_maps == int(maps.sum()) and w.n_reduces == int(reduces.sum())
    # Total map time = input bytes / map rate (+ map-side output writes for map-only jobs).
    map_only = tr.shuffle_bytes == 0
    expected = tr.input_bytes.sum() / (model.map_mb_s * MB) + tr.output_bytes[map_only].sum() / (model.reduce_mb_s * MB)
    assert sum(float(j.map_durations.sum()) for j in w) == pytest.approx(expected, rel=1e-9)
