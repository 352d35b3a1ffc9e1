"""The cyclic garbage collector's setting while an engine runs (MR1 and YARN modes).

Every queued event is a tuple the cyclic GC tracks, and most live for thousands of events: at the default
generation-0 threshold (700) nearly every one is scanned in generation 0, promoted and scanned again (3 % of a
streamed replay's CPU on 10,000 nodes, ``docs/performance.md``). The engine makes no reference cycle per event or
per job (a finished job is freed by reference counting: ``tests/tracker/test_streaming.py``), so generation 0 may
be larger while it runs. The caller's thresholds come back afterwards, whatever happens.

YARN mode turns the collector off for the replay (:func:`yarn_gc`). Its objects live longer than MR1's: every
container is an object alive for its task's duration, every exit an event queued as long, and the per-queue
series keeps a row per change. So most of the 100,000 allocations that start a generation-0 collection are
still alive when it runs, and each collection scans and promotes them all: on the 1148-job benchmark
(``benchmarks/bench_yarn.py``) 40 collections took 0.22 to 0.40 CPU s of a 2 to 3 s replay (measured with
``gc.callbacks``), against 0.01 s for the MR1 replay, whose events mostly die before a collection. A YARN
replay makes no garbage cycle per event either (``tests/tracker/yarn/test_gc_policy.py`` counts them: none), so nothing
accumulates while the collector is off; the replay's own structures are freed when the result is.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

RUN_GC_THRESHOLD = 100_000  # generation-0 allocations between collections while the engine runs


@contextmanager
def engine_gc() -> Iterator[None]:
    """Raise the generation-0 threshold to :data:`RUN_GC_THRESHOLD` (never lower it) for the ``with`` block."""
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], RUN_GC_THRESHOLD), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


@contextmanager
def yarn_gc() -> Iterator[None]:
    """No cyclic collection during the ``with`` block (a YARN replay); the collector's previous state (enabled or
    not) comes back afterwards, whatever happens, with the objects allocated meanwhile in the oldest generation
    (:func:`enable_after_pause`). Reference counting frees everything as usual."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            enable_after_pause()


def enable_after_pause() -> None:
    """Turn the cyclic collector back on after a pause in which much was allocated and kept (a YARN replay, the
    one-pass ingest's read of a trace), with those objects in the oldest generation. O(1).

    Everything allocated during the pause sits in generation 0, whose count is then far past its threshold: the
    first allocation after ``gc.enable()`` would scan it all (0.1-0.15 s after the 1148-job YARN replay, 8-10 ms
    after the ingest's read of that trace, right before its replay starts), and the next generation-1 collection
    again, only to promote it to the oldest generation. ``gc.freeze()`` then ``gc.unfreeze()`` puts every tracked
    object there at once (two list splices) and resets the counts; full collections still scan (and free) them as
    usual. A caller that froze objects keeps them frozen: then the collector is only enabled."""
    if not gc.get_freeze_count():
        gc.freeze()
        gc.unfreeze()
    gc.enable()
