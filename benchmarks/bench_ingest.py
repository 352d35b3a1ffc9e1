"""Ingest benchmark: the SimMR-scale replay as a user runs it, whole process, from ``.json.gz``, the cache and a store.

Writes the 1148-job benchmark trace (``mrsim synth --jobs 1148 --seed 7``: 300,793 tasks, 5.6 MB gzipped, 116 MB of
JSON) unless ``--trace`` names one, then measures, min of ``--repeat`` runs each:

1. decoding only, in this process: the standard library's strict decoder (what the Rumen reader used before
   orjson; :func:`mrsim.ingest.rumen._iter_strict` is that code) against :func:`mrsim.ingest.rumen.iter_rumen_jobs`;
   the ratio is the figure (the same objects are produced, asserted);
2. ``mrsim replay TRACE --nodes 64 --map-slots 1 --reduce-slots 1 --json`` as a child process: ``--no-cache`` (parse
   every time), a cache miss (parse, then save the entry), a cache hit, and a trace store made by ``mrsim profile``;
   CPU time (user + system, from ``RUSAGE_CHILDREN``) and wall time. The baseline is the ``--no-cache`` run of the
   same invocation; the hit and store runs are printed as ratios of it;
3. with ``--before DIR`` (an unpacked older mrsim, e.g. ``git archive c9cae0a | tar -x -C DIR``), the same replay
   from ``.json.gz`` and from a store run with that code on ``PYTHONPATH``: the before/after figures.

The replays' ``--json`` outputs are compared (minus ``spec.trace_cache`` and the wall-clock fields): a speed-up that
changed a result would fail here. Usage: ``python3 benchmarks/bench_ingest.py [--repeat 3] [--before DIR]``
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson  # noqa: E402

REPLAY = ["replay", "--nodes", "64", "--map-slots", "1", "--reduce-slots", "1", "--json"]


def child(args: list[str], env: dict[str, str]) -> tuple[float, float, bytes]:
    """(CPU s, wall s, stdout) of ``python -m mrsim ARGS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mrsim", *args], env=env, capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"mrsim {' '.join(args)} failed: {done.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stdout


def comparable(out: bytes) -> bytes:
    doc = orjson.loads(out)
    doc["spec"].pop("trace_cache", None)
    for key in ("wall_s", "events_per_s"):
        doc["summary"].pop(key, None)
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)


def best(label: str, runs: list[tuple[float, float, bytes]], base: float | None = None) -> tuple[float, bytes]:
    cpu = min(r[0] for r in runs)
    wall = min(r[1] for r in runs)
    ratio = f"  = {cpu / base:.2f}x the --no-cache run" if base else ""
    print(f"{label:<44} CPU {cpu:6.2f} s  wall {wall:6.2f} s (min of {len(runs)}){ratio}")
    return cpu, runs[0][2]


def decode_only(trace: Path, repeat: int) -> None:
    from mrsim.ingest import rumen
    from mrsim.io.compressed import open_binary
    from mrsim.io.limits import limit

    def strict() -> list[dict]:
        with open_binary(trace) as fh:
            state = rumen._Stream(fh, trace, limit("input_bytes"))
            return list(rumen._iter_strict(state, 0))

    timings: dict[str, float] = {}
    outputs = {}
    readers = (("stdlib strict decoder", strict), ("orjson fast path", lambda: list(rumen.iter_rumen_jobs(trace))))
    for name, read in readers:
        runs = []
        for _ in range(repeat):
            started = time.process_time()
            outputs[name] = read()
            runs.append(time.process_time() - started)
        timings[name] = min(runs)
    assert outputs["stdlib strict decoder"] == outputs["orjson fast path"], "the two decoders disagree"
    base = timings["stdlib strict decoder"]
    for name, cpu in timings.items():
        print(f"decode {name:<37} CPU {cpu:6.2f} s (min of {repeat})  = {cpu / base:.2f}x the stdlib")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trace", type=Path, help="a trace to use instead of the 1148-job benchmark trace")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", type=Path, help="an unpacked older mrsim to measure the same replays with")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mrsim-bench-ingest-"))
    env = {**os.environ, "MRSIM_CACHE_DIR": str(work / "cache")}
    env.pop("MRSIM_NO_CACHE", None)
    try:
        trace = args.trace or work / "b.json.gz"
        if args.trace is None:
            child(["synth", "--jobs", "1148", "--seed", "7", "-o", str(trace)], env)
        print(f"trace {trace}: {trace.stat().st_size / 1e6:.1f} MB; cache {work / 'cache'}")
        decode_only(trace, args.repeat)
        plain = [child([*REPLAY[:1], str(trace), *REPLAY[1:], "--no-cache"], env) for _ in range(args.repeat)]
        base, reference = best("replay .json.gz --no-cache (parse)", plain)
        miss = [child([*REPLAY[:1], str(trace), *REPLAY[1:]], env)]
        best("replay .json.gz, cache miss (parse + save)", miss, base)
        hits = [child([*REPLAY[:1], str(trace), *REPLAY[1:]], env) for _ in range(args.repeat)]
        _, hit_out = best("replay .json.gz, cache hit", hits, base)
        store = work / "store"
        child(["profile", str(trace), "-o", str(store)], env)
        stored = [child([*REPLAY[:1], str(store), *REPLAY[1:]], env) for _ in range(args.repeat)]
        _, store_out = best("replay trace store", stored, base)
        assert comparable(hit_out) == comparable(reference) == comparable(miss[0][2]), "a cache hit changed the result"
        assert orjson.loads(store_out)["summary"]["tasks"] == orjson.loads(reference)["summary"]["tasks"]
        if args.before is not None:
            old_env = {**env, "PYTHONPATH": str(args.before.resolve())}
            old = [child([*REPLAY[:1], str(trace), *REPLAY[1:]], old_env) for _ in range(args.repeat)]
            _, old_out = best(f"BEFORE ({args.before.name}) replay .json.gz", old, base)
            old_store = work / "store-before"
            child(["profile", str(trace), "-o", str(old_store)], old_env)
            old_stored = [child([*REPLAY[:1], str(old_store), *REPLAY[1:]], old_env) for _ in range(args.repeat)]
            best(f"BEFORE ({args.before.name}) replay trace store", old_stored, base)
            assert comparable(old_out) == comparable(reference), "the result changed since the older mrsim"
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
