"""Content identities: canonical JSON, cell ids and seeds derived from it.

A cell's id and seed are pure functions of its content, so a cell's result does not depend on where, when or in
what order it ran. Cost: one SHA-256 over a few hundred bytes per cell.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

#: Hex digits of SHA-256 kept in a cell id (64 bits: collisions need ~4e9 cells).
CELL_ID_HEX = 16


def canonical_json(obj: Any) -> bytes:
    """Sorted-key compact JSON: equal values give equal bytes (floats in shortest round-trip form)."""
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY)


def content_id(obj: Any) -> str:
    """The first :data:`CELL_ID_HEX` hex digits of SHA-256 of ``canonical_json(obj)``."""
    return hashlib.sha256(canonical_json(obj)).hexdigest()[:CELL_ID_HEX]


def derive_seed(obj: Any) -> int:
    """A 32-bit seed from SHA-256 of ``canonical_json(obj)`` (a separate domain from cell ids)."""
    digest = hashlib.sha256(b"mrsim-sweep-seed\0" + canonical_json(obj)).digest()
    return int.from_bytes(digest[:4], "big")
