"""Test a given heartbeat interval against the replayed trace's own first assignments.

A calibration given with ``--calibration-from`` (another trace, a store or a TOML file) brings the heartbeat
interval its own cluster ran at. The replayed trace can disprove it: under an interval of ``H`` seconds every
TaskTracker heartbeats once per ``H`` (``TaskTracker.offerService`` waits ``heartbeatInterval`` after its last
heartbeat, the interval the JobTracker sizes from the cluster in ``JobTracker.getNextHeartbeatInterval``), so the
trackers that received their first task of a job's maps (reduces) soon after those became assignable cannot be
more than the trackers that heartbeated in that time.

**The evidence** (:class:`AssignmentBurst`, measured by :mod:`mrsim.calibration.extract`, JobTracker clock only):
for a job and a task kind, the instant ``A`` its tasks became assignable (maps: the SETUP task's end, else the
job's launch; reduces: the end of the map that met slow start, ``JobInProgress.scheduleReduces``; never later than
the kind's first assignment) and the offsets from ``A`` of the first assignments of the *fresh* trackers whose
first traced assignment of all is one of these tasks. A fresh tracker has no traced task before, so no traced
completion can have sent it an out-of-band heartbeat: its first assignment was made at a regular heartbeat.
``fresh_trackers`` counts every tracker whose first traced assignment is at or after ``A`` (the ones that
could have heartbeated in the window, whether or not they received work).

**The test.** Assume the fresh trackers' heartbeat phases are independent and uniform on ``[0, H)``, as in the
replay itself (``docs/engine.md``). Each tracker has exactly one heartbeat in ``[A, A + H)``, so the number of
them with a heartbeat in ``[A, A + w]`` (``w < H``) is Binomial(n, w / H), and the k-th earliest of those
heartbeats is ``H * Beta(k, n - k + 1)``. For the k-th distinct phase of the burst at offset ``w_k`` the
probability of a burst at least as tight is ``P[Binomial(n, w_k / H) >= k] = I_{w_k/H}(k, n - k + 1)``
(the regularised incomplete Beta function; an assignment needs a heartbeat, so this bounds it from above). One
test per distinct phase below ``H``, over every burst of the trace; the smallest probability times the number of
tests (Bonferroni) is the trace's p-value.

**Synchronised trackers.** Real TaskTrackers are not always independent: the JobTracker handles heartbeats one at
a time (``JobTracker.heartbeat`` is synchronised), so trackers whose heartbeats queued behind a long-held lock are
answered within milliseconds of each other and keep that common phase afterwards. Gridmix ``distcache_case7``
(seven of its gaps before regular heartbeats lie near 3.05 s) gave six fresh trackers their first maps within
5 ms. First assignments closer than the JobTracker's budget per heartbeat, ``1 / mapred.heartbeats.in.second`` (the
rate the interval formula is sized for: 100 per second by default, so 10 ms), are therefore counted as **one
phase**. Without this grouping the test rejects 3.009 s for Gridmix ``compression_case2`` and ``compression_case4``
(P = 6e-4 and 4e-5), which measured 3.006 s from their own gaps: the grouping is what makes the assumption hold on
real traces.

**Significance**: ``SIGNIFICANCE`` = 0.001, chosen once: the given interval is an explicit choice (the user's, or
another trace's measurement), so it is overridden only on evidence strong enough that, when the given interval is
right, at most one replay in a thousand drops it (the Bonferroni correction keeps that bound per replay whatever
the number of bursts). ``docs/calibration.md`` gives the figures of the real traces.

The test is one-sided: tight bursts disprove a *long* interval; a given interval *shorter* than the truth is
consistent with any burst and is never rejected here (``docs/calibration.md``, "The reverse case").

Cost: O(sum over bursts of their fresh trackers) Beta evaluations, vectorised (scipy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

SIGNIFICANCE = 0.001
DEFAULT_HEARTBEATS_PER_SECOND = 100.0  # mapred.heartbeats.in.second's default (JobTracker.NUM_HEARTBEATS_IN_SECOND)
BURST_KEYS = ("job", "kind", "fresh_trackers", "resolution_s", "offsets_s")


@dataclass(frozen=True)
class AssignmentBurst:
    """The first assignments of one job's maps or reduces on fresh TaskTrackers (module docstring).

    Attributes:
        job: the job id (as the template builder names it).
        kind: ``map`` or ``reduce``.
        fresh_trackers: trackers whose first traced assignment is at or after the instant the tasks became
            assignable (n of the test).
        resolution_s: ``1 / mapred.heartbeats.in.second`` of the job's conf: first assignments closer than this
            count as one phase (synchronised trackers).
        offsets_s: sorted seconds from that instant to each fresh tracker's first assignment of these tasks.
    """

    job: str
    kind: str
    fresh_trackers: int
    resolution_s: float
    offsets_s: tuple[float, ...]

    def phases(self) -> tuple[float, ...]:
        """The offset at which each distinct phase starts: an offset within ``resolution_s`` of the previous one
        joins its phase. Sorted; O(offsets)."""
        out: list[float] = []
        last = None
        for x in self.offsets_s:
            if last is None or x - last > self.resolution_s:
                out.append(x)
            last = x
        return tuple(out)

    def to_toml(self) -> str:
        offsets = ", ".join(repr(x) for x in self.offsets_s)
        return (f'{{job = "{_escaped(self.job)}", kind = "{self.kind}", fresh_trackers = {self.fresh_trackers}, '
                f"resolution_s = {self.resolution_s!r}, offsets_s = [{offsets}]}}")


@dataclass(frozen=True)
class HeartbeatCheck:
    """The outcome of testing ``given_interval_s`` against the replayed trace's bursts.

    ``p_value``: the Bonferroni-corrected probability (``tests`` tests) of bursts as tight as the tightest one
    under the given interval; ``rejected`` when below ``significance``. ``job``, ``kind``, ``phases``,
    ``fresh_trackers`` and ``within_s`` describe the tightest burst: ``phases`` distinct phases of
    ``fresh_trackers`` fresh trackers within ``within_s`` seconds of the tasks becoming assignable."""

    given_interval_s: float
    p_value: float
    significance: float
    rejected: bool
    tests: int
    job: str = ""
    kind: str = ""
    phases: int = 0
    fresh_trackers: int = 0
    within_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"given_interval_s": self.given_interval_s, "p_value": self.p_value,
                "significance": self.significance, "rejected": self.rejected, "tests": self.tests,
                "burst": {"job": self.job, "kind": self.kind, "phases": self.phases,
                          "fresh_trackers": self.fresh_trackers, "within_s": self.within_s} if self.tests else None}

    def describe_burst(self) -> str:
        return (f"the first {self.kind}s of {self.job} reached {self.phases} distinct heartbeat phase(s) of "
                f"{self.fresh_trackers} fresh TaskTrackers within {self.within_s:.3f} s of becoming assignable")


def binomial_tail(k: Sequence[int], n: Sequence[int], x: Sequence[float]) -> list[float]:
    """``P[Binomial(n, x) >= k]`` element-wise (= the Beta(k, n - k + 1) CDF at x, the k-th order statistic of n
    uniforms), for 1 <= k <= n and x in [0, 1]."""
    from scipy.special import betainc

    import numpy as np

    k_arr = np.asarray(k, dtype=float)
    return [float(p) for p in betainc(k_arr, np.asarray(n, dtype=float) - k_arr + 1.0,
                                      np.clip(np.asarray(x, dtype=float), 0.0, 1.0))]


def check_interval(bursts: Sequence[AssignmentBurst], interval_s: float,
                   significance: float = SIGNIFICANCE) -> HeartbeatCheck:
    """Test ``interval_s`` against ``bursts`` (module docstring). With no phase below the interval there is no
    test: ``p_value`` 1, not rejected."""
    rows: list[tuple[AssignmentBurst, int, float]] = []  # (burst, k, w_k)
    for burst in bursts:
        n = max(burst.fresh_trackers, len(burst.offsets_s))
        for k, w in enumerate(burst.phases(), start=1):
            if w < interval_s and k <= n:
                rows.append((burst, k, w))
    if not rows:
        return HeartbeatCheck(interval_s, 1.0, significance, False, 0)
    tails = binomial_tail([k for _b, k, _w in rows], [max(b.fresh_trackers, len(b.offsets_s)) for b, _k, _w in rows],
                          [w / interval_s for _b, _k, w in rows])
    at = min(range(len(rows)), key=lambda i: (tails[i], i))
    burst, k, w = rows[at]
    p = min(1.0, tails[at] * len(rows))
    return HeartbeatCheck(interval_s, float(f"{p:.3g}"), significance, p < significance, len(rows), burst.job,
                          burst.kind, k, max(burst.fresh_trackers, len(burst.offsets_s)), round(w, 3))


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
