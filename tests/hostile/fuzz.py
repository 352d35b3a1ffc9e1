"""Mutators and the oracle of the hostile-input fuzz suite (``tests/hostile/test_fuzz.py``).

Inputs are real files of the shared data set (Rumen traces, a Hadoop 0.20 log, an SLS trace, a ``.jhist``, a
SWIM sample) and
mrsim's own config formats (cluster TOML, job spec TOML), damaged by hypothesis: a value of another JSON type, an
out-of-range value (NaN, huge, negative), a deleted key, a truncation, deep nesting, a deleted or repeated line.
The oracle accepts exactly three outcomes, each within a time limit:

* an :class:`~mrsim.errors.InputError` whose message is one non-empty line;
* a workload with warnings;
* a workload whose replay passes the engine's invariants (``check_invariants``: slot accounting after every
  event) and whose results are sane: every job finishes, at a finite time, no earlier than it was submitted,
  and runs exactly the tasks it has.

Anything else -- another exception, a hang -- fails the example (and hypothesis shrinks it).
"""

from __future__ import annotations

import gzip
import json
import math
import signal
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from mrsim.errors import InputError

#: Per-example wall-clock limit (s); a damaged input must fail or finish well within it.
TIME_LIMIT_S = 20.0

#: Outcome counts of this process (written to ``$MRSIM_FUZZ_REPORT`` by the long profile).
TALLY: Counter[str] = Counter()

# ------------------------------------------------------------------------------ JSON tree mutations

REPLACEMENTS = st.one_of(
    st.sampled_from([None, True, False, "", "x", "-1", "NaN", [], {}, [1, 2], {"a": 1}, 0, -1, -(2**63), 2**63,
                     10**30, 1e300, -1e300, 0.5, float("nan"), float("inf"), float("-inf")]),
    st.integers(-(10**15), 10**15),
    st.text(max_size=8),
)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out.extend(_paths(value, (*prefix, key)))
    elif isinstance(node, list):
        for i, value in enumerate(node[:6]):  # the first few items of a list are enough to reach every shape
            out.extend(_paths(value, (*prefix, i)))
    return out


def _get(node: Any, path: tuple) -> Any:
    for key in path:
        node = node[key]
    return node


@st.composite
def json_mutation(draw, doc: Any) -> tuple[Any, str]:
    """A deep-copied ``doc`` with 1-3 mutations; also the kind of the last one (for the tally)."""
    doc = json.loads(json.dumps(doc))
    kind = "none"
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = _get(doc, path[:-1])
        key = path[-1]
        kind = draw(st.sampled_from(["type", "value", "delete", "nest", "duplicate"]))
        if kind in ("type", "value"):
            parent[key] = draw(REPLACEMENTS)
        elif kind == "delete":
            del parent[key]
        elif kind == "nest":  # last: deeper trees are not walked again (the walk itself would recurse)
            depth = draw(st.sampled_from([1, 5, 50, 5000]))
            value = parent[key]
            for _ in range(depth):
                value = [value]
            parent[key] = value
            break
        elif isinstance(parent, list):
            parent.insert(key, json.loads(json.dumps(parent[key])))
    return doc, kind


class _Deep:
    """A placeholder for a deeply nested value, written by hand (``json.dumps`` would recurse)."""

    def __init__(self, value: Any, depth: int) -> None:
        self.value, self.depth = value, depth


def dump_json(doc: Any) -> str:
    deep: list[_Deep] = []

    def unwrap(node: Any) -> Any:
        if isinstance(node, list) and len(node) == 1 and isinstance(node[0], list):
            depth, inner = 0, node
            while isinstance(inner, list) and len(inner) == 1 and depth < 10**6:
                inner, depth = inner[0], depth + 1
            if depth > 20:
                deep.append(_Deep(inner, depth))
                return f"@@DEEP{len(deep) - 1}@@"
        if isinstance(node, dict):
            return {k: unwrap(v) for k, v in node.items()}
        if isinstance(node, list):
            return [unwrap(v) for v in node]
        return node

    text = json.dumps(unwrap(doc), allow_nan=True)
    for i, d in enumerate(deep):
        text = text.replace(f'"@@DEEP{i}@@"', "[" * d.depth + json.dumps(d.value, allow_nan=True) + "]" * d.depth)
    return text


# ------------------------------------------------------------------------------ text mutations


@st.composite
def text_mutation(draw, text: str) -> tuple[str, str]:
    """Line-level damage to a text format (logs, TOML): delete, repeat, truncate, or replace a value."""
    lines = text.splitlines(keepends=True)
    kind = draw(st.sampled_from(["delete", "repeat", "truncate", "value", "bytes"]))
    if not lines:
        return text, kind
    i = draw(st.integers(0, len(lines) - 1))
    if kind == "delete":
        n = draw(st.integers(1, 5))
        del lines[i:i + n]
    elif kind == "repeat":
        lines.insert(i, lines[i])
    elif kind == "truncate":
        cut = draw(st.integers(0, len(text)))
        return text[:cut], kind
    elif kind == "value":
        token = draw(st.sampled_from(["nan", "inf", "-inf", "-1", "0", "1e309", "99999999999999999999999",
                                      '"text"', "[1, 2]", "{ a = 1 }", "true", "[" * 300 + "]" * 300, '""',
                                      "NaN", "Infinity", '"-1"', "1000000000000"]))
        line = lines[i]
        if "=" in line:
            lines[i] = line.split("=", 1)[0] + "= " + token + "\n"
        elif "\t" in line:  # SWIM: one tab-separated column
            cols = line.rstrip("\n").split("\t")
            cols[draw(st.integers(0, len(cols) - 1))] = token
            lines[i] = "\t".join(cols) + "\n"
        elif ":" in line:
            lines[i] = line.split(":", 1)[0] + ": " + token + ",\n"
        else:
            lines[i] = token + "\n"
    else:
        pos = draw(st.integers(0, max(0, len(text) - 1)))
        byte = draw(st.sampled_from(['"', "=", "{", "}", "[", "]", ",", "\x00", "\n", "9", "-", "\\"]))
        joined = "".join(lines)
        return joined[:pos] + byte + joined[pos + 1:], kind
    return "".join(lines), kind


# ------------------------------------------------------------------------------ the oracle


class _Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Timeout()


def check_input(path: Path, kind: str = "trace", cluster: Path | None = None) -> str:
    """Load and replay ``path`` (a trace, or a job spec; ``cluster`` a cluster file) and return the outcome
    (``error`` / ``warning`` / ``ok``); raise AssertionError for anything the oracle refuses."""
    from mrsim.tracker.replay import ReplayOptions, replay
    from mrsim.tracker.scheduling import create_scheduler
    from mrsim.profiler.workloads import load_workload
    from mrsim.model.cluster import load_cluster_file, uniform_cluster
    from mrsim.model.hadoop_conf import HadoopConf

    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT_S)
    try:
        try:
            spec = load_cluster_file(cluster) if cluster is not None else uniform_cluster(8, 2, 2)
            workload = load_workload(path)
            if sum(len(j.map_durations) + len(j.reduce_durations) for j in workload.jobs) > 20_000:
                outcome = "warning" if workload.warnings else "ok"  # valid but too big to replay per example
                return outcome
            result = replay(workload, spec, HadoopConf(), create_scheduler("fifo", {}),
                            ReplayOptions(check_invariants=True, heartbeat_interval_s=1.0))
        except InputError as exc:
            message = str(exc)
            assert message and "\n" not in message, f"error message not one line: {message!r}"
            return "error"
        except _Timeout:
            raise AssertionError(f"no result within {TIME_LIMIT_S} s (a hang)") from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    jobs = result.jobs
    assert len(jobs) == len(workload), "a job vanished from the results"
    for finish, submit in zip(jobs["finish_s"], jobs["submit_s"]):
        assert math.isfinite(finish) and finish >= submit - 1e-9, (submit, finish)
    expected_tasks = sum(len(j.map_durations) + len(j.reduce_durations) for j in workload.jobs)
    assert int(jobs["maps"].sum() + jobs["reduces"].sum()) == expected_tasks
    return "warning" if result.warnings else "ok"


def read_text(path: Path) -> str:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8", "replace")
