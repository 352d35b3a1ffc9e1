"""JSON metadata files that carry their own checksum (a trace store's ``manifest.json``, a cache entry's
``entry.json``).

The last member of the object is ``"self_sha256": "<hex>"``: the SHA-256 of every byte of the file before that
member's name. The file stays plain JSON (any reader can parse it), and any change to it -- a flipped bit, an
edited digit, a member added or removed -- is found before a value is used: bytes before the member change the
digest; the digest itself or the closing bytes after it must match exactly. Cost: one SHA-256 of the file (a few
microseconds for these files of a few KB).
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping

import orjson

FIELD = "self_sha256"
_MARK = b'"' + FIELD.encode() + b'": "'
_HEX = frozenset(b"0123456789abcdef")


class SealError(ValueError):
    """The file's own checksum is missing, malformed or does not match its bytes."""


def seal(doc: Mapping[str, Any], *, indent: bool = False) -> bytes:
    """``doc`` as JSON bytes with its ``self_sha256`` member last (``indent``: two spaces, as
    ``orjson.OPT_INDENT_2``)."""
    rest = {k: v for k, v in doc.items() if k != FIELD}
    close = b"\n}" if indent else b"}"
    if rest:
        body = orjson.dumps(rest, option=orjson.OPT_INDENT_2 if indent else 0)
        head = body[:-len(close)] + (b",\n  " if indent else b",")
    else:
        head = b"{\n  " if indent else b"{"
    digest = hashlib.sha256(head).hexdigest().encode()
    return head + _MARK + digest + b'"' + close + (b"\n" if indent else b"")


def is_sealed(data: bytes) -> bool:
    """Whether ``data`` has a ``self_sha256`` member at all (whether it matches is :func:`unseal`'s question)."""
    return data.rfind(_MARK) >= 0


def unseal(data: bytes) -> dict[str, Any]:
    """The object ``data`` holds, without ``self_sha256``, once its bytes match it; else :class:`SealError`
    (a JSON syntax error is an ``orjson.JSONDecodeError``, raised first)."""
    doc = orjson.loads(data)
    if not isinstance(doc, dict):
        raise SealError("not a JSON object")
    at = data.rfind(_MARK)
    if at < 0 or FIELD not in doc:
        raise SealError(f"no {FIELD} (its own checksum)")
    digest = data[at + len(_MARK):at + len(_MARK) + 64]
    tail = data[at + len(_MARK) + 64:]
    if len(digest) != 64 or not set(digest) <= _HEX or tail not in (b'"}', b'"\n}', b'"}\n', b'"\n}\n'):
        raise SealError(f"{FIELD} is malformed or not the last member")
    if hashlib.sha256(data[:at]).hexdigest().encode() != digest or doc[FIELD] != digest.decode():
        raise SealError("checksum mismatch (the file changed after mrsim wrote it)")
    del doc[FIELD]
    return doc
