"""Tiny sweep specs for the experiment tests (each cell runs in tens of milliseconds)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

SLOTS_SPEC = """
name = "tiny-slots"
seed = 7
replications = 2
schedulers = [{name = "fifo", label = "fifo"}, {name = "fifo", label = "fifo-again"}]

[[workloads]]
generator = "facebook-like"
jobs = 4
mean_interarrival_s = 20.0

[[clusters]]
label = "small"
nodes = 4

[[clusters]]
label = "large"
nodes = 8
reduce_slots = 1

[engine]
heartbeat_interval_s = "off"

[grid]
interarrival_scale = [0.5, 2.0]
"""

FLUID_SPEC = """
name = "tiny-fluid"
model = "fluid"
seed = 3
replications = 3
schedulers = ["fifo", "ps", "srpt", "fsp-ps"]

[[workloads]]
trace = "tiny.tsv"

[grid]
sigma = [0.0, 0.5, 2.0]
load = [0.5, 0.9]
"""


def write_swim(directory: Path, jobs: int = 80, seed: int = 0) -> Path:
    """A SWIM-format file with ``jobs`` jobs (heavy-tailed bytes), deterministic for ``seed``."""
    rng = np.random.default_rng(seed)
    lines, t = [], 0.0
    for i in range(jobs):
        gap = float(rng.exponential(20.0))
        t += gap
        inp, shuf, out = (int(x) for x in rng.lognormal(16, 2, 3))
        lines.append(f"job{i}\t{t:.0f}\t{gap:.0f}\t{inp}\t{shuf}\t{out}")
    path = directory / "tiny.tsv"
    path.write_text("\n".join(lines) + "\n")
    return path


def write_spec(directory: Path, text: str, name: str = "spec.toml") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    if "tiny.tsv" in text and not (directory / "tiny.tsv").exists():
        write_swim(directory)
    path = directory / name
    path.write_text(text)
    return path
