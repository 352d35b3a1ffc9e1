"""The automatic trace cache: a trace store per input file, keyed by the file's content, in the user's cache directory.

Replaying a log or trace parses it (the costly part of a replay of a large trace); replaying it again reads the
trace store (:mod:`mrsim.profiler.store`) this module kept from the first time. What an entry holds is decided by
its writer (:mod:`mrsim.profiler.observe` keeps everything one profiling pass yields: templates, observations,
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
* **Atomic**: an entry is built in a private temporary directory named after the writer's pid and renamed into
  place in one ``rename``: a crashed write leaves only a temporary directory (removed by the next run that finds
  its writer gone, or after an hour), never a readable half entry; of two concurrent writers of one key the first
  rename wins and the second discards its copy.
* **Checked before use** (:func:`verify_entry`, :func:`check_files`): ``entry.json`` carries its own checksum
  (:mod:`mrsim.io.sealed_json`) and records the key, mrsim's version, the SHA-256 and size of the input the entry
  was built from, and the SHA-256 of the store's ``manifest.json``, which in turn carries its own checksum and
  those of every data file; the entry must hold those files and no other. A hit checks the input's identity before
  anything else of the entry is read, so an intact entry of another input placed under this key is refused. A
  reader that finds an entry it cannot use removes it, warns in one line, and rebuilds.
* **Confined** (:mod:`mrsim.io.confined`): nothing below the cache directory is followed through a symlink; a
  removal unlinks a symlink itself, never its target, and leaves a file another hard link names. The directory is
  created ``0700``; one owned by another user or writable by others is not used (one warning line, the run goes
  on without the cache).
* **Saved beside the replay**: where forking is safe and the input is large (:func:`save_child_wanted`), a miss's
  entry is published by a forked child while the command replays (:func:`publish_in_child`); what the save did
  (:class:`CacheUse`'s entry, notes, evictions) is read from the child when first asked for, and the process
  waits for the child before it exits. ``MRSIM_CACHE_SAVE_CHILD=0`` saves in the process, as smaller inputs are.

Cost of a hit: one hash of the input plus :func:`mrsim.profiler.store.load_store_contents`: the entry's store read
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
import stat
import time
from pathlib import Path
from typing import Any, Callable, Mapping

import orjson

from mrsim.errors import UsageError

#: Bump when the profiling pass changes what it derives from the same bytes (templates, observations, warnings).
INGEST_VERSION = 11  # 3: memory-based scheduling: conf keys kept, inferred slots weighted by slots per attempt; 4: cold/warm launch lags; 5: the scheduler key counted in the trace conf; 6: the reduce-slot background inputs; 7: the stalled tasks in the calibration (part carry); 8: the first-assignment bursts in the calibration (heartbeat_check); 9: entries keep the job table as JSON too (a hit imports no pyarrow); 10: the Hadoop line of the job confs in the calibration (hadoop_line); 11: the JobTracker's start from the job ids (jobtracker_started)
DEFAULT_MAX_BYTES = 2 << 30
ENTRY_META = "entry.json"
_TMP_PREFIX = ".tmp-"
_STALE_TMP_S = 3600.0
#: What an entry directory holds, and its store (besides the one data directory its manifest names).
ENTRY_STORE = "store"
_ENTRY_NAMES = frozenset({ENTRY_META, ENTRY_STORE})
_STORE_MANIFEST = "manifest.json"


def cache_root() -> Path:
    """The cache directory (see the module docstring); not created here."""
    explicit = os.environ.get("MRSIM_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "mrsim"


def root_problem(root: Path | None = None) -> str | None:
    """Why the cache directory must not be used (a warning line), or None; creates it (``0700``) when missing.

    Refused: not a directory, owned by another user, or writable by others (group or world): anyone who can write
    there could plant an entry. Cost: one ``stat`` (a ``mkdir`` the first time)."""
    import stat as stat_

    root = root or cache_root()
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.stat(root)
    except OSError as exc:
        return (f"mrsim: warning: trace cache: cannot use {root} ({exc.strerror or exc}); not cached (--no-cache "
                "turns the cache off)")
    why = None
    if not stat_.S_ISDIR(st.st_mode):
        why = "not a directory"
    elif hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        why = f"owned by uid {st.st_uid}, not by this user"
    elif st.st_mode & 0o002:
        why = f"writable by others (mode {stat_.S_IMODE(st.st_mode):o})"
    if why is None:
        return None
    return (f"mrsim: warning: trace cache: {root} is {why}; not used (set MRSIM_CACHE_DIR to a directory of your "
            "own, or --no-cache)")


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
    from mrsim.profiler.store_format import FORMAT_VERSION
    from mrsim.io.limits import LIMITS, limit

    doc = {"content": digest, "mrsim": __version__, "store_format": FORMAT_VERSION, "ingest": INGEST_VERSION,
           "limits": {name: limit(name) for name in LIMITS}, "variant": dict(variant)}
    return hashlib.sha256(orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)).hexdigest()[:40]


# ------------------------------------------------------------------------------------------------ entries


class CacheUse:
    """What the cache did for one input: ``status`` is ``hit``, ``miss`` (read, then saved), ``off`` or
    ``unavailable`` (the cache directory could not be written); ``notes`` are the lines to announce.

    A miss whose entry a child process is saving (:func:`publish_in_child`) is *pending*: its ``entry``, ``notes``
    and ``evicted`` are known once the child is done, so reading any of them (or :meth:`as_spec`) first waits for
    it (:meth:`settle`); ``status`` and ``key`` are known at once."""

    def __init__(self, status: str, key: str | None = None, entry: str | None = None, notes: list[str] | None = None,
                 evicted: int = 0, *, pending: "Callable[[], CacheUse] | None" = None) -> None:
        self.status = status
        self.key = key
        self._entry = entry
        self._notes = list(notes) if notes is not None else []
        self._evicted = evicted
        self._pending = pending

    def settle(self) -> "CacheUse":
        """Wait for the child saving this miss's entry (if any), then fill in what it did. Idempotent."""
        pending, self._pending = self._pending, None
        if pending is not None:
            done = pending()
            self._entry, self._notes, self._evicted = done._entry, done._notes, done._evicted
        return self

    @property
    def entry(self) -> str | None:
        return self.settle()._entry

    @property
    def notes(self) -> list[str]:
        return self.settle()._notes

    @property
    def evicted(self) -> int:
        return self.settle()._evicted

    def __repr__(self) -> str:
        if self._pending is not None:
            return f"CacheUse({self.status!r}, {self.key!r}, pending)"
        return f"CacheUse({self.status!r}, {self.key!r}, {self._entry!r}, {self._notes!r}, {self._evicted!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CacheUse):
            return NotImplemented
        return (self.status, self.key, self.entry, self.notes, self.evicted) == \
            (other.status, other.key, other.entry, other.notes, other.evicted)

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it replaced

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
    """The entry for ``key`` when something is there (a directory, or whatever was planted: :func:`verify_entry`
    decides), or None. Nothing is followed or read."""
    entry = entry_dir(key)
    try:
        os.lstat(entry)
    except OSError:
        return None
    return entry


def touch(entry: Path) -> None:
    """Refresh a used entry's access stamp (LRU), the metadata file itself, never through a symlink."""
    with contextlib.suppress(OSError, NotImplementedError):
        os.utime(entry / ENTRY_META, follow_symlinks=False)


def read_meta(entry: Path) -> dict[str, Any]:
    """``entry.json``, its own checksum verified, read without following a symlink (ValueError or OSError
    otherwise)."""
    from mrsim.io import confined
    from mrsim.io.sealed_json import unseal

    confined.check_dir(entry)
    return unseal(confined.read_file(entry / ENTRY_META))


def input_identity(digest: str, size: int) -> dict[str, Any]:
    """What an entry records of its input: the content digest (:func:`content_digest`) and the size in bytes."""
    return {"sha256": digest, "bytes": int(size)}


def verify_entry(entry: Path, key: str, identity: Mapping[str, Any]) -> dict[str, Any]:
    """``entry``'s metadata once the entry may be read for this input: its metadata intact, of this key, this
    mrsim version, built from an input of this ``identity`` (:func:`input_identity`), its store's manifest the
    one the metadata recorded. Raises ValueError (or OSError) naming the first problem; nothing of the store is
    read but its manifest. Cost: two small files read and hashed."""
    from mrsim import __version__
    from mrsim.io import confined

    meta = read_meta(entry)
    if meta.get("key") != key:
        raise ValueError(f"{ENTRY_META} names key {str(meta.get('key'))[:12]!r}, not {key[:12]!r}")
    if meta.get("mrsim") != __version__:
        raise ValueError(f"written by mrsim {meta.get('mrsim')!r}, this is {__version__}")
    recorded = meta.get("input")
    if not isinstance(recorded, dict) or recorded != dict(identity):
        got = recorded if isinstance(recorded, dict) else {}
        raise ValueError(f"built from another input (sha256 {str(got.get('sha256'))[:12]}, {got.get('bytes')} "
                         f"bytes; this input: sha256 {str(identity['sha256'])[:12]}, {identity['bytes']} bytes)")
    store = confined.inside(entry, ENTRY_STORE, _STORE_MANIFEST).parent
    confined.check_dir(store)
    manifest = hashlib.sha256(confined.read_file(store / _STORE_MANIFEST)).hexdigest()
    if manifest != meta.get("store_manifest_sha256"):
        raise ValueError(f"{ENTRY_STORE}/{_STORE_MANIFEST} is not the one {ENTRY_META} recorded (checksum mismatch)")
    return meta


def check_files(entry: Path, data: str, checksums: Mapping[str, Any]) -> None:
    """The entry holds exactly its metadata, its store's manifest and the data files that manifest checksums
    (``data`` its data directory's name): anything else (a stray file, a symlink, a missing file) is a ValueError.
    Cost: three directory listings."""
    for where, expected in ((entry, _ENTRY_NAMES), (entry / ENTRY_STORE, {_STORE_MANIFEST, data}),
                            (entry / ENTRY_STORE / data, set(checksums))):
        found = set(os.listdir(where))
        if found != expected:
            odd = sorted(found ^ set(expected))
            raise ValueError(f"{where.relative_to(entry.parent)} holds {', '.join(odd[:3])!s} "
                             f"{'unexpectedly' if set(odd) & found else 'missing'}")


def discard(entry: Path) -> list[str]:
    """Remove an entry (renamed aside first, so no reader sees it half-deleted; a symlink planted as the entry is
    unlinked itself). Returns a warning line when files had to be left because another hard link names them."""
    from mrsim.io import confined

    aside = entry.parent.parent / f"{_TMP_PREFIX}gone-{entry.name}-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        os.rename(entry, aside)
    except OSError:
        return []
    kept = confined.remove_tree(aside)
    if not kept:
        return []
    return [f"mrsim: warning: trace cache: left {len(kept)} file(s) of a removed entry in {aside} (another hard "
            "link names them: not deleted)"]


def clean_temporaries(root: Path | None = None) -> None:
    """Remove the temporary directories of writers that are gone (the pid in the name is no process) or that
    crashed more than an hour ago. Cost: one listing of the cache directory."""
    from mrsim.io import confined

    root = root or cache_root()
    now = time.time()
    try:
        children = list(os.scandir(root))
    except OSError:
        return
    for child in children:
        if not child.name.startswith(_TMP_PREFIX):
            continue
        pid = _writer_pid(child.name)
        try:
            old = now - child.stat(follow_symlinks=False).st_mtime > _STALE_TMP_S
        except OSError:
            continue
        if old or (pid is not None and pid != os.getpid() and not confined.pid_alive(pid)):
            confined.remove_tree(Path(child.path))


def _writer_pid(name: str) -> int | None:
    """The writer's pid in a temporary name ``.tmp-<key>-<pid>-<hex>`` or ``.tmp-gone-<key>-<pid>-<hex>``."""
    parts = name.split("-")
    if len(parts) >= 4 and parts[-2].isdigit():
        return int(parts[-2])
    return None


def publish(key: str, build: Callable[[Path], Mapping[str, Any]],
            tmp: Path | None = None) -> tuple[Path | None, list[str], int]:
    """Build an entry with ``build(tmp_dir) -> meta`` and move it into place atomically.

    Returns ``(entry or None, notes, evicted)``. A cache that cannot be written (read-only, full disk) is not an
    error: the run goes on without it and a note says so. ``tmp`` names the private directory to build in
    (:func:`temporary_dir`, the default); it is gone when this returns or raises (an interrupt included).
    """
    from mrsim import __version__
    from mrsim.io import confined
    from mrsim.io.output_errors import OutputError, reason_of
    from mrsim.io.sealed_json import seal

    root = cache_root()
    tmp = tmp if tmp is not None else temporary_dir(key, root)
    target = entry_dir(key, root)
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        confined.check_dir(target.parent)
        tmp.mkdir(mode=0o700)
        meta = dict(build(tmp))
        meta["key"] = key
        meta["mrsim"] = __version__
        meta["created"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        if os.path.lexists(tmp / ENTRY_STORE / _STORE_MANIFEST):  # what verify_entry checks before the store is read
            meta["store_manifest_sha256"] = hashlib.sha256(
                confined.read_file(tmp / ENTRY_STORE / _STORE_MANIFEST)).hexdigest()
        with open(os.open(tmp / ENTRY_META, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600), "wb") as fh:
            fh.write(seal(meta))
        try:
            os.rename(tmp, target)
        except OSError:  # another process published the same key first: keep theirs
            confined.remove_tree(tmp)
            if not os.path.lexists(target / ENTRY_META):
                raise
    except (OSError, OutputError) as exc:  # OutputError: the entry's store could not be written
        confined.remove_tree(tmp)
        reason = exc.reason if isinstance(exc, OutputError) else reason_of(exc)
        return None, [f"mrsim: warning: trace cache: could not write {root} ({reason}); "
                      "not cached (--no-cache turns the cache off)"], 0
    except BaseException:  # an interrupt or a bug while building: no temporary directory left behind either
        confined.remove_tree(tmp)
        raise
    notes, evicted = evict(root, keep=target)
    return target, notes, evicted


def temporary_dir(key: str, root: Path | None = None) -> Path:
    """A new private name to build ``key``'s entry in (not created here)."""
    return (root or cache_root()) / f"{_TMP_PREFIX}{key}-{os.getpid()}-{secrets.token_hex(4)}"


# --------------------------------------------------------------------------------- saving in a child process

#: Inputs smaller than this (bytes on disk) have their entry saved in this process: the save costs less than a
#: fork (about 3 ms for a 12-job trace; 0.65 s of CPU for the 1148-job benchmark trace's 5.6 MB).
SAVE_CHILD_MIN_BYTES = 1 << 20


def save_child_wanted(input_bytes: int) -> bool:
    """Whether :func:`publish_in_child` may save an entry: Linux (``fork`` is the platform's own way to start a
    process), no other thread in this process (a fork while one holds a lock can deadlock the child), two CPUs or
    more this process may run on, an input of at least :data:`SAVE_CHILD_MIN_BYTES`, ``MRSIM_CACHE_SAVE_CHILD``
    not ``0``.

    Unlike the reading worker (:func:`mrsim.profiler.rumen_worker.worker_wanted`) the load average does not count:
    the child does the very work this process would do (nothing is pickled or sent but a line of JSON), so with
    no core free it costs about the same CPU as saving here, the fork and the copied pages aside."""
    from mrsim.io.forking import fork_helper_allowed

    return input_bytes >= SAVE_CHILD_MIN_BYTES and fork_helper_allowed("MRSIM_CACHE_SAVE_CHILD")


class _Saving:
    """A child process publishing one entry; :meth:`result` waits for it (once) and gives what :func:`publish`
    would have returned."""

    def __init__(self, key: str, pid: int, read_fd: int, tmp: Path) -> None:
        self.key, self.pid, self.read_fd, self.tmp = key, pid, read_fd, tmp
        self.owner = os.getpid()
        self._result: tuple[Path | None, list[str], int] | None = None

    def result(self) -> tuple[Path | None, list[str], int]:
        if os.getpid() != self.owner:  # a process forked from the owner since: the child and its pipe are not its own
            return None, [], 0
        if self._result is None:
            try:
                self._result = self._wait()
            except BaseException:  # interrupted while waiting: the child is reaped; whatever it built is removed
                _remove(self.tmp)
                self._result = None, ["mrsim: warning: trace cache: interrupted while saving the entry; not cached"], 0
                raise
            finally:
                _saving.pop(self.key, None)
        return self._result

    def _wait(self) -> tuple[Path | None, list[str], int]:
        message = b""
        try:
            with os.fdopen(self.read_fd, "rb") as pipe:
                message = pipe.read()
        except BaseException:  # this process is interrupted: so is the save (the child cleans up and ends)
            _terminate(self.pid)
            raise
        finally:
            # Reaped whatever happens (an interrupt while reading included): no zombie, no child left behind.
            _pid, status = _reap(self.pid)
        try:
            doc = orjson.loads(message)
            entry = doc["entry"]
            return (Path(entry) if entry is not None else None), [str(n) for n in doc["notes"]], int(doc["evicted"])
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            # Killed, or ended without its line: whatever it built is removed (never a readable half entry).
            _remove(self.tmp)
            how = (f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
                   else f"exit status {os.waitstatus_to_exitcode(status)}")
            return None, [f"mrsim: warning: trace cache: the process saving the entry ended without a result "
                          f"({how}); not cached"], 0


def _remove(path: Path) -> None:
    from mrsim.io import confined

    confined.remove_tree(path)


def _terminate(pid: int) -> None:
    import signal

    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGTERM)


def _reap(pid: int) -> tuple[int, int]:
    """``os.waitpid(pid, 0)``; an interrupt meanwhile ends the child (``SIGTERM``: it removes its temporary
    directory) and the wait goes on, so the child is reaped whatever happens."""
    while True:
        try:
            return os.waitpid(pid, 0)
        except ChildProcessError:  # reaped by someone else: nothing left to wait for
            return pid, 0
        except KeyboardInterrupt:
            _terminate(pid)


#: The children saving entries, by key.
_saving: dict[str, _Saving] = {}
_exit_hook = False


class _Stop(BaseException):
    """An interrupt (SIGINT, SIGTERM, or the parent's death) in the saving child: unwinds through :func:`publish`,
    which removes its temporary directory."""


def _stop(signum: int, _frame: Any) -> None:
    raise _Stop(signum)


def publish_in_child(key: str, build: Callable[[Path], Mapping[str, Any]]) -> _Saving | None:
    """:func:`publish` run by a forked child while this process goes on; None when the fork fails (then call
    :func:`publish`). Call only where :func:`save_child_wanted` says so.

    The child writes nothing but one line of JSON (the entry, notes and evictions :func:`publish` returned) to a
    pipe, then ends with ``os._exit``: no exit handler of this process runs twice, no buffer is flushed twice. Its
    standard streams point at ``/dev/null``, so a reader of this process's output never waits for it. The entry
    appears atomically, as with :func:`publish`. An interrupt (Ctrl-C reaches both processes), ``SIGTERM`` or
    the death of this process (``PR_SET_PDEATHSIG``) makes the child remove its temporary directory and end; this
    process waits for the child before it exits (:func:`wait_for_saves`, registered with :mod:`atexit`), so the
    entry is complete when the command returns and no child outlives it. Cost here: the fork (page tables: a few
    ms for the 1148-job benchmark's 270 MB) and the pages either side then writes, copied (about 50,000 more
    minor faults, 0.1 s, on that trace).
    """
    import atexit
    import gc
    import signal

    tmp = temporary_dir(key)
    parent = os.getpid()
    read_fd, write_fd = os.pipe()
    try:
        pid = os.fork()
    except OSError:  # no memory or process left for a child: the caller saves in this process
        os.close(read_fd)
        os.close(write_fd)
        return None
    if pid == 0:
        status = 1
        try:
            os.close(read_fd)
            _saving.clear()  # the parent's other children are not this one's to wait for
            # Nothing the child makes outlives it, and a collection would walk (and so copy) every page of the
            # parent's objects.
            gc.disable()
            for signum in (signal.SIGINT, signal.SIGTERM):
                signal.signal(signum, _stop)
            _die_with_parent(parent)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            entry, notes, evicted = publish(key, build, tmp)
            os.write(write_fd, orjson.dumps({"entry": str(entry) if entry is not None else None, "notes": notes,
                                             "evicted": evicted}))
            status = 0
        except BaseException as exc:  # noqa: BLE001 - a cache never fails the replay: the error becomes a note
            if not isinstance(exc, _Stop):
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                _remove(tmp)
                with contextlib.suppress(OSError):
                    os.write(write_fd, orjson.dumps({
                        "entry": None, "evicted": 0,
                        "notes": [f"mrsim: warning: trace cache: could not save the entry ({reason}); not cached"]}))
        finally:
            os._exit(status)
    os.close(write_fd)
    saving = _Saving(key, pid, read_fd, tmp)
    global _exit_hook
    if not _exit_hook:
        atexit.register(wait_for_saves)
        _exit_hook = True
    _saving[key] = saving
    return saving


def _die_with_parent(parent: int) -> None:
    """Have the kernel send this (child) process SIGTERM when its parent dies (Linux ``prctl``): a parent killed
    by a signal runs no exit handler, so it could not wait for the child."""
    import ctypes
    import signal

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the call above
        raise _Stop(signal.SIGTERM)


def wait_for_save(key: str) -> None:
    """Wait for this process's child saving ``key``'s entry, if any (a read of the same input then finds it)."""
    saving = _saving.get(key)
    if saving is not None:
        saving.result()


def wait_for_saves() -> None:
    """Wait for every child saving an entry (run at exit; a command that ends with ``os._exit`` calls it first)."""
    for saving in list(_saving.values()):
        saving.result()


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
    clean_temporaries(root)
    rows = []
    for entry in entries_dir.iterdir():
        try:
            stamp = os.lstat(entry / ENTRY_META).st_mtime
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
