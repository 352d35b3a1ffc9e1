"""Progress on stderr: the spinner while a large input is read (terminal only), fractional per-replay progress in
compare and validate, and the assumption line printed before the replays start (once)."""

from __future__ import annotations

import io
import time

import pytest

import mrsim.run.spinner as spinner
from mrsim.analysis.comparison import compare, within_replay
from mrsim.cli import main
from mrsim.model.cluster import uniform_cluster
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.profiler.workloads import load_workload


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_spinner_text():
    assert spinner.spinner_text("/data/trace.json.gz", 45_200_000, 3.2, 0) == "| reading trace.json.gz (45.2 MB) ... 3 s"
    assert spinner.spinner_text("logs/", 2_000, 0.0, 1) == "/ reading logs (2.0 kB) ... 0 s"


def test_spinner_draws_on_a_terminal_and_erases_itself(tmp_path, monkeypatch):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2_100_000)
    monkeypatch.setattr(spinner, "SPIN_DELAY_S", 0.0)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    with spinner.reading(big):
        time.sleep(0.25)
    text = terminal.getvalue()
    assert text.startswith("\r| reading big.json (2.1 MB) ... 0 s\033[K")
    assert text.endswith("\r\033[K") and "\n" not in text


@pytest.mark.parametrize("case", ["not a terminal", "small file", "quiet"])
def test_spinner_stays_silent(tmp_path, monkeypatch, case):
    path = tmp_path / "t.json"
    path.write_bytes(b" " * (100 if case == "small file" else 2_100_000))
    monkeypatch.setattr(spinner, "SPIN_DELAY_S", 0.0)
    stream = io.StringIO() if case == "not a terminal" else _Terminal()
    monkeypatch.setattr("sys.stderr", stream)
    with spinner.reading(path, enabled=case != "quiet"):
        time.sleep(0.15)
    assert stream.getvalue() == ""


def test_within_replay_adds_the_replays_share():
    seen: list[float] = []
    callback = within_replay(seen.append, 2, 4)
    callback(1)
    callback(4)
    assert seen == [2.25, 3.0]
    assert within_replay(None, 0, 4) is None


def test_compare_reports_progress_during_each_replay():
    from mrsim.profiler.workloads import default_trace_path

    workload = load_workload(str(default_trace_path()))
    seen: list[float] = []
    compare(workload, uniform_cluster(8, 2, 2), HadoopConf(), ["fifo", "fair"], progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 3.0  # the isolated runs, then fifo, then fair
    assert all(any(k < x < k + 1 for x in seen) for k in range(3))  # inside each unit, not only after it
    assert 1.0 in seen and 2.0 in seen


def test_validate_isolate_reports_each_job(real_trace, monkeypatch):
    from mrsim.analysis.validation import run as validation_run

    calls: list[float] = []
    original = validation_run.validate

    def recording(setup, mode, progress=None):
        return original(setup, mode, progress=lambda done: (calls.append(done), progress and progress(done)))

    monkeypatch.setattr(validation_run, "validate", recording)
    assert main(["validate", str(real_trace), "--isolate", "--quiet", "--no-cache"]) == 0
    assert calls == [1, 2, 3, 4]


def test_assumption_line_is_printed_before_the_replay_and_once(real_trace, capsys, monkeypatch):
    import mrsim.tracker.replay as engine

    before: list[str] = []
    original = engine.replay

    def watched(*args, **kwargs):
        before.append(capsys.readouterr().err)
        return original(*args, **kwargs)

    monkeypatch.setattr(engine, "replay", watched)
    monkeypatch.setattr("mrsim.run.execute._stderr_is_terminal", lambda: True)
    assert main(["replay", str(real_trace), "--no-cache"]) == 0
    after = capsys.readouterr().err
    line = next(x for x in before[0].splitlines() if x.startswith("mrsim replay: cluster "))
    assert line.startswith("mrsim replay: cluster 2 nodes, 4 map + 1 reduce slots (inferred from the trace's task "
                           "attempts: 2 hosts, ")
    assert not any(x.startswith("mrsim replay: cluster ") for x in after.splitlines())  # not again at the end


@pytest.mark.parametrize("terminal", [True, False])
def test_api_prints_the_line_once_too(real_trace, capsys, monkeypatch, terminal):
    import mrsim

    monkeypatch.setattr("mrsim.run.execute._stderr_is_terminal", lambda: terminal)
    mrsim.validate(str(real_trace))
    err = capsys.readouterr().err
    assert sum(line.startswith("mrsim validate: cluster ") for line in err.splitlines()) == 1
    assert err.startswith("mrsim validate: cluster ")
