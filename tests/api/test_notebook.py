"""examples/quickstart.ipynb runs top to bottom (its code cells, in order, in one namespace, in a temp dir)."""

from __future__ import annotations

import json
from pathlib import Path

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "quickstart.ipynb"


def run_notebook(path: Path) -> dict:
    """Execute every code cell like a kernel would (the last expression's value is computed, not printed)."""
    import ast

    namespace: dict = {"__name__": "__main__"}
    for index, cell in enumerate(json.loads(path.read_text())["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        tree = ast.parse(source, filename=f"{path.name} cell {index}")
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        exec(compile(tree, f"{path.name} cell {index}", "exec"), namespace)
        if last is not None:
            namespace["_"] = eval(compile(ast.Expression(last.value), f"{path.name} cell {index}", "eval"), namespace)
    return namespace


def test_quickstart_runs_top_to_bottom(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ns = run_notebook(NOTEBOOK)
    assert ns["run"].summary["jobs"] == 50
    assert list(ns["comparison"].table["scheduler"]) == ["fifo", "fair"]
    report = tmp_path / "quickstart-report.html"
    assert report.exists() and report.stat().st_size > 100_000
