"""What the plot commands read: sweep results tables, and replay outputs in any of their three forms.

* a replay output directory (``mrsim replay --out DIR``): ``DIR/jobs.csv`` and ``DIR/tasks.csv``;
* a ``jobs.csv`` or ``tasks.csv`` file itself;
* a JSON object with a ``jobs`` list (``mrsim replay --json``, the fluid model's JSON, a validate report with
  per-job ``completion_s`` and ``actual_completion_s``);
* a sweep results table (``.parquet``, or a ``.csv`` with a ``cell_id`` column).
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path

import orjson
import pandas as pd

from mrsim.errors import InputError


class InputKind(enum.Enum):
    RESULTS = "results"  # a sweep results table: one row per cell
    JOBS = "jobs"  # per-job replay output


@dataclass(frozen=True)
class PlotInput:
    """A loaded input: its kind, a label for legends, and the table."""

    kind: InputKind
    label: str
    table: pd.DataFrame
    source: str


def _read_csv(p: Path) -> pd.DataFrame:
    try:
        return pd.read_csv(p)
    except (OSError, ValueError) as exc:
        raise InputError(f"{p}: cannot read CSV ({' '.join(str(exc).split())})") from None


def _jobs_from_json(p: Path) -> tuple[str, pd.DataFrame]:
    try:
        doc = orjson.loads(p.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{p}: invalid JSON ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), list):
        raise InputError(f"{p}: expected a JSON object with a 'jobs' list (mrsim replay --json or a validate report)")
    jobs = pd.DataFrame.from_records(doc["jobs"])
    label = str(doc.get("scheduler") or p.stem)
    return label, jobs


def load_input(path: str | os.PathLike[str]) -> PlotInput:
    """Read any supported input (see the module docstring); the kind is decided by content, not by flag."""
    p = Path(path)
    if p.is_dir():
        jobs = p / "jobs.csv"
        if not jobs.is_file():
            raise InputError(f"{p}: no jobs.csv in this directory (write one with mrsim replay --out DIR)")
        return PlotInput(InputKind.JOBS, p.name, _read_csv(jobs), str(p))
    if not p.is_file():
        raise InputError(f"{p}: no such file or directory")
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        from mrsim.analysis.sweeps.table import read_results

        return PlotInput(InputKind.RESULTS, p.stem, read_results(p), str(p))
    if suffix == ".json":
        label, jobs = _jobs_from_json(p)
        return PlotInput(InputKind.JOBS, label, jobs, str(p))
    if suffix == ".csv":
        table = _read_csv(p)
        if "cell_id" in table.columns:
            return PlotInput(InputKind.RESULTS, p.stem, table, str(p))
        if "completion_s" in table.columns:
            return PlotInput(InputKind.JOBS, p.parent.name or p.stem, table, str(p))
        raise InputError(f"{p}: neither a results table (no cell_id column) nor a jobs.csv (no completion_s column)")
    raise InputError(f"{p}: expected a replay directory, a .json, .csv or .parquet file")


def load_results(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A sweep results table, or an InputError saying what the file is instead."""
    loaded = load_input(path)
    if loaded.kind is not InputKind.RESULTS:
        raise InputError(f"{path}: is a replay output, not a sweep results table (mrsim sweep -o RESULTS.parquet)")
    return loaded.table


def load_tasks(path: str | os.PathLike[str]) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """``tasks.csv`` (and ``jobs.csv`` when beside it) from a replay directory or a tasks.csv path."""
    p = Path(path)
    tasks_path = p / "tasks.csv" if p.is_dir() else p
    if not tasks_path.is_file():
        raise InputError(f"{p}: no tasks.csv (the timeline needs mrsim replay --out DIR; --json has no tasks)")
    tasks = _read_csv(tasks_path)
    need = {"job_id", "type", "tracker", "start_s", "finish_s"}
    missing = need - set(tasks.columns)
    if missing:
        raise InputError(f"{tasks_path}: not a tasks.csv (missing column(s) {', '.join(sorted(missing))})")
    jobs_path = tasks_path.with_name("jobs.csv")
    jobs = _read_csv(jobs_path) if jobs_path.is_file() else None
    return tasks, jobs
