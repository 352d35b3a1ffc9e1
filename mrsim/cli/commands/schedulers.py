"""``mrsim schedulers``: list the registered scheduler plug-ins, their one-line summary and whether they load."""

from __future__ import annotations

import argparse
import importlib
import sys

import orjson

from mrsim.tracker.scheduling import NarrowPolicy, TaskScheduler, scheduler_targets

NAME = "schedulers"
HELP = "list registered scheduler plug-ins (entry-point group mrsim.schedulers) and whether each loads"
DESCRIPTION = (
    "List every scheduler registered through the mrsim.schedulers entry-point group (built-ins included) with "
    "its target, its one-line summary and its load status. A plug-in that fails to load is reported with the "
    "reason, never fatal."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")


def _load(target: str) -> object:
    module_name, _, attr = target.partition(":")
    return getattr(importlib.import_module(module_name), attr)


def scheduler_rows() -> list[dict]:
    """One row per registered name: ``name``, ``target``, ``loads``, ``kind``, ``summary``, ``error``."""
    rows = []
    for name, target in sorted(scheduler_targets().items()):
        row: dict = {"name": name, "target": target, "loads": False, "kind": None, "summary": "", "error": None}
        try:
            obj = _load(target)
        except Exception as exc:  # report, never fail: one broken plug-in must not hide the others
            row["error"] = f"{type(exc).__name__}: {exc}"
            rows.append(row)
            continue
        row["loads"] = True
        if isinstance(obj, type) and issubclass(obj, TaskScheduler):
            row["kind"] = "TaskScheduler"
        elif isinstance(obj, type) and issubclass(obj, NarrowPolicy):
            row["kind"] = "NarrowPolicy"
        else:
            row["kind"] = "factory"
        summary = getattr(obj, "summary", "") or (obj.__doc__ or "").strip().splitlines()[0:1]
        row["summary"] = summary if isinstance(summary, str) else (summary[0] if summary else "")
        rows.append(row)
    return rows


def run(args: argparse.Namespace) -> int:
    rows = scheduler_rows()
    if args.json:
        sys.stdout.buffer.write(orjson.dumps({"schedulers": rows}) + b"\n")
        return 0
    width = max(len(r["name"]) for r in rows) if rows else 4
    for r in rows:
        status = "ok    " if r["loads"] else "FAILED"
        text = r["summary"] if r["loads"] else r["error"]
        print(f"{r['name']:<{width}}  {status}  {text}")
        print(f"{'':<{width}}          {r['target']}")
    broken = sum(not r["loads"] for r in rows)
    print()
    print(f"{len(rows)} registered, {len(rows) - broken} load, {broken} failed (entry-point group mrsim.schedulers)")
    return 0
