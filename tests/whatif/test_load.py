"""Load what-ifs (mrsim.model.load): scaled arrivals and Rumen Folder's fold, with hand-computed oracles."""

from __future__ import annotations

import pytest

from mrsim.errors import InputError
from mrsim.model.load import LoadWhatIf, apply_load_what_if, fold, identity_cycle_s, scale_load
from mrsim.model.templates import JobTemplate, Workload


def _workload(*submits: float) -> Workload:
    return Workload.of([JobTemplate(f"j{i}", s, [5.0, 6.0], [2.0]) for i, s in enumerate(submits)], source="hand")


def _times(w: Workload) -> list[tuple[str, float]]:
    return [(j.job_id, j.submit_s) for j in w]


def test_load_scale_divides_every_gap_and_keeps_the_origin() -> None:
    w = _workload(100.0, 110.0, 130.0, 160.0)
    assert _times(scale_load(w, 2.0)) == [("j0", 100.0), ("j1", 105.0), ("j2", 115.0), ("j3", 130.0)]
    assert _times(scale_load(w, 0.5)) == [("j0", 100.0), ("j1", 120.0), ("j2", 160.0), ("j3", 220.0)]
    assert scale_load(w, 1.0) is w
    assert _times(w)[1] == ("j1", 110.0)  # the argument is left alone
    scaled = scale_load(w, 4.0)
    assert [j.map_durations.tolist() for j in scaled] == [[5.0, 6.0]] * 4  # only submit times change


def test_load_scale_refuses_non_positive_factors() -> None:
    with pytest.raises(InputError, match="load_scale must be a positive number, got 0"):
        scale_load(_workload(0.0, 1.0), 0.0)


# Jobs at 0, 30 and 60 s (N = 3, span 60 s), input cycle C = 20 s, output duration D = 10 s:
# offsets mod 20 are 0, 10, 0 -> folded at 0 x 0.5, 10 x 0.5, 0 x 0.5 = 0, 5, 0 s (dilation D / C = 0.5);
# folding ratio = 60 x (3 + 1) / 3 / 20 = 4; transcription probability = 0.5 x concentration / 4.

def test_fold_overlays_cycles_and_keeps_each_job_once_at_probability_one() -> None:
    folded, done = fold(_workload(0.0, 30.0, 60.0), 10.0, 20.0, concentration=8.0)  # p = 0.5 x 8 / 4 = 1
    assert (done.folding_ratio, done.transcription_probability) == (4.0, 1.0)
    assert _times(folded) == [("j0", 0.0), ("j2", 0.0), ("j1", 5.0)]
    assert (done.jobs_in, done.jobs_out, done.skipped, done.duplicated) == (3, 3, 0, 0)


def test_fold_duplicates_every_job_at_probability_two() -> None:
    folded, done = fold(_workload(0.0, 30.0, 60.0), 10.0, 20.0, concentration=16.0)  # p = 2
    assert done.transcription_probability == 2.0
    assert _times(folded) == [("j0", 0.0), ("j0#2", 0.0), ("j2", 0.0), ("j2#2", 0.0), ("j1", 5.0), ("j1#2", 5.0)]
    assert done.duplicated == 3


def test_fold_with_a_known_seed() -> None:
    # p = 1.5: one copy, plus a second when the job's draw is below 0.5. The draws of
    # mrsim.rng.stream(seed, "folder-transcription"), in folded order j0, j2, j1:
    # seed 0: 0.799, 0.474, 0.124 -> j0 once, j2 twice, j1 twice; seed 3: 0.938, 0.882, 0.360 -> only j1 twice.
    w = _workload(0.0, 30.0, 60.0)
    folded, done = fold(w, 10.0, 20.0, concentration=12.0, seed=0)
    assert _times(folded) == [("j0", 0.0), ("j2", 0.0), ("j2#2", 0.0), ("j1", 5.0), ("j1#2", 5.0)]
    assert (done.skipped, done.duplicated) == (0, 2)
    folded3, _ = fold(w, 10.0, 20.0, concentration=12.0, seed=3)
    assert _times(folded3) == [("j0", 0.0), ("j2", 0.0), ("j1", 5.0), ("j1#2", 5.0)]
    assert _times(fold(w, 10.0, 20.0, concentration=12.0, seed=0)[0]) == _times(folded)  # same seed, same fold


def test_fold_skips_jobs_below_probability_one() -> None:
    # concentration 1: p = 0.5 / 4 = 0.125; seed 0's draws 0.799, 0.474, 0.124 keep only j1 (0.124 < 0.125).
    folded, done = fold(_workload(0.0, 30.0, 60.0), 10.0, 20.0, seed=0)
    assert _times(folded) == [("j1", 5.0)]
    assert (done.skipped, done.duplicated) == (2, 0)


def test_concentration_alone_moves_no_job() -> None:
    w = _workload(0.0, 30.0, 60.0)
    assert identity_cycle_s(w) == 80.0  # 60 x 4 / 3: the folding ratio is 1
    out, spec, notes = apply_load_what_if(w, LoadWhatIf(concentration=2.0))
    assert _times(out) == [("j0", 0.0), ("j0#2", 0.0), ("j1", 30.0), ("j1#2", 30.0), ("j2", 60.0), ("j2#2", 60.0)]
    assert spec is not None and spec["fold"]["folding_ratio"] == 1.0 and spec["fold"]["input_cycle_s"] == 80.0
    assert notes[1] == ("mrsim: note: --concentration without --input-cycle: cycle = output duration = 80 s "
                        "(the trace's span x (N + 1) / N), so the fold moves no job")


def test_fold_then_scale_and_the_record() -> None:
    w = _workload(0.0, 30.0, 60.0)
    out, spec, notes = apply_load_what_if(w, LoadWhatIf(load_scale=2.0, duration_s=10.0, input_cycle_s=20.0,
                                                        concentration=8.0))
    assert _times(out) == [("j0", 0.0), ("j2", 0.0), ("j1", 2.5)]
    assert spec == {"jobs_in": 3, "jobs_out": 3, "submit_span_s": 2.5, "load_scale": 2.0,
                    "fold": {"duration_s": 10.0, "input_cycle_s": 20.0, "concentration": 8.0, "folding_ratio": 4.0,
                             "transcription_probability": 1.0, "seed": 0, "skipped": 0, "duplicated": 0}}
    assert notes == ["mrsim: note: load what-if: folded into 10 s by cycles of 20 s (concentration 8, folding "
                     "ratio 4.000, each job kept 1.000 times on average, seed 0: 0 skipped, 0 duplicated); then "
                     "load x2 (inter-arrival gaps x0.5, first submission kept): 3 jobs -> 3 jobs submitted over "
                     "2.5 s"]


def test_input_cycle_alone_takes_folders_one_hour_and_says_so() -> None:
    _, spec, notes = apply_load_what_if(_workload(0.0, 30.0, 60.0), LoadWhatIf(input_cycle_s=20.0))
    assert spec is not None and spec["fold"]["duration_s"] == 3600.0
    assert notes[1] == ("mrsim: note: --input-cycle without --duration: output duration 3600 s (Rumen Folder's "
                        "default -output-duration 1h)")


def test_no_what_if_changes_nothing() -> None:
    w = _workload(0.0, 1.0)
    assert apply_load_what_if(w, LoadWhatIf()) == (w, None, [])


@pytest.mark.parametrize(("what", "message"), [
    (LoadWhatIf(duration_s=10.0), "give --input-cycle too"),
    (LoadWhatIf(input_cycle_s=-1.0), "--input-cycle must be a positive number, got -1"),
    (LoadWhatIf(concentration=0.0), "--concentration must be a positive number, got 0"),
])
def test_bad_what_ifs_are_one_line_errors(what: LoadWhatIf, message: str) -> None:
    with pytest.raises(InputError) as e:
        apply_load_what_if(_workload(0.0, 1.0), what)
    assert message in e.value.worded(lambda name: "--" + name.replace("_", "-"))  # the command line's words
    assert message.replace("--input-cycle", "input_cycle").replace("--", "") in str(e.value)  # the API's


def test_fold_refuses_a_trace_without_a_span() -> None:
    with pytest.raises(InputError, match="hand: every job has the same submit time"):
        fold(_workload(5.0, 5.0), 10.0, 20.0)
