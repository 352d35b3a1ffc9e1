"""Small I/O helpers shared by every reader and writer."""

from mrsim.io.atomic import atomic_path, atomic_write
from mrsim.io.compressed import open_text

__all__ = ["atomic_path", "atomic_write", "open_text"]
