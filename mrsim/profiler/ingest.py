"""One pass over one input for every command that reads it, kept in the trace cache for the next run.

``replay`` and ``compare`` used to read a trace twice (the workload and its hosts, then again for the calibration
and the background), and a second run read it all again. :func:`ingest` reads a log or trace file (or a directory
of logs) **once** and keeps everything the commands derive from it:

* the workload view of :func:`mrsim.profiler.workloads.load_workload` and :func:`mrsim.profiler.assumptions.load_with_hosts` (the same
  templates, warnings in their order, the hosts the cluster is inferred from, or ``mrsim synth``'s placeholder);
* the :class:`~mrsim.profiler.observe.Profiler` view that ``validate``, the calibration and the background read
  (observations, slot usage, the job confs' engine keys, the calibration measured with the trace's own
  out-of-band setting, the background's waits and usage, the profiler's warnings in its order).

Both views are built from the same per-job steps as the two readers they replace (the builder, the duplicate-id
rule, the limits, :func:`~mrsim.profiler.observe.observe_job`, the collectors), in the same order, so they are
equal to what those readers give; tests compare them on every real trace.

The result is memoised for the process (keyed by the path as given and the file's identity) and saved in the trace
cache (:mod:`mrsim.profiler.cache`) as a trace store plus ``entry.json`` (warnings, hosts, the input report); a hit
rebuilds the same two views from it. Trace stores, job specs and SWIM files are not cached (a store is already
one; the other two are cheap to read).
"""

from __future__ import annotations

import dataclasses
import gc
import os
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from mrsim.profiler.column_background import ColumnBackground as _ColumnBackground
from mrsim.profiler.deferred import LaterCollectors
from mrsim.profiler.observe import InputReport, JobObservation, Profiler
from mrsim.calibration.background import BackgroundCollector, usage_arrays
from mrsim.calibration.extract import CalibrationCollector
from mrsim.calibration.model import Calibration
from mrsim.errors import InputError
from mrsim.profiler.cache import CacheUse
from mrsim.profiler.detect import Format, detect_format, iter_logged_jobs
from mrsim.model.templates import JobTemplate, Workload

if TYPE_CHECKING:
    from mrsim.profiler.plain import PlainJob

#: The host every attempt of a ``mrsim synth`` trace names (kept equal to ``mrsim.profiler.assumptions.SYNTHETIC_HOST``).
SYNTHETIC_HOST = "synthetic-host"
_STORE = "store"


@dataclass
class SingleInput:
    """Everything one pass over one input yields (see the module docstring)."""

    path: str
    format: str
    templates: list[JobTemplate]
    workload_warnings: list[str]
    workload_hosts: list[dict[str, Any]] | None
    profiler_skipped: frozenset[int]  # template indexes the profiler drops (an id repeated after renaming)
    observations: dict[str, JobObservation]
    profiled_hosts: list[dict[str, Any]] | None
    conf_counts: dict[str, dict[str, int]]
    calibration: Calibration | None
    background_waits: list[tuple[str, float, float]]
    background_times: "np.ndarray"  # BackgroundCollector.usage as two columns: epoch s (float64), +1/-1 (int8)
    background_deltas: "np.ndarray"
    report: InputReport
    profiler_warnings: list[str]
    seen_without_work: frozenset[str]
    cache: CacheUse = field(default_factory=lambda: CacheUse("off"))
    # The reduce side of the background: each job's wait for a reduce slot cut at the trace's reduce assignments
    # (BackgroundCollector.reduce_gaps), and the reduce-slot usage as two columns.
    background_reduce_waits: list[tuple[str, float, float]] = field(default_factory=list)
    background_reduce_times: "np.ndarray" = field(default_factory=lambda: np.empty(0, dtype=np.float64))
    background_reduce_deltas: "np.ndarray" = field(default_factory=lambda: np.empty(0, dtype=np.int8))

    def workload(self) -> Workload:
        """Exactly :func:`mrsim.profiler.builder.workload_from_logged_jobs` over the input, reader warnings first."""
        if not self.templates:
            raise InputError(f"{self.path}: no replayable job (every job failed or was killed before doing any work)")
        return Workload.of(self.templates, source=self.path, warnings=self.workload_warnings)

    def background(self) -> BackgroundCollector:
        """The background collector of the pass (its usage is kept as columns: 9 bytes a point, not 72; the
        collector's list of points is built only when something reads it, e.g. ``--background trace``)."""
        return _ColumnBackground(self.background_waits, self.background_times, self.background_deltas,
                                 self.background_reduce_waits, self.background_reduce_times,
                                 self.background_reduce_deltas)

    def profiler(self, fmt: Format | None = None) -> Profiler:
        """A :class:`Profiler` in the state ``Profiler(fmt).add(path)`` leaves."""
        p = Profiler(fmt=fmt)
        kept = [t for i, t in enumerate(self.templates) if i not in self.profiler_skipped]
        p.templates = kept
        p.observations = dict(self.observations)
        p._seen = {t.job_id for t in kept}
        p._seen_without_work = set(self.seen_without_work)
        p.stored_hosts = list(self.profiled_hosts or ())
        p.trace_conf.add_counts(self.conf_counts)
        p.stored_calibration = self.calibration
        if self.background_times.size or self.background_waits or self.background_reduce_waits:
            p.stored_backgrounds = [self.background()]
        p.inputs = [dataclasses.replace(self.report)]
        p.warnings = list(self.profiler_warnings)
        p.cache_use = self.cache
        return p


def cacheable(path: str | os.PathLike[str], fmt: str | None) -> bool:
    """Whether :func:`ingest` handles ``path``: a log or trace with ``LoggedJob`` records (not a store, job spec
    or SWIM file)."""
    from mrsim.profiler.jobspec import is_jobspec
    from mrsim.profiler.store import is_store

    p = Path(path)
    kind = (fmt or "").strip().lower()
    if kind in ("store", "jobspec", "swim") or not p.exists():
        return False
    if kind:
        return kind.upper() in Format.__members__
    if is_store(p) or is_jobspec(p):
        return False
    try:
        return detect_format(p) is not Format.SWIM
    except InputError:
        return False


#: The last few inputs read by this process (a replay reads its trace, then maybe a --calibration-from input).
_memo: dict[tuple[str, str, str], SingleInput] = {}
_MEMO_SIZE = 2
#: What the cache did for each path this process read (announced after the run, whatever the memo dropped).
_uses: dict[str, CacheUse] = {}


def ingest(path: str | os.PathLike[str], fmt: str | None = None) -> SingleInput:
    """The :class:`SingleInput` of ``path`` (call :func:`cacheable` first): from this process's memo, else the trace
    cache, else one pass over the input (then saved in the cache)."""
    from mrsim.profiler import cache
    from mrsim.io.safe_open import check_input_file

    p = Path(path)
    check_input_file(p, allow_dir=True)
    format_ = _format(p, fmt)
    use_cache = cache.cache_enabled()
    digest = cache.content_digest(p)
    memo_key = (str(p), format_.value, digest)
    found = _memo.get(memo_key)
    if found is not None:
        _uses[str(p)] = found.cache
        return found
    refused = cache.root_problem() if use_cache else None
    if not use_cache:
        result = _read(p, format_)
        result.cache = CacheUse("off", notes=["trace cache: off (--no-cache or MRSIM_NO_CACHE)"])
    elif refused is not None:
        result = _read(p, format_)
        result.cache = CacheUse("unavailable", notes=[refused])
    else:
        key = cache.entry_key(digest, {"format": format_.value})
        result = _from_cache(p, format_, key, cache.input_identity(digest, _input_bytes(p)))
    while len(_memo) >= _MEMO_SIZE:  # a sweep or a notebook does not pile up traces
        del _memo[next(iter(_memo))]
    _memo[memo_key] = result
    _uses[str(p)] = result.cache
    while len(_uses) > 64:
        del _uses[next(iter(_uses))]
    return result


def forget() -> None:
    """Empty this process's memo (tests; a long-lived process that wants the memory back)."""
    _memo.clear()
    _uses.clear()


def cache_use_of(path: str | os.PathLike[str]) -> CacheUse | None:
    """What the cache did for ``path`` in this process (None when :func:`ingest` did not read it)."""
    return _uses.get(str(Path(path)))


def profile_input(path: str | os.PathLike[str], fmt: Format | str | None = None) -> Profiler:
    """``Profiler(fmt).add(path)``, through :func:`ingest` (memo and cache) when the input is cacheable."""
    if isinstance(fmt, str):
        fmt = _format(Path(path), fmt)
    text = fmt.value if fmt is not None else None
    if cacheable(path, text):
        return ingest(path, text).profiler(fmt)
    profiler = Profiler(fmt=fmt)
    profiler.add(path)
    return profiler


def _format(p: Path, fmt: str | None) -> Format:
    if fmt:
        try:
            return Format[fmt.strip().upper()]
        except KeyError:
            names = ", ".join(f.name.lower() for f in Format)
            raise InputError(f"unknown --format {fmt!r} (expected one of {names})") from None
    return detect_format(p)


def _from_cache(p: Path, format_: Format, key: str, identity: dict[str, Any]) -> SingleInput:
    """A hit's :class:`SingleInput`, else one pass over the input whose entry is then saved: by a forked child
    while this process replays, where :func:`mrsim.profiler.cache.save_child_wanted` allows (the miss's
    ``entry``, ``notes`` and ``evicted`` wait for it when first read, see :class:`~mrsim.profiler.cache.CacheUse`),
    else here. The notes and ``spec.trace_cache`` are the same either way."""
    from mrsim.profiler import cache

    warning: list[str] = []
    cache.wait_for_save(key)  # this process's own child may still be saving this very entry
    cache.clean_temporaries()
    entry = cache.find(key)
    if entry is not None:
        try:
            # The input's identity first: an entry of another input is refused before its store is read.
            result = _load_entry(entry, p, cache.verify_entry(entry, key, identity))
        except Exception as exc:  # noqa: BLE001 - any damage means: rebuild, never a wrong result
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            warning.append(f"mrsim: warning: trace cache: entry {entry} is unreadable ({reason}); ignored, "
                           "rebuilt from the input")
            warning.extend(cache.discard(entry))
        else:
            cache.touch(entry)
            result.cache = CacheUse("hit", key, str(entry), [f"trace cache: hit {key[:12]} ({entry}); "
                                                             "--no-cache parses the input instead"])
            return result
    result = _read(p, format_)
    if len(set(t.job_id for t in result.templates)) != len(result.templates):
        result.cache = CacheUse("miss", key, None, [*warning, "trace cache: miss; not saved (repeated job ids "
                                                     "after renaming)"])
        return result

    def build(tmp: Path) -> dict[str, Any]:
        return {**_save_entry(result, tmp), "input": identity}

    saving = cache.publish_in_child(key, build) if cache.save_child_wanted(_input_bytes(p)) else None
    if saving is not None:
        result.cache = CacheUse("miss", key, pending=lambda: _miss_use(key, warning, *saving.result()))
    else:
        result.cache = _miss_use(key, warning, *cache.publish(key, build))
    return result


def _miss_use(key: str, warning: list[str], saved: Path | None, notes: list[str], evicted: int) -> CacheUse:
    """A miss's :class:`CacheUse` from what :func:`mrsim.profiler.cache.publish` returned."""
    where = f"saved as {saved}" if saved is not None and saved.exists() else "not saved"
    return CacheUse("miss", key, str(saved) if saved is not None else None,
                    [*warning, f"trace cache: miss {key[:12]}; {where}", *notes], evicted)


def _input_bytes(p: Path) -> int:
    """The input's size on disk (a directory of logs: its regular files')."""
    try:
        if p.is_dir():
            return sum(c.stat().st_size for c in p.iterdir() if c.is_file())
        return p.stat().st_size
    except OSError:
        return 0


# ------------------------------------------------------------------------------------------------ the pass


def _read(p: Path, format_: Format) -> SingleInput:
    """:func:`_read_pass` with Python's cyclic garbage collector paused.

    The pass creates no reference cycles: the decoder's dicts and lists are trees, freed by reference counting
    when their job is done. Yet each job allocates thousands of containers, and every few hundred allocations
    the collector runs, now and then over everything alive (the collectors' hundreds of thousands of samples,
    the job being read): about a quarter of the parse's CPU on the 1148-job trace (docs/performance.md).
    Collection resumes, as it was, when the pass returns or raises, with what the pass kept (the templates, the
    calibration, the queued collectors) in the oldest generation: a first collection over it all, 8-10 ms right
    before the replay on that trace, would only have promoted it there (:func:`~mrsim.io.gc_policy
    .enable_after_pause`)."""
    from mrsim.io.gc_policy import enable_after_pause

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _read_pass(p, format_)
    finally:
        if was_enabled:
            enable_after_pause()


def _read_pass(p: Path, format_: Format) -> SingleInput:
    """One pass: the steps of ``load_with_hosts`` and of ``Profiler.logged_jobs``, per job, in their order."""
    from mrsim.profiler.observe import observe_job, observe_plain
    from mrsim.profiler.trace_conf import TraceConf
    from mrsim.profiler.plain import plain_job
    from mrsim.profiler.builder import template_from_logged_job
    from mrsim.profiler.early_read import claim
    from mrsim.profiler.logged_check import check_logged_job
    from mrsim.profiler.store import merge_hosts
    from mrsim.profiler.topology_infer import attempt_host, iter_attempt_windows
    from mrsim.io.limits import check_limit, limit
    from mrsim.profiler.typed import TypedJob, full_job

    source = str(p)
    reader_warnings: list[str] = []
    builder_warnings: list[str] = []  # workload_from_logged_jobs' own list
    profiler_warnings: list[str] = []  # the profiler's single list: reader and builder warnings interleaved
    copied = 0
    trace_conf, calibration = TraceConf(), CalibrationCollector()
    # The observations, slot usage and background: queued while every job is plain and safe to queue, run when
    # read (mrsim.profiler.deferred); once a job cannot be queued, run here as each job is read.
    later = LaterCollectors()
    usage, background, observations = later.usage, later.background, later.observations
    templates: list[JobTemplate] = []
    skipped: set[int] = set()
    taken: set[str] = set()
    occurrences: dict[str, int] = {}
    without_work: set[str] = set()
    only_workload: list[dict[str, Any]] = []  # jobs load_with_hosts counts in the hosts but the profiler does not
    synthetic: list[bool] = []
    report = InputReport(source, format_.value)
    total_tasks = 0
    max_jobs = max_tasks = -1  # the limits, read at the first template (each is an environment look-up)
    # The reader forked as the command started, when it reads this file (mrsim.profiler.early_read).
    started = claim(p) if format_ is Format.RUMEN else None
    for logged in iter_logged_jobs(p, format_, warnings=reader_warnings, typed=True, started=started):
        profiler_warnings.extend(reader_warnings[copied:])
        copied = len(reader_warnings)
        report.jobs_read += 1
        # Columns when the job is plain: from the typed decoder (mrsim.profiler.typed), else one walk over its dicts
        # (mrsim.profiler.plain); else the attempt windows, once per job, for every collector below, and each
        # collector's general path.
        plain = logged.columns if type(logged) is TypedJob else plain_job(logged)
        windows = None
        try:
            if plain is None:
                windows = list(iter_attempt_windows(logged))
            if not synthetic:
                if plain is None:
                    names = {where[1] for _, attempt, _, _ in windows  # type: ignore[union-attr]
                             if (where := attempt_host(attempt)) is not None}
                elif not plain.any_attempt_location:  # each host from its name: each distinct name once
                    names = {where[1] for name in dict.fromkeys(plain.host_names)
                             if (where := attempt_host({"hostName": name})) is not None}
                else:
                    names = {where[1] for attempt in plain.attempts if (where := attempt_host(attempt)) is not None}
                if names:
                    synthetic.append(names == {SYNTHETIC_HOST})
        except (TypeError, AttributeError, ValueError, OverflowError, KeyError):
            check_logged_job(logged, source)
            raise
        job_warnings: list[str] = []
        template = template_from_logged_job(logged, source=source, warnings=job_warnings, plain=plain)
        builder_warnings.extend(job_warnings)
        profiler_warnings.extend(job_warnings)
        if template is None:
            report.jobs_without_work += 1
            raw_id = str(logged.get("jobID"))
            if raw_id in without_work:
                only_workload.append(full_job(logged))
                continue
            without_work.add(raw_id)
            if later.queue(logged, plain, None, raw_id):
                _add_lags(calibration, None, logged, raw_id, plain)
                continue
            _add_usage(usage, logged, source, windows, plain)
            _add_lags(calibration, background, logged, raw_id, plain)
            continue
        count = occurrences.get(template.job_id, 0) + 1
        occurrences[template.job_id] = count
        if count > 1:  # the builder's rule for folded traces (workload_from_logged_jobs)
            new_id = f"{template.job_id}#{count}"
            line = f"job {template.job_id}: duplicate job id; occurrence {count} replayed as {new_id}"
            builder_warnings.append(line)
            profiler_warnings.append(line)
            template = template.with_changes(job_id=new_id)
        templates.append(template)
        if max_jobs < 0:
            max_jobs, max_tasks = limit("jobs"), limit("tasks")
        total_tasks += len(template.map_durations) + len(template.reduce_durations)
        if len(templates) > max_jobs or total_tasks > max_tasks:  # the limits' messages (check_limit raises)
            check_limit("jobs", len(templates), source or "workload")
            check_limit("tasks", total_tasks, source or "workload")
        if template.job_id in taken:  # a renamed id that the file also uses: the profiler keeps the first
            skipped.add(len(templates) - 1)
            report.duplicates_skipped += 1
            only_workload.append(full_job(logged))  # read by the slot usage's general path: with task dicts
            continue
        taken.add(template.job_id)
        if later.queue(logged, plain, template.job_id, template.job_id):
            trace_conf.add_job(logged)
            _add_lags(calibration, None, logged, template.job_id, plain)
        else:
            observations[template.job_id] = observe_job(logged, windows) if plain is None else \
                observe_plain(logged, plain)
            _add_usage(usage, logged, source, windows, plain)
            trace_conf.add_job(logged)
            _add_lags(calibration, background, logged, template.job_id, plain)
        report.jobs_added += 1
    profiler_warnings.extend(reader_warnings[copied:])
    report.warnings = len(profiler_warnings)

    def inferred_hosts() -> list[dict[str, Any]]:
        later.run("usage")
        return [h.as_dict() for h in usage.hosts()]

    lazy: dict[str, Callable[[], dict[str, Any]]] = {}
    eager: dict[str, Any] = {}
    if synthetic and synthetic[0]:  # mrsim synth's placeholder: the slot usage only gives the profiler's hosts
        workload_hosts: list[dict[str, Any]] | None = [{"rack": "default-rack", "host": SYNTHETIC_HOST}]
        lazy["profiled_hosts"] = lambda: {"profiled_hosts": merge_hosts(None, inferred_hosts() or None)}
    else:
        inferred = inferred_hosts()
        eager["profiled_hosts"] = merge_hosts(None, inferred or None)
        if only_workload:
            for logged in only_workload:
                _add_usage(usage, logged, source)
            workload_hosts = [h.as_dict() for h in usage.hosts()] or None
        else:
            workload_hosts = inferred or None
    measured = calibration.result(source, None) if calibration.attempts else None

    def observed() -> dict[str, Any]:
        later.run("observations")
        return {"observations": observations}

    def background_fields() -> dict[str, Any]:
        later.run("background")
        times, deltas = usage_arrays(background.usage)
        reduce_times, reduce_deltas = usage_arrays(background.reduce_usage)
        return {
            "background_waits": background.waits, "background_times": times, "background_deltas": deltas,
            "background_reduce_waits": background.reduce_gaps(),
            "background_reduce_times": reduce_times, "background_reduce_deltas": reduce_deltas}

    lazy["observations"] = observed
    for name in _BACKGROUND_FIELDS:
        lazy[name] = background_fields
    fields = dict(
        path=source, format=format_.value, templates=templates,
        workload_warnings=[*reader_warnings, *builder_warnings], workload_hosts=workload_hosts,
        profiler_skipped=frozenset(skipped), conf_counts=trace_conf.as_counts(), calibration=measured,
        report=report, profiler_warnings=profiler_warnings, seen_without_work=frozenset(without_work),
        cache=CacheUse("off"), **eager)
    return _lazy_input(fields, lazy)


def _add_lags(calibration: CalibrationCollector, background: BackgroundCollector | None, logged: dict[str, Any],
              job_id: str, plain: "PlainJob | None") -> None:
    """The calibration's and (unless None: queued) the background's calls for one job."""
    if plain is None:
        calibration.add_job(logged)
        if background is not None:
            background.add_job(logged, job_id)
    else:
        calibration.add_plain(logged, plain)
        if background is not None:
            background.add_plain(logged, job_id, plain)


def _add_usage(usage: Any, logged: dict[str, Any], source: str, windows: Any = None,
               plain: "PlainJob | None" = None) -> None:
    from mrsim.profiler.logged_check import check_logged_job

    try:
        if plain is None:
            usage.add_job(logged, windows)
        else:
            usage.add_plain(logged, plain)
    except (TypeError, AttributeError, ValueError, OverflowError, KeyError):
        check_logged_job(logged, source)  # a malformed job: the precise one-line InputError
        raise


#: The background's fields of a :class:`SingleInput` (built together).
_BACKGROUND_FIELDS = ("background_waits", "background_times", "background_deltas", "background_reduce_waits",
                      "background_reduce_times", "background_reduce_deltas")


class _LazyInput(SingleInput):
    """A :class:`SingleInput` of a pass whose observations, background inputs and (on a ``mrsim synth`` trace)
    profiler's hosts are built when first read, from the collectors the pass queued
    (:mod:`mrsim.profiler.deferred`). A replay without ``--background trace`` reads none of them.
    The values are those the eager pass gave (the same code on the same columns, in the same order)."""

    def __getattr__(self, name: str) -> Any:
        lazy = self.__dict__.get("_lazy")
        build = lazy.get(name) if lazy is not None else None
        if build is None:
            raise AttributeError(name)
        made = build()
        for field_name in made:
            lazy.pop(field_name, None)
        self.__dict__.update(made)
        return self.__dict__[name]


def _lazy_input(fields: dict[str, Any], lazy: dict[str, Callable[[], dict[str, Any]]]) -> SingleInput:
    """A :class:`_LazyInput` with ``fields`` set and the others built by ``lazy[name]()`` on first read (each
    builder returns the fields it made)."""
    assert set(fields) | set(lazy) == {f.name for f in dataclasses.fields(SingleInput)} \
        and not set(fields) & set(lazy)
    result = object.__new__(_LazyInput)
    result.__dict__.update(fields, _lazy=dict(lazy))
    return result


# ------------------------------------------------------------------------------------------------ entries


def _save_entry(result: SingleInput, directory: Path) -> dict[str, Any]:
    """Write ``result`` into a new entry directory: a trace store plus what ``entry.json`` keeps."""
    from mrsim.profiler.store import LOCK, StoredBackground, add_to_store

    kept = [t for i, t in enumerate(result.templates) if i not in result.profiler_skipped]
    # The background's columns as the pass keeps them (what BackgroundCollector.stored() would rebuild from a
    # collector made of these very columns: equal arrays, without the round trip through 600,000 tuples).
    background = StoredBackground(tuple(result.background_waits), result.background_times, result.background_deltas,
                                  reduce_waits=tuple(result.background_reduce_waits),
                                  reduce_usage_s=result.background_reduce_times,
                                  reduce_usage_delta=result.background_reduce_deltas)
    add_to_store(directory / _STORE, kept,
                 observations={jid: obs.as_dict() for jid, obs in result.observations.items()},
                 hosts=result.profiled_hosts, sources=[result.report.as_dict()], conf_values=result.conf_counts,
                 calibration_toml=result.calibration.to_toml() if result.calibration is not None else None,
                 background_inputs=[background], job_table_json=True)
    # An entry's store is never added to: without its (empty, unchecksummed) lock file, every file of the entry is
    # covered by a checksum (mrsim.profiler.cache.check_files).
    (directory / _STORE / LOCK).unlink()
    # The store's background inputs are complete (store format 2): the entry needs nothing beside them.
    return {"path": result.path, "format": result.format,
            "workload_warnings": result.workload_warnings,
            "workload_hosts": result.workload_hosts, "report": result.report.as_dict(),
            "profiler_warnings": result.profiler_warnings, "seen_without_work": sorted(result.seen_without_work),
            "has_calibration": result.calibration is not None}


#: The fields of a hit's :class:`SingleInput` built on first read (:class:`_EntryInput`).
_DEFERRED = ("observations", "background_waits", "background_times", "background_deltas", "background_reduce_waits",
             "background_reduce_times", "background_reduce_deltas")


class _EntryInput(SingleInput):
    """A :class:`SingleInput` read from a cache entry whose observations and background inputs are built from the
    entry's (already read and verified) bytes when first read. A replay without ``--background trace`` reads
    neither: on the 1148-job trace that skips 40,000 reduce-slot waits and 1,148 observations, 0.03 to 0.1 s of a
    hit. The values are those of an eager load (the same code builds them)."""

    def __getattr__(self, name: str) -> Any:
        rest = self.__dict__.get("_build_deferred")
        if name not in _DEFERRED or rest is None:
            raise AttributeError(name)
        self.__dict__.update(rest())
        del self.__dict__["_build_deferred"]
        return self.__dict__[name]


def _load_entry(entry: Path, p: Path, meta: dict[str, Any]) -> SingleInput:
    """The :class:`SingleInput` an entry holds (``meta``: its metadata, verified by
    :func:`mrsim.profiler.cache.verify_entry`), named after ``p`` (the same bytes may have moved)."""
    from mrsim.profiler import cache
    from mrsim.profiler.store import load_store_contents

    store = entry / _STORE
    # One read of the store: one manifest, every data file read once and checked against its SHA-256 (a damaged
    # entry fails here and is rebuilt by the caller), the job table from its JSON copy (no pyarrow import).
    contents = load_store_contents(store)
    manifest = contents.manifest
    cache.check_files(entry, str(manifest["data"]), manifest.get("checksums") or {})
    templates = list(contents.workload.jobs)
    source, old = str(p), str(meta["path"])
    calibration = None
    if meta.get("has_calibration"):
        calibration = Calibration.from_toml(str(manifest["calibration_toml"]), f"{entry} (calibration)")
        calibration = dataclasses.replace(calibration, source=source)
    background_inputs = manifest.get("background_inputs")
    if manifest.get("format_version") == 1 or not isinstance(background_inputs, list) or len(background_inputs) != 1 \
            or not isinstance(background_inputs[0], dict) or background_inputs[0].get("approximate"):
        raise ValueError(f"the entry's store does not hold one exact background input ({background_inputs!r:.80})")

    def deferred() -> dict[str, Any]:
        (background,) = contents.backgrounds()
        return {
            "observations": {jid: JobObservation.from_dict(values) for jid, values in contents.observations().items()},
            "background_waits": list(background.waits), "background_times": background.usage_s,
            "background_deltas": background.usage_delta, "background_reduce_waits": list(background.reduce_waits),
            "background_reduce_times": background.reduce_usage_s,
            "background_reduce_deltas": background.reduce_usage_delta}

    report = InputReport(**{**meta["report"], "path": source})
    rename = (lambda lines: [line.replace(old, source) for line in lines]) if old != source else list
    eager = dict(
        path=source, format=str(meta["format"]), templates=templates,
        workload_warnings=rename(meta["workload_warnings"]), workload_hosts=meta["workload_hosts"],
        profiler_skipped=frozenset(), profiled_hosts=contents.hosts,
        conf_counts=manifest.get("conf_values", {}), calibration=calibration, report=report,
        profiler_warnings=rename(meta["profiler_warnings"]), seen_without_work=frozenset(meta["seen_without_work"]),
        cache=CacheUse("off"))
    assert set(eager) | set(_DEFERRED) == {f.name for f in dataclasses.fields(SingleInput)}
    result = object.__new__(_EntryInput)
    result.__dict__.update(eager, _build_deferred=deferred)
    return result
