"""Load any supported input as a :class:`~mrsim.model.templates.Workload` (one entry point for every command).

Trace stores (directories written by ``mrsim profile -o STORE``) and TOML job spec files are recognised first.

Formats are detected from content (:mod:`mrsim.profiler.detect`): Rumen JSON, Hadoop 0.20/1.x JobHistory logs,
``.jhist``, SLS JSON go through the Rumen ``LoggedJob`` builder; SWIM ``.tsv`` files become templates through
the documented byte-to-duration rates of :mod:`mrsim.profiler.swim`.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from mrsim.errors import InputError, OptionError
from mrsim.model.demands import DEFAULT_DISK_MB_S, apply_demand_table, load_demand_table
from mrsim.profiler.demands import apply_trace_demands
from mrsim.model.templates import Workload

if TYPE_CHECKING:
    from mrsim.profiler.detect import Format

DEFAULT_TRACE_NAME = "default.json.gz"


def default_trace_path() -> Path:
    """The bundled default trace (``rumen_traces/default.json.gz``, made by ``mrsim synth``; see the README)."""
    return Path(str(resources.files("mrsim.rumen_traces").joinpath(DEFAULT_TRACE_NAME)))


def load_workload(path: str | os.PathLike[str], fmt: str | None = None) -> Workload:
    """Read ``path`` (file or directory) into a workload; ``fmt`` forces a format (``rumen``, ``jobhistory``,
    ``jhist``, ``sls``, ``swim``, ``store`` (a trace store made by ``mrsim profile``) or ``jobspec`` (a TOML job
    spec file)).

    The input is refused before it is opened when it is not a regular file or directory (a FIFO would block).
    Suspicious-but-usable content adds warnings (:mod:`mrsim.model.sanity`); under ``--strict`` any warning is an
    :class:`InputError`.
    """
    from mrsim.io.policy import enforce
    from mrsim.io.safe_open import check_input_file
    from mrsim.model.sanity import submission_gap_warnings, with_warnings

    check_input_file(path, allow_dir=True)
    workload = _load(path, fmt)
    workload = with_warnings(workload, submission_gap_warnings(workload))
    enforce(workload.warnings, str(path))
    return workload


def _load(path: str | os.PathLike[str], fmt: str | None) -> Workload:
    from mrsim.profiler.detect import Format, detect_format

    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file or directory")
    kind = (fmt or "").strip().lower()
    from mrsim.profiler.jobspec import is_jobspec, load_jobspec
    from mrsim.profiler.store import is_store, load_store

    if kind == "store" or (not kind and is_store(p)):
        return load_store(p)
    if kind == "jobspec" or (not kind and is_jobspec(p)):
        return load_jobspec(p)
    if fmt:
        try:
            format_ = Format[fmt.strip().upper()]
        except KeyError:
            raise OptionError(f"unknown {{format}} {fmt!r} (expected one of "
                              f"{', '.join(f.name.lower() for f in Format)})") from None
    else:
        format_ = detect_format(p)
    if format_ is Format.SWIM:
        from mrsim.profiler.swim import swim_to_templates

        swim = swim_to_templates(p)
        return Workload.of(swim.jobs, source=str(p), warnings=swim.warnings)
    from mrsim.profiler.ingest import ingest

    return ingest(p, fmt).workload()  # one pass shared with the calibration; the trace cache when it has the file


def _load_uncached(p: Path, format_: "Format") -> Workload:
    """What :func:`_load` did for logs and traces before :mod:`mrsim.profiler.ingest` (for equality tests)."""
    from mrsim.profiler.builder import workload_from_logged_jobs
    from mrsim.profiler.detect import iter_logged_jobs

    warnings: list[str] = []
    workload = workload_from_logged_jobs(iter_logged_jobs(p, format_, warnings=warnings), source=str(p))
    if warnings:
        workload = Workload.of(workload.jobs, source=workload.source, warnings=[*warnings, *workload.warnings])
    return workload


def load_workload_with_demands(path: str | os.PathLike[str], *, counters: bool = False,
                               table: str | os.PathLike[str] | None = None, disk_mb_s: float = DEFAULT_DISK_MB_S,
                               fmt: str | None = None) -> Workload:
    """Load any input (:func:`load_workload`) and attach demands (:mod:`mrsim.model.demands`): first from the trace's
    counters (``counters=True``), then from a demand table (which wins for the jobs it names).

    It lives here, not in :mod:`mrsim.model.demands`, because it composes loading (this module, above the formats) with
    the demand model (below them): the data model must not import the loader (an import cycle)."""
    workload = load_workload(path, fmt)
    if counters:
        workload = apply_trace_demands(workload, path, disk_mb_s=disk_mb_s, fmt=fmt)
    if table is not None:
        workload = apply_demand_table(workload, load_demand_table(table), source=str(table))
    return workload
