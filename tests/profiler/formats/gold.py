"""Helpers for the profiler-log tests: where the real data lives and a reader for Rumen's gold JSON."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from tests.tracker.helpers import SHARED_DATA

DATA = SHARED_DATA  # $MRSIM_SHARED_DATA or ../shared/data; tests skip when absent
TRUNK = DATA / "rumen" / "small-trace-test"
BRANCH1 = DATA / "rumen-branch-1" / "small-trace-test"
JHIST = DATA / "jhist"
SLS = DATA / "sls" / "test-resources"


def load_json_stream(path: Path) -> list[Any]:
    """Every top-level JSON value of a (possibly gzipped) concatenated-JSON file, independent of mrsim."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8")
    decoder = json.JSONDecoder()
    values, pos = [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            return values
        value, pos = decoder.raw_decode(text, pos)
        values.append(value)


def all_tasks(job: dict[str, Any]) -> list[dict[str, Any]]:
    return job["mapTasks"] + job["reduceTasks"] + job["otherTasks"]


def topology_hosts(topology: dict[str, Any]) -> set[tuple[str, str]]:
    """``(rack, host)`` pairs of a ``LoggedNetworkTopology`` (order-insensitive, as DeepCompare treats it)."""
    return {(rack["name"], host["name"]) for rack in topology["children"] for host in rack["children"] or []}
