"""YARN mode's calibration: the ApplicationMaster's job-commit tail, measured from the replayed trace.

After its last task reports, the MR ApplicationMaster does not finish at once: ``CommitterEventHandler`` runs the
job's ``OutputCommitter.commitJob`` (``FileOutputCommitter`` renames the task outputs into the output directory:
file-system work that grows with the job's output files), then ``MRAppMaster`` writes the job's history and
unregisters from the ResourceManager, and only then does the job's finish time get recorded. No Hadoop setting
gives that time, but every trace records it: **job finish - latest finish of its map and reduce tasks** (the
``tail_s`` of ``mrsim.profiler.observe.JobObservation``). As the MR1 engine replays each job's own
cleanup task time (``docs/calibration.md``, part ``aux``), YARN mode replays each job's own commit tail: it is a
property of the job (its output), not of the scheduler, so it holds in what-if replays of the same jobs too. A job
the trace records no tail for draws one from the law of the recorded tails (inverse CDF, the seeded stream
``calibration-commit``), as MR1's launch lags are drawn; with no recorded tail at all there is no calibration.

The AM keeps its container during the commit; the job's ``finish_s`` is the end of the commit. The calibration is
on by default for real traces (``mrsim replay``, ``validate``, ``compare`` in YARN mode) and ``--no-calibration``
turns it off (the engine then finishes a job with its last task, as before this part). ``docs/yarn.md`` has the
measured effect.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from mrsim.calibration.model import Distribution
from mrsim.rng import stream


@dataclass(frozen=True)
class YarnCalibration:
    """What a YARN cluster adds around each job that the templates do not carry (seconds).

    Attributes:
        commit_s: per job id, the job's own commit tail: job finish - last map/reduce task finish.
        commit_law: the law of those tails, for jobs that have none (None: no job recorded one).
        source: where it was measured (a trace path).
    """

    commit_s: Mapping[str, float] = field(default_factory=dict)
    commit_law: Distribution | None = None
    source: str = ""

    @classmethod
    def from_tails(cls, tails: Mapping[str, float | None], source: str = "") -> "YarnCalibration | None":
        """From per-job tails (None: unknown). Negative tails (a clock or a log anomaly: the job's finish before
        its last task's) count as 0. None when no job recorded a tail."""
        kept = {job: max(0.0, float(t)) for job, t in tails.items() if t is not None and math.isfinite(float(t))}
        if not kept:
            return None
        return cls(kept, Distribution.of(list(kept.values())), source)

    @classmethod
    def from_observations(cls, observations: Mapping[str, Any], source: str = "") -> "YarnCalibration | None":
        """From a profiler's per-job observations (objects with a ``tail_s`` attribute, seconds or None)."""
        return cls.from_tails({job: getattr(obs, "tail_s", None) for job, obs in observations.items()}, source)

    def commit_times(self, job_ids: Sequence[str], seed: int) -> list[float]:
        """The commit tail of each job, in the order given: its own, else a draw from :attr:`commit_law` (one
        uniform draw per such job, in order, from the stream ``calibration-commit`` of ``seed``)."""
        rng = stream(seed, "calibration-commit")
        out: list[float] = []
        for job in job_ids:
            own = self.commit_s.get(job)
            if own is not None:
                out.append(own)
            elif self.commit_law is not None:
                out.append(self.commit_law.sample(float(rng.random())))
            else:
                out.append(0.0)
        return out

    def describe(self, job_ids: Sequence[str]) -> dict[str, Any]:
        """``spec.yarn_calibration`` of the JSON output."""
        own = sum(1 for j in job_ids if j in self.commit_s)
        return {"source": self.source, "commit_tail": {
            "jobs_with_own_tail": own, "jobs_drawn_from_law": len(job_ids) - own,
            "law": self.commit_law.describe() if self.commit_law is not None else None}}

    def note(self, job_ids: Sequence[str]) -> str:
        """One line for stderr: which calibration the run uses."""
        own = sum(1 for j in job_ids if j in self.commit_s)
        law = self.commit_law.describe() if self.commit_law is not None else "none"
        return (f"calibration (YARN): job commit tails from {self.source or 'the trace'}: {own} job(s) their own, "
                f"{len(job_ids) - own} drawn from the trace's law ({law}); --no-calibration turns it off")
