"""PINNED REGRESSION NUMBERS, not theory and not the study's figures.

Mean sojourn times (s) and event counts that this implementation produced on FB09-0 (load 0.9, d/n 4) when it
was written, cross-checked against the naive O(n)-per-event reference (benchmarks/bench_fluid.py). A change here
means the model, the SWIM size convention or the estimate stream changed: explain it in the commit.
"""

from __future__ import annotations

import pytest

from mrsim.studies.fluid import run_fluid
from tests.tracker.helpers import SHARED_DATA

FB09_0 = SHARED_DATA / "swim" / "FB-2009_samples_24_times_1hr_0.tsv"

PINNED = {
    # (sigma, scheduler): (mean sojourn s, events); seed 7
    (0.0, "fifo"): (11135.459236965771, 11788),
    (0.0, "ps"): (75.17107685352097, 11788),
    (0.0, "srpt"): (32.486367195814836, 11788),
    (0.0, "fsp-fifo"): (32.84302673500228, 17681),
    (0.0, "fsp-ps"): (32.84302673500228, 17681),
    (0.0, "las"): (49.08994156353792, 12023),
    (1.0, "srpt"): (1888.3160916313934, 11788),
    (1.0, "fsp-fifo"): (45.9405281151147, 17674),
    (1.0, "fsp-ps"): (45.902431757791476, 17674),
}


@pytest.mark.parametrize("key", sorted(PINNED))
def test_pinned_fb09_0(key: tuple[float, str]) -> None:
    sigma, scheduler = key
    mean, events = PINNED[key]
    summary = run_fluid(FB09_0, scheduler, sigma=sigma, seed=7)["summary"]
    assert summary["mean_completion_s"] == pytest.approx(mean, rel=1e-9)
    assert summary["events"] == events
