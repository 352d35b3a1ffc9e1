"""SRPT on Hadoop slots: serve the job with the least *estimated remaining* work (Dell'Amico RR-13-282, section
2.3; Schrage and Miller 1966), in the slot-level form of :mod:`mrsim.schedulers._sizebased`.

Rank of a job: ``max(0, estimate - done)`` in slot-seconds, where ``estimate = size * X`` (``X ~ LogNormal(0,
sigma^2)``, seeded) and ``done`` is the slot time of its attempts already reported finished. Ties (e.g. several
under-estimated jobs at 0) go to the earlier job. Every free map slot goes to the best job with pending maps,
every free reduce slot to the best job with schedulable reduces. Without preemption a new small job waits for
slots to free up; with ``preempt: true`` its arrival kills the newest tasks of jobs with more estimated
remaining work (see :mod:`mrsim.schedulers._sizebased`).

Config (constructor dict, or a JSON file via ``config_file``): ``sigma`` (default 0), ``seed`` (0),
``preempt`` (false). Cost: O(log jobs) per launch and per reported completion.
"""

from __future__ import annotations

from mrsim.schedulers._sizebased import SizeBasedScheduler, SizeJob


class SrptScheduler(SizeBasedScheduler):
    """Shortest (estimated) remaining processing time first."""

    name = "srpt"
    summary = "size-based: least estimated remaining slot work first (sigma, seed, preempt)"

    def rank(self, rec: SizeJob) -> tuple:
        remaining = rec.estimate - rec.done
        return (remaining if remaining > 0.0 else 0.0,)
