"""Row selection and checks shared by the results-table plots (box, lines, cdf).

A figure must not silently pool cells that differ in a parameter it does not show: :func:`check_uniform`
rejects a selection where such a parameter still varies and says how to fix it (``--where`` or ``--facet``).
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from mrsim.analysis.sweeps.axes import Param
from mrsim.errors import InputError

#: Columns of a results table that describe a cell rather than measure it.
PARAMETER_COLUMNS: tuple[str, ...] = (
    "model", "workload", "cluster", "scheduler", *(p.value for p in Param if p is not Param.SEED),
    "cluster_nodes", "cluster_map_slots", "cluster_reduce_slots",
)
_NOT_METRICS = {*PARAMETER_COLUMNS, "cell_id", "replication", "seed"}


def metric_columns(table: pd.DataFrame) -> list[str]:
    return [c for c in table.columns if c not in _NOT_METRICS and pd.api.types.is_numeric_dtype(table[c])]


def require_column(table: pd.DataFrame, column: str, what: str) -> None:
    if column not in table.columns:
        columns = ", ".join(map(str, table.columns))
        raise InputError(f"{what} {column!r} is not a column of the table (columns: {columns})")


def metric_values(table: pd.DataFrame, metric: str) -> None:
    """Check ``metric`` is a numeric column with at least one value."""
    if metric not in table.columns or not pd.api.types.is_numeric_dtype(table[metric]):
        metrics = ", ".join(metric_columns(table))
        raise InputError(f"--metric {metric!r} is not a metric of the table (metrics: {metrics})")
    if table[metric].notna().sum() == 0:
        raise InputError(f"--metric {metric!r} has no values in the selected rows")


def apply_where(table: pd.DataFrame, where: Sequence[str]) -> pd.DataFrame:
    """Keep rows matching every ``KEY=VALUE`` (numbers compared as numbers)."""
    for clause in where:
        key, sep, raw = clause.partition("=")
        key, raw = key.strip(), raw.strip()
        if not sep or not key:
            raise InputError(f"--where expects KEY=VALUE, got {clause!r}")
        require_column(table, key, "--where key")
        column = table[key]
        if pd.api.types.is_numeric_dtype(column):
            try:
                value = float(raw)
            except ValueError:
                raise InputError(f"--where {key}: expected a number, got {raw!r}") from None
            mask = np.isclose(column.astype(float), value, rtol=1e-9, atol=0.0)
        else:
            mask = column.astype(str) == raw
        table = table[mask]
        if table.empty:
            raise InputError(f"--where {clause}: no rows match")
    return table


def check_uniform(table: pd.DataFrame, shown: Iterable[str | None]) -> None:
    """Raise when a parameter column takes several values among rows that agree on every ``shown`` column.

    Columns determined by a shown one (``cluster_nodes`` by ``cluster``) therefore pass. Cost: O(rows).
    """
    keys = [s for s in dict.fromkeys(shown) if s and s in table.columns]
    varying = []
    for column in PARAMETER_COLUMNS:
        if column not in table.columns or column in keys:
            continue
        if keys:
            n = int(table.groupby(keys, dropna=False)[column].nunique(dropna=False).max())
        else:
            n = int(table[column].nunique(dropna=False))
        if n > 1:
            varying.append(f"{column} ({n} values)")
    if varying:
        raise InputError(f"the selected rows differ in {', '.join(varying)}: pick one with --where KEY=VALUE "
                         f"or split them with --facet KEY")


def ordered_values(series: pd.Series) -> list:
    """Distinct values: ascending for numbers, first-seen order otherwise (the spec's order for labels)."""
    values = list(pd.unique(series.dropna()))
    if pd.api.types.is_numeric_dtype(series):
        return sorted(values)
    return values
