"""Named random streams derived from one master seed, so two policies compared on one seed see identical inputs.

``named_rng(seed, "arrivals")`` is a :class:`numpy.random.Generator` whose state depends only on the seed and
the name, so changing how one quantity is drawn (say, the placement) leaves every other stream unchanged, and
two policies compared on one seed see identical inputs. No global random state is touched.
"""

from __future__ import annotations

import zlib

import numpy as np


def named_rng(seed: int, name: str) -> np.random.Generator:
    """A generator for stream ``name`` of master ``seed`` (CRC-32 of the name as the spawn key)."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(int(seed), spawn_key=(zlib.crc32(name.encode()),))))
