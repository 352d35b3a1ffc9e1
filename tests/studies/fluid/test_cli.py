"""``mrsim replay FILE.tsv --model fluid`` end to end (the CLI wiring is the engine owner's; this checks the
contract it relies on)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from mrsim.cli import main
from tests.tracker.helpers import SHARED_DATA

FB09_1 = str(SHARED_DATA / "swim" / "FB-2009_samples_24_times_1hr_1.tsv")


def test_fluid_replay_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["replay", FB09_1, "--model", "fluid", "--scheduler", "fsp-fifo", "--load", "0.5", "--dn", "2",
               "--sigma", "0.5", "--seed", "4", "--json"])
    assert rc == 0
    out = orjson.loads(capsys.readouterr().out)
    assert out["scheduler"] == "fsp-fifo" and out["load"] == 0.5 and out["dn"] == 2.0 and out["sigma"] == 0.5
    assert out["summary"]["jobs"] == 6638 == len(out["jobs"])
    assert sum(j["size_s"] for j in out["jobs"]) == pytest.approx(0.5 * 86402)


def test_fluid_replay_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["replay", FB09_1, "--model", "fluid", "--scheduler", "hfsp"]) == 2
    assert "valid: fifo, ps, srpt, fsp-fifo, fsp-ps, las" in capsys.readouterr().err
    bad = tmp_path / "bad.tsv"
    bad.write_text("job0\t1\t1\t1\t1\t1\njob1\t2\t1\tten\t1\t1\n")
    assert main(["replay", str(bad), "--model", "fluid", "--scheduler", "ps"]) == 1  # a bad file: exit 1
    err = capsys.readouterr().err
    assert err.startswith("mrsim: error: ") and "bad.tsv:2: column 4 (map input bytes)" in err
