"""Small wording helpers for human-facing lines: counted nouns and names clipped to a column.

No imports, so that every layer (readers, engine, CLI) may use them.
"""

from __future__ import annotations

#: The mark put where a clipped name lost its start (one column wide).
ELLIPSIS = "…"


def counted(n: int | float | None, noun: str, plural: str | None = None) -> str:
    """``"1 node"``, ``"3 nodes"``, ``"1 NodeManager"``: ``n`` then the noun, plural unless ``n`` is exactly 1.

    ``plural`` defaults to ``noun + "s"``.
    """
    word = noun if n == 1 else (plural if plural is not None else noun + "s")
    return f"{n} {word}"


def clip_left(text: str, width: int) -> str:
    """``text`` when it fits in ``width`` columns, else its last ``width - 1`` characters after :data:`ELLIPSIS`.

    Job ids and queue names differ at their ends (``job_200904211745_0004``, ``root.prod.etl``), so the start is
    what goes.
    """
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    return ELLIPSIS + text[len(text) - (width - 1):]
