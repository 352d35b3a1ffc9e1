"""Write a figure atomically, in the format named by the file extension."""

from __future__ import annotations

import os
from pathlib import Path

from matplotlib.figure import Figure

from mrsim.errors import InputError
from mrsim.io import atomic_path

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
#: PNG resolution (dots per inch); a 8 x 5 in figure becomes 1200 x 750 pixels.
PNG_DPI = 150


def check_output(path: str | os.PathLike[str]) -> Path:
    """Reject an output name without a supported extension (before any work is done)."""
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise InputError(f"{p}: the figure name must end in {', '.join(FORMATS)}")
    return p


def save_figure(fig: Figure, path: str | os.PathLike[str]) -> Path:
    """Save ``fig`` to ``path`` (PNG, SVG or PDF by extension), appearing only once complete."""
    p = check_output(path)
    fmt = FORMATS[p.suffix.lower()]
    with atomic_path(p, "the plot") as tmp:
        fig.savefig(tmp, format=fmt, dpi=PNG_DPI if fmt == "png" else "figure")
    return p
