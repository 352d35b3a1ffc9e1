"""A workload read lazily: job templates come from an iterator, in submit order, while the replay runs.

:class:`StreamedWorkload` is a :class:`mrsim.model.templates.Workload` that holds no template: each replay opens
its :class:`JobSource` again and the engine pulls one job at a time, one arrival ahead of the clock
(``mrsim/tracker/features/streaming.py``). Memory then grows with the jobs in flight, not with the trace. The
sources: :func:`mrsim.profiler.synth.iter_facebook_like` (``mrsim synth``'s model) and
:func:`mrsim.profiler.swim_stream.swim_source` (SWIM ``.tsv`` files read line by line).

Jobs must come in ``(submit_s, job_id)`` order, the order :class:`Workload` sorts whole workloads into; jobs
submitted at the same instant may come in any order (the engine sorts each such group by job id). A job submitted
earlier than the one before it is an error: a stream cannot be sorted without holding it.
"""

from __future__ import annotations

from typing import Iterator, Protocol

from mrsim.model.templates import JobTemplate, Workload


class JobSource(Protocol):
    """Where a streamed workload's jobs come from.

    ``jobs()`` opens a fresh iterator over the templates (a replay opens it once; a second replay opens it again).
    ``warnings`` collects the non-fatal problems found while reading, each naming its job (read after the run).
    ``total`` is the number of jobs when known up front (progress bars), else None.
    """

    warnings: list[str]
    total: int | None

    def jobs(self) -> Iterator[JobTemplate]: ...


class StreamedWorkload(Workload):
    """A :class:`Workload` whose jobs are read while the replay runs (see the module docstring).

    ``jobs`` is empty; :meth:`stream` opens the source. ``len()`` is the source's ``total`` when it knows it, else
    0 (so code that sizes a progress bar from ``len`` shows none); ``n_maps`` / ``n_reduces`` / ``n_tasks`` are
    unknown before the run and raise.
    """

    source_of_jobs: JobSource

    def __init__(self, source_of_jobs: JobSource, source: str) -> None:
        super().__init__((), source, ())
        object.__setattr__(self, "source_of_jobs", source_of_jobs)

    def stream(self) -> Iterator[JobTemplate]:
        """A fresh iterator over the job templates, in submit order."""
        return self.source_of_jobs.jobs()

    @property
    def stream_warnings(self) -> tuple[str, ...]:
        """The warnings the source found so far (all of them once a replay has read it to the end)."""
        return tuple(self.source_of_jobs.warnings)

    def __len__(self) -> int:
        return self.source_of_jobs.total or 0

    @property
    def origin_s(self) -> float:
        """The first job's submit time (s), the zero of the replay clock (opens the source to read it)."""
        first = next(iter(self.stream()), None)
        return first.submit_s if first is not None else 0.0

    @property
    def n_tasks(self) -> int:
        raise TypeError("a streamed workload's task count is known only after the replay")

    @property
    def n_maps(self) -> int:
        raise TypeError("a streamed workload's map count is known only after the replay")

    @property
    def n_reduces(self) -> int:
        raise TypeError("a streamed workload's reduce count is known only after the replay")
