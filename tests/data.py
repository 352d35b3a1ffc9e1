"""Where the tests find the real traces and logs: the one definition every test module imports.

The data is not part of the repository. It is read from ``$MRSIM_SHARED_DATA`` when that variable is set and not
empty, otherwise from ``../shared/data`` next to the repository root. Setting the variable replaces the fallback
entirely, so ``MRSIM_SHARED_DATA=/nonexistent python3 -m pytest`` runs the suite as on a machine without the data:
every test that reads it is skipped (``tests/conftest.py``), none fails.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def shared_data_dir() -> Path:
    """The real-data folder, whether or not it exists (an empty ``MRSIM_SHARED_DATA`` counts as unset)."""
    env = os.environ.get("MRSIM_SHARED_DATA", "")
    return Path(env) if env else REPO.parent / "shared" / "data"


SHARED_DATA = shared_data_dir()
