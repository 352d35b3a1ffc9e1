"""Named random streams derived from one master seed (no global random state).

``stream(seed, "heartbeat-phases")`` always gives the same generator for the same pair, independent of which
other streams were drawn, so comparing two schedulers uses identical random inputs.
"""

from __future__ import annotations

import zlib

import numpy as np


def stream(seed: int, name: str) -> np.random.Generator:
    """A PCG64 generator for ``(seed, name)``; cost O(1)."""
    key = zlib.crc32(name.encode("utf-8"))
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(int(seed), spawn_key=(key,))))
