"""Synthetic TraceGen: a Facebook-like workload (SimMR section V-C), written as a Rumen trace.

Every default, and where it comes from:

* Map task durations ~ LogNormal(μ = 9.9511, σ = 1.6764) in **milliseconds** (SimMR V-C, fitted to the map
  CDF of Zaharia et al.'s Facebook October 2009 workload); reduce durations ~ LogNormal(12.375, 1.6262) ms.
  Durations are rounded to whole ms (Hadoop's resolution), at least 1 ms.
* Map tasks per job: the nine job-size bins of Zaharia et al. (EuroSys 2010, "Delay scheduling", Table 3),
  with their Facebook shares: 1 map 39 %, 2 maps 16 %, 3–20 14 %, 21–60 9 %, 61–150 6 %, 151–300 6 %,
  301–500 4 %, 501–1500 4 %, 1501–4800 3 % (uniform within a bin; the open top bin is capped at 4800, the
  size that paper's benchmark used for it). Mean ≈ 176 maps per job: heavy-tailed.
* Reduce tasks per job: ``max(1, round(maps × reduce_ratio))`` with ``reduce_ratio = 0.5`` (an mrsim choice:
  SimMR does not state it; it gives SimMR's scale of ~300,000 tasks for 1148 jobs).
* Shuffle: ``shuffle_fraction = 0.2`` of each drawn reduce duration is its shuffle (recorded as a *typical*
  shuffle; the remaining 80 % is the reduce phase), since the Facebook fit covers whole reduce tasks.
* Inter-arrival times ~ Exponential(mean = ``mean_interarrival_s``, default 30 s); the first job at t = 0.
* Users ``user1`` … ``user10`` uniformly, queue ``default``, priority NORMAL.

Each job is written as if it had run alone on an unbounded cluster (all maps start at submission, all reduces
at the end of the map stage) so that profiling the trace gives back exactly the drawn durations; the job's
``finishTime`` is -1, so replays report no "actual" completion time for synthetic jobs.
Random streams: one per quantity, derived from ``seed`` (see :mod:`mrsim.rng`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from mrsim.errors import OptionError
from mrsim.model.streamed import StreamedWorkload
from mrsim.model.templates import JobTemplate, Workload
from mrsim.rng import stream

#: (low, high, share) of map tasks per job, Zaharia et al. 2010 Table 3.
FACEBOOK_MAP_BINS: tuple[tuple[int, int, float], ...] = (
    (1, 1, 0.39), (2, 2, 0.16), (3, 20, 0.14), (21, 60, 0.09), (61, 150, 0.06),
    (151, 300, 0.06), (301, 500, 0.04), (501, 1500, 0.04), (1501, 4800, 0.03),
)
EPOCH_MS = 1262304000000  # 2010-01-01T00:00:00Z: synthetic traces' clock origin


@dataclass(frozen=True)
class FacebookLikeSpec:
    """Parameters of the synthetic workload (see the module docstring for the sources)."""

    jobs: int = 100
    seed: int = 0
    mean_interarrival_s: float = 30.0
    map_mu: float = 9.9511
    map_sigma: float = 1.6764
    reduce_mu: float = 12.375
    reduce_sigma: float = 1.6262
    reduce_ratio: float = 0.5
    shuffle_fraction: float = 0.2
    users: int = 10

    def validate(self) -> None:
        if self.jobs < 1:
            raise OptionError(f"{{jobs}} must be at least 1, got {self.jobs}")
        if not self.mean_interarrival_s >= 0:
            raise OptionError("{mean_interarrival} must be non-negative")
        if not 0 <= self.shuffle_fraction < 1:
            raise OptionError("{shuffle_fraction} must be in [0, 1)")
        if self.reduce_ratio < 0:
            raise OptionError("{reduce_ratio} must be non-negative")


def facebook_like_workload(spec: FacebookLikeSpec = FacebookLikeSpec()) -> Workload:
    """Draw the workload as templates (no file round trip). Cost: O(tasks)."""
    return Workload.of(list(iter_facebook_like(spec)), source=facebook_like_source_name(spec))


def facebook_like_source_name(spec: FacebookLikeSpec) -> str:
    """The ``source`` of the workload (``spec.trace`` in replay results), streamed or held whole."""
    return f"synth facebook-like jobs={spec.jobs} seed={spec.seed}"


#: Jobs whose sizes, arrivals and users are drawn at once (a streamed million-job run holds one such chunk, not
#: one array entry per job of the run). Drawing in chunks gives the same numbers as one draw of the whole run.
DRAW_CHUNK = 4096


def iter_facebook_like(spec: FacebookLikeSpec = FacebookLikeSpec()) -> Iterator[JobTemplate]:
    """The workload's templates one at a time, in submit order (streamed replays, ``mrsim.model.streamed``).

    The same templates as :func:`facebook_like_workload`: each quantity has its own random stream, and per-job
    quantities are drawn ``DRAW_CHUNK`` jobs at a time (numpy's generators give the same sequence in chunks; the
    submit times are a running sum carried from chunk to chunk). Memory: O(``DRAW_CHUNK`` + one job's tasks).
    """
    spec.validate()
    n = spec.jobs
    bins = np.array([b[2] for b in FACEBOOK_MAP_BINS])
    bin_rng = stream(spec.seed, "synth-bins")
    size_rng = stream(spec.seed, "synth-sizes")
    arrival_rng = stream(spec.seed, "synth-arrivals")
    map_rng = stream(spec.seed, "synth-map-durations")
    red_rng = stream(spec.seed, "synth-reduce-durations")
    user_rng = stream(spec.seed, "synth-users")
    bin_lows = np.array([b[0] for b in FACEBOOK_MAP_BINS])
    bin_highs = np.array([b[1] for b in FACEBOOK_MAP_BINS])
    width = max(4, len(str(n)))
    clock_s = 0.0  # running sum of the gaps (s), carried across chunks
    for first in range(0, n, DRAW_CHUNK):
        size = min(DRAW_CHUNK, n - first)
        bin_idx = bin_rng.choice(len(FACEBOOK_MAP_BINS), size=size, p=bins / bins.sum())
        maps = size_rng.integers(bin_lows[bin_idx], bin_highs[bin_idx] + 1)
        reduces = np.maximum(1, np.rint(maps * spec.reduce_ratio)).astype(np.int64)
        gaps = arrival_rng.exponential(spec.mean_interarrival_s, size) if spec.mean_interarrival_s else np.zeros(size)
        if first == 0:
            gaps[0] = 0.0
        clocks = np.cumsum(np.concatenate(([clock_s], gaps)))[1:]  # sequential sums, as one cumsum of all gaps
        clock_s = float(clocks[-1])
        submit_ms = EPOCH_MS + np.rint(clocks * 1000.0)
        users = user_rng.integers(1, spec.users + 1, size)
        for k in range(size):
            j = first + k
            m, r = int(maps[k]), int(reduces[k])
            map_ms = np.maximum(1.0, np.rint(map_rng.lognormal(spec.map_mu, spec.map_sigma, m)))
            total_ms = np.maximum(1.0, np.rint(red_rng.lognormal(spec.reduce_mu, spec.reduce_sigma, r)))
            shuffle_ms = np.rint(total_ms * spec.shuffle_fraction)
            yield JobTemplate(
                job_id=f"job_{EPOCH_MS // 1000}_{j + 1:0{width}d}",
                submit_s=float(submit_ms[k]) / 1000.0,
                map_durations=map_ms / 1000.0,
                reduce_durations=(total_ms - shuffle_ms) / 1000.0,
                typical_shuffle_durations=shuffle_ms / 1000.0,
                name=f"synthetic-{j + 1}",
                user=f"user{int(users[k])}",
            )


class FacebookLikeSource:
    """:func:`iter_facebook_like` as the job source of a streamed workload (``mrsim.model.streamed.JobSource``)."""

    def __init__(self, spec: FacebookLikeSpec) -> None:
        spec.validate()
        self.spec = spec
        self.warnings: list[str] = []
        self.total: int | None = spec.jobs

    def jobs(self) -> Iterator[JobTemplate]:
        return iter_facebook_like(self.spec)


def streamed_facebook_like(spec: FacebookLikeSpec) -> StreamedWorkload:
    """The workload of :func:`facebook_like_workload`, read while a replay runs (same ``source``)."""
    return StreamedWorkload(FacebookLikeSource(spec), facebook_like_source_name(spec))


def template_to_logged_job(t: JobTemplate) -> dict:
    """A Rumen ``LoggedJob`` dict that profiles back to exactly ``t``'s durations (isolated-run timeline).

    Maps start at submission; first-wave reduces (if the template has first-shuffle durations) start at
    submission too and finish their shuffle that long after the map stage; typical reduces start when the map
    stage ends. All times are whole ms. ``finishTime`` is -1 unless the template has an actual completion time.
    """
    submit = int(round(t.submit_s * 1000))
    jid = t.job_id
    suffix = jid[4:] if jid.startswith("job_") else jid
    map_ms = np.rint(t.map_durations * 1000).astype(np.int64).tolist()
    map_end = submit + (max(map_ms) if map_ms else 0)
    map_tasks = []
    for i, d in enumerate(map_ms):
        host = "/default-rack/synthetic-host"
        attempt = {"attemptID": f"attempt_{suffix}_m_{i:06d}_0", "result": "SUCCESS", "startTime": submit,
                   "finishTime": submit + d, "shuffleFinished": -1, "sortFinished": -1, "hostName": host}
        task = {"taskID": f"task_{suffix}_m_{i:06d}", "taskType": "MAP", "taskStatus": "SUCCESS",
                "startTime": submit, "finishTime": submit + d, "attempts": [attempt], "preferredLocations": []}
        if t.map_locations:
            task["preferredLocations"] = [{"layers": loc.strip("/").split("/")} for loc in t.map_locations[i]]
        map_tasks.append(task)
    first = np.rint(t.first_shuffle_durations * 1000).astype(np.int64).tolist()
    typical = np.rint(t.typical_shuffle_durations * 1000).astype(np.int64).tolist()
    red_ms = np.rint(t.reduce_durations * 1000).astype(np.int64).tolist()
    reduce_tasks = []
    finish_all = map_end
    for i, d in enumerate(red_ms):
        if i < len(first) and map_ms:
            start, sort_end = submit, map_end + first[i]
        else:
            k = i - len(first) if map_ms else i
            start = map_end
            sort_end = start + (typical[k] if k < len(typical) else 0)
        finish = sort_end + d
        finish_all = max(finish_all, finish)
        attempt = {"attemptID": f"attempt_{suffix}_r_{i:06d}_0", "result": "SUCCESS", "startTime": start,
                   "finishTime": finish, "shuffleFinished": sort_end, "sortFinished": sort_end,
                   "hostName": "/default-rack/synthetic-host"}
        reduce_tasks.append({"taskID": f"task_{suffix}_r_{i:06d}", "taskType": "REDUCE", "taskStatus": "SUCCESS",
                             "startTime": start, "finishTime": finish, "attempts": [attempt], "preferredLocations": []})
    finish_time = submit + int(round(t.actual_completion_s * 1000)) if t.actual_completion_s is not None else -1
    return {
        "jobID": jid, "jobName": t.name or None, "user": t.user, "queue": t.queue, "priority": t.priority.name,
        "submitTime": submit, "launchTime": submit, "finishTime": finish_time,
        "totalMaps": t.n_maps, "totalReduces": t.n_reduces, "outcome": t.outcome.value, "jobtype": "JAVA",
        "mapTasks": map_tasks, "reduceTasks": reduce_tasks, "otherTasks": [],
    }
