"""Ingest benchmark: the SimMR-scale replay as a user runs it, whole process, from ``.json.gz``, the cache and a store.

Writes the 1148-job benchmark trace (``mrsim synth --jobs 1148 --seed 7``: 300,793 tasks, 5.6 MB gzipped, 116 MB of
JSON) unless ``--trace`` names one, then measures, min of ``--repeat`` runs each:

1. decoding only, in this process: the standard library's strict decoder (what the Rumen reader used before
   orjson; :func:`mrsim.profiler.rumen._iter_strict` is that code) against :func:`mrsim.profiler.rumen.iter_rumen_jobs`
   and, where the tree has it, its typed path (``typed=True``: plain jobs as columns, no task dicts); the ratio is
   the figure (the same objects are produced, asserted);
2. ``mrsim replay TRACE --nodes 64 --map-slots 1 --reduce-slots 1 --json`` as a child process: ``--no-cache`` (parse
   every time), a cache miss (parse, then save the entry: by a child process while the engine runs, where the
   cache may fork, and again with ``MRSIM_CACHE_SAVE_CHILD=0``: in the replaying process),
   a cache hit, and a trace store made by ``mrsim profile``;
   CPU time (user + system, from ``RUSAGE_CHILDREN``) and wall time. The baseline is the ``--no-cache`` run of the
   same invocation; the hit and store runs are printed as ratios of it;
3. with ``--before DIR`` (an unpacked older mrsim, e.g. ``git archive c9cae0a | tar -x -C DIR``, plus the compiled
   core's ``*.so`` files and ``mrsim/_compiled_core.json`` copied beside its sources when the engine did not change),
   the same four replays run with that code on ``PYTHONPATH``, with a cache directory of its own, in rounds that
   interleave the two versions (a change of load on a shared machine then hits both alike): the before/after
   figures, as CPU ratios.

The replays' ``--json`` outputs are compared (minus ``spec.trace_cache`` and the wall-clock fields): a speed-up that
changed a result would fail here. ``--steps`` prints instead the CPU of each step of the ingest pass, in process,
with the cyclic garbage collector enabled and paused, then the pass as the commands run it (until it returns, and
with every field read: some are built on first read); ``--phases`` the CPU of each phase of a cache hit (interpreter
start-up, imports, loading the entry, the engine, the ``--json`` object, the rest), each mrsim in its own children.
Usage: ``python3 benchmarks/bench_ingest.py [--repeat 3] [--before DIR] [--steps | --phases]``
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
from functools import partial
from pathlib import Path
from typing import Any
from collections.abc import Callable

import orjson

REPLAY = ["replay", "--nodes", "64", "--map-slots", "1", "--reduce-slots", "1", "--json"]


def child(args: list[str], env: dict[str, str]) -> tuple[float, float, bytes]:
    """(CPU s, wall s, stdout) of ``python -m mrsim ARGS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    # cwd: a scratch directory, not the repository: ``python -m`` puts the working directory first on sys.path,
    # ahead of PYTHONPATH, so run from the repository every child would import this tree, --before's included.
    done = subprocess.run([sys.executable, "-m", "mrsim", *args], env=env, capture_output=True, check=False,
                          cwd=tempfile.gettempdir())
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
    from mrsim.profiler import rumen
    from mrsim.io.compressed import open_binary
    from mrsim.io.limits import limit

    def strict() -> list[dict]:
        with open_binary(trace) as fh:
            state = rumen._Stream(fh, trace, limit("input_bytes"))
            return list(rumen._iter_strict(state, 0))

    timings: dict[str, float] = {}
    outputs = {}
    readers = [("stdlib strict decoder", strict), ("orjson fast path", lambda: list(rumen.iter_rumen_jobs(trace)))]
    try:  # this tree's typed decoder of plain jobs (mrsim.profiler.typed): decoding and the columns, no task dicts
        from mrsim.profiler.typed import full_job

        readers.append(("typed path (msgspec, columns)", lambda: list(rumen.iter_rumen_jobs(trace, typed=True))))
    except ImportError:
        full_job = None
    for name, read in readers:
        runs = []
        for _ in range(repeat):
            started = time.process_time()
            outputs[name] = read()
            runs.append(time.process_time() - started)
        timings[name] = min(runs)
    assert outputs["stdlib strict decoder"] == outputs["orjson fast path"], "the two decoders disagree"
    if full_job is not None:
        assert all(full_job(a) == b for a, b in zip(outputs.pop("typed path (msgspec, columns)"),
                                                    outputs["orjson fast path"], strict=True)), "the typed path disagrees"
    base = timings["stdlib strict decoder"]
    for name, cpu in timings.items():
        print(f"decode {name:<37} CPU {cpu:6.2f} s (min of {repeat})  = {cpu / base:.2f}x the stdlib")


def steps(trace: Path) -> None:
    """CPU of each step of the one-pass ingest (:func:`mrsim.profiler.ingest._read_pass`'s per-job
    steps, streamed one job at a time as the pass reads), with the cyclic GC enabled (as before the pass paused
    it) and paused (as the pass runs now); the GC's own time from ``gc.callbacks``. Where the tree has the column
    path of plain jobs (``mrsim.profiler.plain``), a third run times it: the walk into columns, then each collector's
    column path (jobs that are not plain take the general steps)."""
    import gc

    from mrsim.profiler.trace_conf import TraceConf
    from mrsim.calibration.background import BackgroundCollector
    from mrsim.calibration.extract import CalibrationCollector
    from mrsim.profiler.detect import Format, iter_logged_jobs
    from mrsim.profiler.topology_infer import SlotUsage

    in_gc = [0.0, 0.0]

    def on_gc(phase: str, _info: dict) -> None:
        if phase == "start":
            in_gc[1] = time.process_time()
        else:
            in_gc[0] += time.process_time() - in_gc[1]

    gc.callbacks.append(on_gc)
    try:
        for enabled in (True, False):
            gc.enable() if enabled else gc.disable()
            in_gc[0] = 0.0
            spent: dict[str, float] = {}

            timed = partial(_timed, spent)
            usage, conf, lags, background = SlotUsage(), TraceConf(), CalibrationCollector(), BackgroundCollector()
            jobs = iter_logged_jobs(trace, Format.RUMEN, warnings=[])
            started = time.process_time()
            while (job := timed("decode", next, jobs, None)) is not None:
                _general_steps(timed, job, trace, usage, conf, lags, background)
            timed("calibration laws", lags.result, str(trace), None)
            timed("inferred hosts", usage.hosts)
            total = time.process_time() - started
            print(f"ingest steps, GC {'enabled' if enabled else 'paused'}: CPU {total:.2f} s, of which the GC "
                  f"{in_gc[0]:.2f} s: " + ", ".join(f"{k} {v:.2f}" for k, v in spent.items()))
        _column_steps(trace)
        _whole_pass(trace)
    finally:
        gc.callbacks.remove(on_gc)
        gc.enable()


def _whole_pass(trace: Path) -> None:
    """The pass as the commands run it (:func:`mrsim.profiler.ingest._read`): its CPU until it returns
    (what a ``--no-cache`` replay waits for: the fields built on first read are not), then reading every field (what
    ``mrsim validate`` or a cache miss reads). Min of 2."""
    import dataclasses

    from mrsim.profiler.ingest import _format, _read

    returned, built = [], []
    for _ in range(2):
        started = time.process_time()
        result = _read(trace, _format(trace, None))
        returned.append(time.process_time() - started)
        for f in dataclasses.fields(result):
            getattr(result, f.name)
        built.append(time.process_time() - started)
        del result
    print(f"the pass as it runs (_read): CPU {min(returned):.2f} s until it returns, {min(built):.2f} s with every "
          "field read (min of 2)")


def _general_steps(timed: Callable[..., Any], job: Any, trace: Path, usage: Any, conf: Any, lags: Any,
                   background: Any) -> None:
    """One job through the general (per-attempt dict) steps of the pass, each timed under its name."""
    from mrsim.profiler.observe import observe_job
    from mrsim.profiler.builder import template_from_logged_job
    from mrsim.profiler.topology_infer import iter_attempt_windows

    windows = timed("attempt windows", lambda j: list(iter_attempt_windows(j)), job)
    timed("templates", lambda j: template_from_logged_job(j, source=str(trace), warnings=[]), job)
    timed("observations", observe_job, job, windows)
    timed("slot usage", usage.add_job, job, windows)
    timed("job confs", conf.add_job, job)
    timed("calibration lags", lags.add_job, job)
    timed("background usage", background.add_job, job, "j")


def _timed(spent: dict[str, float], name: str, f: Callable[..., Any], *args: Any) -> Any:
    """``f(*args)``, its CPU time added to ``spent[name]``."""
    started = time.process_time()
    out = f(*args)
    spent[name] = spent.get(name, 0.0) + time.process_time() - started
    return out


def _column_steps(trace: Path) -> None:
    """The steps of the pass as it runs now, GC paused: plain jobs through the walk into columns and the
    collectors' column paths, other jobs through the general steps."""
    import gc

    try:
        from mrsim.profiler.observe import observe_plain
        from mrsim.profiler.plain import plain_job
    except ImportError:  # an older tree: no column path
        return
    from mrsim.profiler.trace_conf import TraceConf
    from mrsim.calibration.background import BackgroundCollector
    from mrsim.calibration.extract import CalibrationCollector
    from mrsim.profiler.builder import template_from_logged_job
    from mrsim.profiler.detect import Format, iter_logged_jobs
    from mrsim.profiler.topology_infer import SlotUsage

    gc.disable()
    spent: dict[str, float] = {}

    timed = partial(_timed, spent)
    usage, conf, lags, background = SlotUsage(), TraceConf(), CalibrationCollector(), BackgroundCollector()
    jobs = iter_logged_jobs(trace, Format.RUMEN, warnings=[])
    plain_jobs = 0
    started = time.process_time()
    while (job := timed("decode", next, jobs, None)) is not None:
        plain = timed("walk into columns", plain_job, job)
        if plain is None:
            _general_steps(timed, job, trace, usage, conf, lags, background)
            continue
        plain_jobs += 1
        timed("templates", lambda j: template_from_logged_job(j, source=str(trace), warnings=[], plain=plain), job)
        timed("observations", observe_plain, job, plain)
        timed("slot usage", usage.add_plain, job, plain)
        timed("job confs", conf.add_job, job)
        timed("calibration lags", lags.add_plain, job, plain)
        timed("background usage", background.add_plain, job, "j", plain)
    timed("calibration laws", lags.result, str(trace), None)
    timed("inferred hosts", usage.hosts)
    timed("reduce-slot gaps", background.reduce_gaps)
    total = time.process_time() - started
    gc.enable()
    print(f"ingest steps, GC paused, column path ({plain_jobs} plain jobs): CPU {total:.2f} s: "
          + ", ".join(f"{k} {v:.2f}" for k, v in spent.items()))


#: Run in a child on a cache hit: CPU (user + system) of the interpreter's start-up, of the imports before the
#: command runs, of loading the trace (``mrsim.run.execute._load``: the cache entry), of the engine (``engine.replay.replay``), of
#: the ``--json`` object, and of the whole process; one line of JSON on stderr.
_PHASES = """
import resource, sys
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
start = cpu()
import orjson
import mrsim.cli as cli, mrsim.run.execute as api, mrsim.tracker.replay as er, mrsim.tracker.results as res
spent = {}
def timed(owner, name, label):
    f = getattr(owner, name)
    def g(*a, **k):
        t = cpu(); out = f(*a, **k); spent[label] = spent.get(label, 0.0) + cpu() - t; return out
    setattr(owner, name, g)
timed(api, "_load", "load"); timed(er, "replay", "engine"); timed(res.ReplayResult, "to_json_dict", "json")
before_main = cpu()
cli.main(sys.argv[1:])
end = cpu()
spent.update(startup=start, imports=before_main - start, whole=end)
spent["other"] = end - start - spent["imports"] - spent["load"] - spent["engine"] - spent["json"]
sys.stderr.write("PHASES " + orjson.dumps(spent).decode() + "\\n")
"""


def hit_phases(trace: Path, codes: dict[str, dict[str, str]], repeat: int) -> None:
    """``--phases``: where a cache hit's CPU goes, per phase (:data:`_PHASES`), min of ``repeat`` interleaved runs
    per mrsim; the cache is filled first (untimed)."""
    import json

    args = [*REPLAY[:1], str(trace), *REPLAY[1:]]
    runs: dict[str, list[dict[str, float]]] = {tag: [] for tag in codes}
    for env in codes.values():
        child(args, env)
    for _ in range(repeat):
        for tag, env in codes.items():
            done = subprocess.run([sys.executable, "-c", _PHASES, *args], env=env, capture_output=True, text=True,
                                  cwd=tempfile.gettempdir(), check=True)
            line = next(x for x in done.stderr.splitlines() if x.startswith("PHASES "))
            runs[tag].append(json.loads(line.removeprefix("PHASES ")))
    for tag, found in runs.items():
        names = ("startup", "imports", "load", "engine", "json", "other", "whole")
        print(f"{(tag.strip() or 'this tree'):<10} cache hit, CPU s (min of {repeat} per phase): "
              + ", ".join(f"{n} {min(r[n] for r in found):.3f}" for n in names))


def replay_runs(trace: Path, store: Path, work: Path, env: dict[str, str], tag: str,
                into: dict[str, list[tuple[float, float, bytes]]]) -> None:
    """One round of the replays of one mrsim (``tag``): ``--no-cache``, a cache miss (a fresh cache directory) with
    the entry saved by a child process (where allowed) and in the replaying process, a cache hit (a cache directory
    a miss filled before the rounds) and a trace store."""
    args = [*REPLAY[:1], str(trace), *REPLAY[1:]]
    into.setdefault(f"{tag}nocache", []).append(child([*args, "--no-cache"], env))
    fresh = {**env, "MRSIM_CACHE_DIR": str(work / f"{tag}miss-{len(into[f'{tag}nocache'])}")}
    into.setdefault(f"{tag}miss", []).append(child(args, fresh))
    inline = {**env, "MRSIM_CACHE_SAVE_CHILD": "0",
              "MRSIM_CACHE_DIR": str(work / f"{tag}miss-inline-{len(into[f'{tag}nocache'])}")}
    into.setdefault(f"{tag}missinline", []).append(child(args, inline))
    into.setdefault(f"{tag}hit", []).append(child(args, env))
    into.setdefault(f"{tag}store", []).append(child([*REPLAY[:1], str(store), *REPLAY[1:]], env))


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    ap.add_argument("--trace", type=Path, help="a trace to use instead of the 1148-job benchmark trace")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", type=Path, help="an unpacked older mrsim to measure the same replays with")
    ap.add_argument("--steps", action="store_true", help="only the CPU of each step of the ingest pass, in process")
    ap.add_argument("--phases", action="store_true", help="only the CPU of each phase of a cache hit (start-up, "
                    "imports, loading the entry, engine, JSON), in child processes")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # here: steps() may run in a child on --before's code
    work = Path(tempfile.mkdtemp(prefix="mrsim-bench-ingest-"))
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "MRSIM_CACHE_DIR": str(work / "cache"), "PYTHONPATH": str(repo)}
    env.pop("MRSIM_NO_CACHE", None)
    # Each mrsim gets its own cache directory: an older mrsim of the same version would otherwise hit this one's
    # entries (the key names mrsim's version, not its commit).
    codes = {"": env}
    if args.before is not None:
        codes["before "] = {**env, "PYTHONPATH": str(args.before.resolve()), "MRSIM_CACHE_DIR": str(work / "cache-before")}
    try:
        trace = args.trace or work / "b.json.gz"
        if args.trace is None:
            child(["synth", "--jobs", "1148", "--seed", "7", "-o", str(trace)], env)
        print(f"trace {trace}: {trace.stat().st_size / 1e6:.1f} MB; cache {work / 'cache'}")
        if args.steps:
            print("this tree:")
            steps(trace)
            if args.before is not None:  # the same function in a child that imports the older mrsim
                code = ("import importlib.util, sys; from pathlib import Path; "
                        f"spec = importlib.util.spec_from_file_location('bench_ingest', {str(Path(__file__).resolve())!r}); "
                        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); "
                        f"m.steps(Path({str(trace)!r}))")
                done = subprocess.run([sys.executable, "-c", code], env=codes["before "], capture_output=True, text=True,
                                      cwd=tempfile.gettempdir(), check=True)
                print(f"BEFORE ({args.before.name}):\n{done.stdout}", end="")
            return
        if args.phases:
            hit_phases(trace, codes, args.repeat)
            return
        decode_only(trace, args.repeat)
        stores = {}
        for tag, code_env in codes.items():  # untimed: fill the cache for the hits, write the store
            child([*REPLAY[:1], str(trace), *REPLAY[1:]], code_env)
            stores[tag] = work / f"{tag.strip() or 'after'}-store"
            child(["profile", str(trace), "-o", str(stores[tag])], code_env)
        runs: dict[str, list[tuple[float, float, bytes]]] = {}
        for _ in range(args.repeat):  # rounds interleave the mrsims: a load change hits both alike
            for tag, code_env in codes.items():
                replay_runs(trace, stores[tag], work, code_env, tag, runs)
        base, reference = best("replay .json.gz --no-cache (parse)", runs["nocache"])
        best("replay .json.gz, cache miss (parse + save)", runs["miss"], base)
        best("  the same, saved in this process", runs["missinline"], base)
        _, hit_out = best("replay .json.gz, cache hit", runs["hit"], base)
        _, store_out = best("replay trace store", runs["store"], base)
        assert comparable(hit_out) == comparable(reference) == comparable(runs["miss"][0][2]) \
            == comparable(runs["missinline"][0][2]), "a cache hit or miss changed the result"
        assert orjson.loads(store_out)["summary"]["tasks"] == orjson.loads(reference)["summary"]["tasks"]
        if args.before is not None:
            name = args.before.name
            for key, label in (("nocache", "--no-cache"), ("miss", "cache miss"), ("hit", "cache hit"),
                               ("store", "trace store")):
                old_cpu = min(r[0] for r in runs[f"before {key}"])
                new_cpu = min(r[0] for r in runs[key])
                old_wall = min(r[1] for r in runs[f"before {key}"])
                print(f"BEFORE ({name}) {label:<12} CPU {old_cpu:6.2f} s  wall {old_wall:6.2f} s  ->  now CPU "
                      f"{new_cpu:6.2f} s = {new_cpu / old_cpu:.2f}x")
                if key != "store":
                    assert comparable(runs[f"before {key}"][0][2]) == comparable(reference), \
                        f"the result changed since the older mrsim ({label})"
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
