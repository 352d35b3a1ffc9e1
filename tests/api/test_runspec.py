"""RunSpec: one frozen value per run, modes as enums, built alike by the API and the command line; option errors
name the option as a keyword argument in Python and as a flag on the command line."""

from __future__ import annotations

import dataclasses

import pytest

from mrsim.cli import build_parser, main
from mrsim.cli.runspec import spec_from_args
from mrsim.errors import EXIT_USAGE_ERROR, InputError, OptionError, OptionUsageError
from mrsim.model.modes import ALL_CALIBRATION_PARTS, CalibrationPart, Contention, Engine, Locality, Switch
from mrsim.model.runspec import FIELDS, RunSpec
from mrsim.tracker.locality import LocalityMode
from mrsim.tracker.replay_options import ReplayOptions


def test_modes_are_enums_and_texts_are_read_once():
    spec = RunSpec(contention="TDAM", locality="off", engine="mr1", memory_slots="off",
                   calibration_parts="launch, report")
    assert spec.contention is Contention.TDAM and spec.locality is Locality.OFF and spec.engine is Engine.MR1
    assert spec.memory_slots is Switch.OFF
    assert spec.calibration_parts == frozenset({CalibrationPart.LAUNCH, CalibrationPart.REPORT})
    assert spec.contention == "tdam" and f"{spec.locality}" == "off"  # the same words in specs and --json
    assert RunSpec().calibration_parts == ALL_CALIBRATION_PARTS
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.seed = 3  # type: ignore[misc]


def test_replay_options_hold_enums():
    options = ReplayOptions(contention="tdam", locality="on", calibration_parts=["heartbeat"])
    assert options.contention is Contention.TDAM and options.locality is LocalityMode.ON
    assert options.calibration_parts == frozenset({CalibrationPart.HEARTBEAT})
    assert ReplayOptions(contention=None).contention is Contention.NONE


def test_an_unknown_mode_names_the_field():
    with pytest.raises(OptionError) as e:
        RunSpec(contention="fast")
    assert str(e.value) == "contention: contention model 'fast' is unknown (expected none or tdam)"
    assert e.value.worded(lambda n: "--" + n) == "--contention: contention model 'fast' is unknown (expected none or tdam)"
    with pytest.raises(InputError, match=r"^calibration_parts: unknown part\(s\) warp \(expected launch, report"):
        RunSpec(calibration_parts="launch,warp")


def test_option_errors_word_their_fields_per_caller():
    e = OptionError("{nodes} cannot be combined with {cluster} (the file lists the nodes)")
    assert str(e) == "nodes cannot be combined with cluster (the file lists the nodes)"
    assert e.worded(lambda n: "--" + n.replace("_", "-")) == ("--nodes cannot be combined with --cluster (the file "
                                                              "lists the nodes)")
    assert isinstance(OptionUsageError("{seed} x"), InputError)


def test_the_cli_builds_the_same_spec_as_its_flags(capsys):
    args = build_parser("replay").parse_args(["replay", "t.json", "--nodes", "4", "--contention", "tdam",
                                              "--demands", "counters", "--calibration-parts", "launch"])
    spec = spec_from_args(args)
    assert (spec.trace, spec.nodes, spec.contention, spec.demands) == ("t.json", 4, Contention.TDAM, ("counters",))
    assert spec.calibration_parts == frozenset({CalibrationPart.LAUNCH})
    assert set(FIELDS) >= {name for name in vars(args) if name in FIELDS}


def test_the_cli_words_option_errors_as_flags(capsys):
    assert main(["replay", "--calibration-parts", "warp"]) == EXIT_USAGE_ERROR  # a flag's mistake
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["mrsim: error: --calibration-parts: unknown part(s) warp (expected launch, report, aux, heartbeat, "
                   "stalls, launchers, backups, localize, carry)"]
    assert main(["replay", "--nodes", "0"]) == EXIT_USAGE_ERROR
    assert capsys.readouterr().err.strip() == "mrsim: error: --nodes must be at least 1, got 0"
    assert main(["replay", "--heartbeat-interval", "1e9"]) == EXIT_USAGE_ERROR
    assert "mrsim: error: --heartbeat-interval must be in [" in capsys.readouterr().err


def test_the_api_words_option_errors_as_keywords():
    import mrsim

    with pytest.raises(InputError, match=r"^nodes must be at least 1, got 0$"):
        mrsim.replay(nodes=0, quiet=True)
    with pytest.raises(InputError, match=r"^disk_mb_s needs demands counters$"):
        mrsim.replay(disk_mb_s=50.0, quiet=True)
