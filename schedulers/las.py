"""LAS on Hadoop slots: serve the job with the least attained service (slot-seconds), size-oblivious.

Least attained service (foreground-background) is not one of the study's four disciplines (Dell'Amico
RR-13-282, section 2.3) but its released simulator has it; it is the reference that needs no estimate. Attained
service is the slot time of the job's attempts already reported finished (:mod:`mrsim.schedulers._sizebased`); jobs of
equal attained service share slots (fewest running tasks of the slot type first, then the earlier job), so a
batch of fresh jobs is served round-robin, one slot each in turn. With ``preempt: true`` an arriving job (attained
0) kills the newest tasks of jobs that have attained more.

Config: ``preempt`` (default false); ``sigma`` and ``seed`` are accepted and ignored (LAS uses no estimate).
Cost: O(log jobs) per launch and per reported completion.
"""

from __future__ import annotations

from mrsim.schedulers._sizebased import SizeBasedScheduler, SizeJob


class LasScheduler(SizeBasedScheduler):
    """Least attained service first; ties share slots."""

    name = "las"
    summary = "size-oblivious: least attained slot service first, ties share (preempt)"
    uses_estimates = False

    def rank(self, rec: SizeJob) -> tuple:
        return (rec.done,)

    def shares(self, rec: SizeJob) -> bool:
        return True
