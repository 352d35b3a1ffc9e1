"""The automatic trace cache: a trace store per input file, keyed by the file's content, in the user's cache directory.

Replaying a log or trace parses it (the costly part of a replay of a large trace); replaying it again reads the
trace store (:mod:`mrsim.ingest.store`) this module kept from the first time. What an entry holds is decided by
its writer (:mod:`mrsim.analysis.validation.observe` keeps everything one profiling pass yields: templates, observations,
hosts, the job confs' engine keys, the calibration and the background inputs, plus the warnings of the pass); this
module only names, finds, publishes and evicts entries.

* **Where**: ``$MRSIM_CACHE_DIR``, else ``$XDG_CACHE_HOME/mrsim``, else ``~/.cache/mrsim``. ``--no-cache`` (a global
  flag) or ``MRSIM_NO_CACHE=1`` turns it off.
* **Key**: sha256 of the input's bytes *as stored* (a ``.gz`` is hashed compressed: 5 ms of CPU for the 5.6 MB
  1148-job trace, against seconds to parse it), of every file for a directory of logs (names included), plus mrsim's
  version, the trace-store format version, :data:`INGEST_VERSION` and the options that change what is read (the
  detected or forced format, the size limits). A changed byte, another mrsim or other options give another entry.
* **Size**: at most ``$MRSIM_CACHE_MAX_BYTES`` (default :data:`DEFAULT_MAX_BYTES`, 2 GB); after each new entry the
  least recently used entries (by the access stamp a hit refreshes) are removed until the cache fits, and the
  eviction is announced.
* **Atomic**: an entry is built in a private temporary directory and renamed into place in one ``rename``: a
  crashed write leaves only a temporary directory (removed by a later write after an hour), never a readable half
  entry; of two concurrent writers of one key the first rename wins and the second discards its copy. A reader
  that finds an entry it cannot load (a flipped bit fails the store's checksums) removes it, warns, and rebuilds.

Cost of a hit: one hash of the input plus :func:`mrsim.ingest.store.load_store_contents`: the entry's store read
once, every data file read once and checked against its SHA-256 (whatever ``--no-verify`` says: a damaged entry is
found and rebuilt, never replayed), the job table from its JSON copy (``jobs.json``: no pyarrow import), the
templates assembled vectorised; the observations and the background inputs are built only if something reads them
(a replay without ``--background trace`` does not).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import orjson

from mrsim.errors import UsageError

#: Bump when the profiling pass changes what it derives from the same bytes (templates, observations, warnings).
INGEST_VERSION = 10  # 3: memory-based scheduling: conf keys kept, inferred slots weighted by slots per attempt; 4: cold/warm launch lags; 5: the scheduler key counted in the trace conf; 6: the reduce-slot background inputs; 7: the stalled tasks in the calibration (part carry); 8: the first-assignment bursts in the calibration (heartbeat_check); 9: entries keep the job table as JSON too (a hit imports no pyarrow); 10: the Hadoop line of the job confs in the calibration (hadoop_line)
DEFAULT_MAX_BYTES = 2 << 30
ENTRY_META = "entry.json"
_TMP_PREFIX = ".tmp-"
_STALE_TMP_S = 3600.0


def cache_root() -> Path:
    """The cache directory (see the module docstring); not created here."""
    explicit = os.environ.get("MRSIM_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "mrsim"


def cache_enabled() -> bool:
    """False under ``--no-cache`` or ``MRSIM_NO_CACHE`` set to anything but ``0``/empty."""
    from mrsim.io.policy import cache_allowed

    return cache_allowed() and os.environ.get("MRSIM_NO_CACHE", "0") in ("", "0")


def max_bytes() -> int:
    raw = os.environ.get("MRSIM_CACHE_MAX_BYTES")
    if not raw:
        return DEFAULT_MAX_BYTES
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise UsageError(f"MRSIM_CACHE_MAX_BYTES={raw!r}: expected a number of bytes (0 or more)")
    return value


# ------------------------------------------------------------------------------------------------- keys

_digests: dict[tuple[str, tuple[Any, ...]], str] = {}


def _identity(path: Path) -> tuple[Any, ...]:
    st = os.stat(path)
    if stat.S_ISDIR(st.st_mode):
        return ("dir",) + tuple(sorted((c.name, c.stat().st_size, c.stat().st_mtime_ns, c.stat().st_ino)
                                       for c in path.iterdir() if c.is_file()))
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def content_digest(path: str | os.PathLike[str]) -> str:
    """sha256 of a file's bytes (of a directory's regular files: name, size and bytes, by name). Memoised per
    process on (device, inode, size, mtime), so one command hashes each input once."""
    p = Path(path)
    ident = _identity(p)
    memo_key = (os.path.realpath(p), ident)
    found = _digests.get(memo_key)
    if found is not None:
        return found
    h = hashlib.sha256()
    if p.is_dir():
        for child in sorted((c for c in p.iterdir() if c.is_file()), key=lambda c: c.name):
            h.update(orjson.dumps([child.name, child.stat().st_size]))
            with open(child, "rb") as fh:
                h.update(hashlib.file_digest(fh, "sha256").digest())
    else:
        with open(p, "rb") as fh:
            h.update(hashlib.file_digest(fh, "sha256").digest())
    digest = h.hexdigest()
    _digests[memo_key] = digest
    return digest


def entry_key(digest: str, variant: Mapping[str, Any]) -> str:
    """The entry name for content ``digest`` read with ``variant`` (options that change what is read)."""
    from mrsim import __version__
    from mrsim.ingest.store import FORMAT_VERSION
    from mrsim.io.limits import LIMITS, limit

    doc = {"content": digest, "mrsim": __version__, "store_format": FORMAT_VERSION, "ingest": INGEST_VERSION,
           "limits": {name: limit(name) for name in LIMITS}, "variant": dict(variant)}
    return hashlib.sha256(orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)).hexdigest()[:40]


# ------------------------------------------------------------------------------------------------ entries


@dataclass
class CacheUse:
    """What the cache did for one input: ``status`` is ``hit``, ``miss`` (read, then saved), ``off`` or
    ``unavailable`` (the cache directory could not be written); ``notes`` are the lines to announce."""

    status: str
    key: str | None = None
    entry: str | None = None
    notes: list[str] = field(default_factory=list)
    evicted: int = 0

    def as_spec(self) -> dict[str, Any]:
        """The ``--json`` ``spec.trace_cache`` object."""
        out: dict[str, Any] = {"status": self.status}
        if self.key:
            out["key"] = self.key
        if self.entry:
            out["entry"] = self.entry
        if self.evicted:
            out["evicted_entries"] = self.evicted
        return out


def entry_dir(key: str, root: Path | None = None) -> Path:
    return (root or cache_root()) / "entries" / key


def find(key: str) -> Path | None:
    """The complete entry for ``key``, its access stamp refreshed (LRU), or None."""
    entry = entry_dir(key)
    meta = entry / ENTRY_META
    if not meta.is_file():
        return None
    with contextlib.suppress(OSError):
        os.utime(meta)
    return entry


def read_meta(entry: Path) -> dict[str, Any]:
    doc = orjson.loads((entry / ENTRY_META).read_bytes())
    if not isinstance(doc, dict):
        raise ValueError(f"{ENTRY_META} is not an object")
    return doc


def discard(entry: Path) -> None:
    """Remove an entry (renamed aside first, so no reader sees it half-deleted)."""
    aside = entry.parent.parent / f"{_TMP_PREFIX}gone-{entry.name}-{secrets.token_hex(4)}"
    try:
        os.rename(entry, aside)
    except OSError:
        return
    shutil.rmtree(aside, ignore_errors=True)


def publish(key: str, build: Callable[[Path], Mapping[str, Any]]) -> tuple[Path | None, list[str], int]:
    """Build an entry with ``build(tmp_dir) -> meta`` and move it into place atomically.

    Returns ``(entry or None, notes, evicted)``. A cache that cannot be written (read-only, full disk) is not an
    error: the run goes on without it and a note says so.
    """
    root = cache_root()
    tmp = root / f"{_TMP_PREFIX}{key}-{os.getpid()}-{secrets.token_hex(4)}"
    target = entry_dir(key, root)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.mkdir()
        meta = dict(build(tmp))
        meta["key"] = key
        meta["created"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        (tmp / ENTRY_META).write_bytes(orjson.dumps(meta))
        try:
            os.rename(tmp, target)
        except OSError:  # another process published the same key first: keep theirs
            shutil.rmtree(tmp, ignore_errors=True)
            if not (target / ENTRY_META).is_file():
                raise
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        return None, [f"mrsim: warning: trace cache: could not write {root} ({exc.strerror or exc}); "
                      "not cached (--no-cache turns the cache off)"], 0
    notes, evicted = evict(root, keep=target)
    return target, notes, evicted


def _size(path: Path) -> int:
    total = 0
    for base, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(base, name)).st_size
    return total


def evict(root: Path | None = None, keep: Path | None = None, limit: int | None = None) -> tuple[list[str], int]:
    """Remove least recently used entries until the cache is at most ``limit`` bytes; one note when any go.

    Temporary directories of writers that crashed more than an hour ago go too. Cost: a walk of the cache."""
    root = root or cache_root()
    limit = max_bytes() if limit is None else limit
    entries_dir = root / "entries"
    if not entries_dir.is_dir():
        return [], 0
    now = time.time()
    for child in root.iterdir():
        if child.name.startswith(_TMP_PREFIX):
            with contextlib.suppress(OSError):
                if now - child.stat().st_mtime > _STALE_TMP_S:
                    shutil.rmtree(child, ignore_errors=True)
    rows = []
    for entry in entries_dir.iterdir():
        try:
            stamp = (entry / ENTRY_META).stat().st_mtime
        except OSError:
            stamp = 0.0
        rows.append((stamp, entry, _size(entry)))
    total = sum(r[2] for r in rows)
    removed, freed = 0, 0
    for _stamp, entry, size in sorted(rows, key=lambda r: r[0]):
        if total <= limit:
            break
        if entry == keep:  # the entry just written goes last
            continue
        discard(entry)
        total, freed, removed = total - size, freed + size, removed + 1
    if total > limit and keep is not None and keep.exists():
        size = _size(keep)
        discard(keep)
        total, freed, removed = total - size, freed + size, removed + 1
    if not removed:
        return [], 0
    return [f"trace cache: evicted {removed} least recently used entr{'y' if removed == 1 else 'ies'} "
            f"({freed / 1e6:,.1f} MB) to stay under {limit / 1e6:,.0f} MB (MRSIM_CACHE_MAX_BYTES)"], removed
