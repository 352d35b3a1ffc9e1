"""Progress bars on stderr (only on a terminal) for runs that last: replays, comparisons, sweeps."""

from __future__ import annotations

import contextlib
import sys
from typing import Callable, Iterator


#: Seconds a run must last before its progress bar appears.
BAR_DELAY_S = 2.0


@contextlib.contextmanager
def progress_bar(total: int, unit: str) -> Iterator[Callable[[float], None] | None]:
    """Yield a ``progress(done)`` callback drawing a tqdm bar on stderr, or None when stderr is not a terminal.

    ``done`` may be fractional (a comparison's replays report how far each one is), and the bar then shows one
    decimal. A bar of one unit is drawn too when its steps are fractional. The bar appears only once the run has
    taken :data:`BAR_DELAY_S` (tqdm's ``delay``): short runs print nothing.
    """
    if not sys.stderr.isatty() or total < 1:
        yield None
        return
    from tqdm import tqdm

    bar = tqdm(total=total, unit=unit, file=sys.stderr, leave=False, mininterval=0.2, delay=BAR_DELAY_S,
               bar_format="{l_bar}{bar}| {n:.1f}/{total_fmt} " + unit + " [{elapsed}<{remaining}]")

    def update(done: float) -> None:
        bar.update(done - bar.n)

    try:
        yield update
    finally:
        bar.close()
