"""The cyclic garbage collector's setting while an engine runs (MR1 and YARN modes alike).

Every queued event is a tuple the cyclic GC tracks, and most live for thousands of events: at the default
generation-0 threshold (700) nearly every one is scanned in generation 0, promoted and scanned again (3 % of a
streamed replay's CPU on 10,000 nodes, ``docs/performance.md``). The engine makes no reference cycle per event or
per job (a finished job is freed by reference counting: ``tests/engine/test_streaming.py``), so generation 0 may
be larger while it runs. The caller's thresholds come back afterwards, whatever happens.
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
