"""The tidy results table: one row per cell, every parameter and every replay-summary metric a column.

Column order: identity (``cell_id model workload cluster scheduler``), the model's axes (every one, gridded or
at its default), ``replication seed``, cluster size columns (slots model), the summary metrics in first-seen
order, then ``cell_wall_s`` and ``cell_cpu_s`` (the worker's wall and CPU seconds for the cell). Rows follow
the sweep order (:func:`mrsim.analysis.sweeps.cells.plan_cells`), so two runs of one spec give the same table whatever
the executor or the order cells finished in; only the timing columns
(:data:`~mrsim.analysis.sweeps.runner.TIMING_METRICS`) differ.

Written atomically: Parquet (the resolved spec in the schema metadata under ``mrsim.sweep``), optionally CSV,
and the spec as ``<name>.spec.json``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import orjson
import pandas as pd

from mrsim.analysis.sweeps.axes import model_params
from mrsim.analysis.sweeps.cells import Cell
from mrsim.analysis.sweeps.runner import TIMING_METRICS
from mrsim.errors import InputError
from mrsim.io import atomic_path

#: Parquet schema-metadata key holding the sweep's specification (JSON).
SPEC_METADATA_KEY = b"mrsim.sweep"


def results_table(cells: Sequence[Cell], records: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Join each cell's parameter columns with its journal record (every cell must have one). Cost: O(cells)."""
    rows = []
    metric_names: dict[str, None] = {}
    for cell in cells:
        row = cell.columns()
        rec = records[cell.cell_id]
        for name, value in (rec.get("metrics") or {}).items():
            column = name if name not in row else f"metric_{name}"  # never shadow a parameter column
            metric_names.setdefault(column, None)
            row[column] = value
        row["cell_wall_s"] = rec.get("cell_wall_s")
        row["cell_cpu_s"] = rec.get("cell_cpu_s")
        rows.append(row)
    first = list(cells[0].columns()) if cells else []
    columns = first + [m for m in metric_names if m not in first] + ["cell_wall_s", "cell_cpu_s"]
    frame = pd.DataFrame(rows, columns=columns)
    if cells:
        for param in model_params(cells[0].model):  # axis columns stay numeric; "not set" is NaN
            frame[param.value] = pd.to_numeric(frame[param.value].astype("float64"))
    return frame


def deterministic_view(table: pd.DataFrame) -> pd.DataFrame:
    """The table without wall-clock columns, sorted by cell id: equal for equal specs on any executor."""
    keep = [c for c in table.columns if c not in TIMING_METRICS]
    return table[keep].sort_values("cell_id", kind="stable").reset_index(drop=True)


def spec_path(output: Path) -> Path:
    return output.with_name(output.stem + ".spec.json")


def csv_path(output: Path) -> Path:
    return output.with_suffix(".csv")


def write_results(table: pd.DataFrame, output: Path, spec_record: Mapping[str, Any], csv: bool = False) -> list[Path]:
    """Write the table as Parquet at ``output`` (+ CSV), and the spec beside it; each file atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    spec_json = orjson.dumps(spec_record, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2)
    arrow = pa.Table.from_pandas(table, preserve_index=False)
    arrow = arrow.replace_schema_metadata({**(arrow.schema.metadata or {}), SPEC_METADATA_KEY: spec_json})
    written = []
    with atomic_path(output, "the sweep results") as tmp:
        pq.write_table(arrow, tmp)
    written.append(output)
    if csv:
        with atomic_path(csv_path(output), "the sweep results (CSV)") as tmp:
            table.to_csv(tmp, index=False)
        written.append(csv_path(output))
    with atomic_path(spec_path(output), "the sweep spec record") as tmp:
        tmp.write_bytes(spec_json + b"\n")
    written.append(spec_path(output))
    return written


def read_results(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a results table (Parquet, or CSV by the ``.csv`` extension)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such file")
    try:
        if p.suffix.lower() == ".csv":
            return pd.read_csv(p)
        return pd.read_parquet(p)
    except (OSError, ValueError) as exc:
        raise InputError(f"{p}: cannot read a results table ({' '.join(str(exc).split())})") from None
