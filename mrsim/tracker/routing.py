"""Where a replay's jobs went: one stderr line per scheduler run, e.g. ``capacity: 19 jobs -> default (capacity
20 %, user-limit-factor 1)`` or ``fair: 12 jobs -> pool a (weight 1, minMaps 0), 7 -> pool default (...)``.

A scheduler with queues or pools reports them through ``TaskScheduler.routes()`` (the Capacity Scheduler's queue
of each job, ``mapred.job.queue.name``; the Fair Scheduler's pool, ``PoolManager.getPoolName``), counted as jobs
arrive; one without (FIFO, the deadline and size-based plug-ins) keeps every job in its one job queue.
Cost: O(destinations).
"""

from __future__ import annotations

from typing import Sequence


#: Destinations named in one line; the rest are counted (a trace with a pool per user has hundreds).
MAX_NAMED = 5


def routing_text(routes: Sequence[tuple[str, int]]) -> str:
    """``"12 jobs -> pool a (...), 7 -> default"``: the first count says "jobs", the rest only the number; past
    :data:`MAX_NAMED` destinations, ``"and K more (M jobs)"``."""
    named = [f"{_jobs(n)} -> {where}" if i == 0 else f"{n} -> {where}" for i, (where, n) in
             enumerate(routes[:MAX_NAMED])]
    rest = routes[MAX_NAMED:]
    if rest:
        named.append(f"and {len(rest)} more ({_jobs(sum(n for _, n in rest))})")
    return ", ".join(named)


def _jobs(n: int) -> str:
    return f"{n} job" if n == 1 else f"{n} jobs"


def ordered(counts: dict[str, int]) -> list[tuple[str, int]]:
    """Destinations by job count (most first), then name."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def routing_note(name: str, scheduler: object, jobs: int) -> str:
    """The ``mrsim: note:`` line for one run of the MR1 scheduler ``name`` over ``jobs`` jobs."""
    routes = getattr(scheduler, "routes", None)
    return note_for(name, routes() if callable(routes) else None, jobs)


def yarn_routing_note(name: str, scheduler: object, result: object) -> str:
    """The line for one YARN replay: jobs per leaf queue from the result's ``queue`` column (the queue each app was
    placed in), with the scheduler's settings for it."""
    counts: dict[str, int] = {}
    for queue in result.job_columns["queue"]:  # type: ignore[attr-defined]
        counts[str(queue)] = counts.get(str(queue), 0) + 1
    routes = getattr(scheduler, "routes", None)
    return note_for(name, routes(counts) if callable(routes) else None, sum(counts.values()))


def note_for(name: str, found: Sequence[tuple[str, int]] | None, jobs: int) -> str:
    """The line from a scheduler's routes (None: it has no queues or pools)."""
    if found is None:
        return f"mrsim: note: {name}: {_jobs(jobs)} -> one job queue (the scheduler has no queues or pools)"
    if not found:
        return f"mrsim: note: {name}: no job arrived"
    return f"mrsim: note: {name}: {routing_text(found)}"
