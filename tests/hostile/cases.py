"""The hostile-input case classes, one builder each, shared by the regression tests and the repro script.

Each case writes its input under a scratch directory and returns the ``mrsim`` argument list plus the outcome
the fix promises: ``usage`` (exit 2, one line), ``error`` (exit 1, one line), ``warn`` (exit 0 with a warning
containing a given text) or ``ok``. Run ``python -m tests.hostile.cases`` to classify every case against the
installed mrsim (traceback / hang / wrong exit) without pytest.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.data import shared_data_dir

REPO = Path(__file__).resolve().parents[2]


def shared_data() -> Path | None:
    """The real-data folder (``$MRSIM_SHARED_DATA`` or ``../shared/data``), or None when absent."""
    path = shared_data_dir()
    return path if path.is_dir() else None


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[Path, Path], list[str]]  # (scratch dir, shared data) -> argv
    expect: str  # usage | error | warn | ok
    text: str = ""  # substring the stderr line must contain
    needs_data: bool = True


def _wordcount(data: Path) -> dict:
    return json.loads((data / "gridmix/data/wordcount.json").read_text())


def _write_json(path: Path, obj: object) -> Path:
    path.write_text(json.dumps(obj))
    return path


def _mutated_rumen(mutate: Callable[[dict], None]) -> Callable[[Path, Path], list[str]]:
    def build(tmp: Path, data: Path) -> list[str]:
        job = _wordcount(data)
        mutate(job)
        return ["replay", str(_write_json(tmp / "trace.json", job)), "--json"]
    return build


def _raw_rumen(text_of: Callable[[str], str]) -> Callable[[Path, Path], list[str]]:
    def build(tmp: Path, data: Path) -> list[str]:
        text = text_of((data / "gridmix/data/wordcount.json").read_text())
        (tmp / "trace.json").write_text(text)
        return ["replay", str(tmp / "trace.json"), "--json"]
    return build


def _set(path: tuple, value: object) -> Callable[[dict], None]:
    def mutate(job: dict) -> None:
        node = job
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return mutate


def _fifo(tmp: Path, data: Path) -> list[str]:
    fifo = tmp / "pipe.json"
    os.mkfifo(fifo)
    return ["replay", str(fifo)]


def _fifo_topology(tmp: Path, data: Path) -> list[str]:
    fifo = tmp / "topo.json"
    os.mkfifo(fifo)
    return ["replay", "--topology", str(fifo)]


def _gzip_garbage_topology(tmp: Path, data: Path) -> list[str]:
    (tmp / "topo.json.gz").write_bytes(b"\x1f\x8b" + os.urandom(200))
    return ["replay", "--topology", str(tmp / "topo.json.gz")]


def _unreadable(tmp: Path, data: Path) -> list[str]:
    p = tmp / "trace.json"
    p.write_text((data / "gridmix/data/wordcount.json").read_text())
    p.chmod(0)
    return ["replay", str(p)]


def _deep_json(tmp: Path, data: Path) -> list[str]:
    (tmp / "trace.json").write_text('{"jobID": "job_1", "mapTasks": ' + "[" * 100000 + "]" * 100000 + "}")
    return ["replay", str(tmp / "trace.json")]


def _deep_toml(tmp: Path, data: Path) -> list[str]:
    (tmp / "cluster.toml").write_text("x = " + "[" * 100000 + "]" * 100000 + "\n")
    return ["replay", "--cluster", str(tmp / "cluster.toml")]


def _sls(mutate: Callable[[list[dict]], None]) -> Callable[[Path, Path], list[str]]:
    def build(tmp: Path, data: Path) -> list[str]:
        from mrsim.profiler.logged import iter_json_objects  # noqa: F401  (format reference only)

        text = (data / "sls/test-resources/inputsls.json").read_text()
        objs = [json.loads(chunk) for chunk in _split_objects(text)]
        mutate(objs)
        (tmp / "trace.sls.json").write_text("\n".join(json.dumps(o) for o in objs))
        return ["replay", str(tmp / "trace.sls.json"), "--json"]
    return build


def _split_objects(text: str) -> list[str]:
    decoder = json.JSONDecoder()
    out, i = [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        obj, j = decoder.raw_decode(text, i)
        out.append(text[i:j])
        i = j


def _sls_huge_count(objs: list[dict]) -> None:
    objs[0]["job.tasks"][0]["count"] = 10**12


def _sls_no_start(objs: list[dict]) -> None:
    for o in objs:
        o.pop("job.start.ms", None)


def _jobspec_huge(tmp: Path, data: Path) -> list[str]:
    src = next((REPO / "examples/jobspecs").glob("*.toml"))
    text = src.read_text()
    import re

    text = re.sub(r"(?m)^maps\s*=\s*\d+", "maps = 1000000000000", text, count=1)
    (tmp / "spec.toml").write_text(text)
    return ["replay", str(tmp / "spec.toml")]


def _cluster_toml(body: str) -> Callable[[Path, Path], list[str]]:
    def build(tmp: Path, data: Path) -> list[str]:
        (tmp / "cluster.toml").write_text(body)
        return ["replay", "--cluster", str(tmp / "cluster.toml")]
    return build


def _drop_lines(rel: str, pattern: str, fmt: str = "") -> Callable[[Path, Path], list[str]]:
    def build(tmp: Path, data: Path) -> list[str]:
        raw = (data / rel).read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        lines = raw.decode("utf-8").splitlines(keepends=True)
        kept = [ln for ln in lines if not _matches(ln, pattern)]
        out = tmp / Path(rel).name.removesuffix(".gz")
        out.write_text("".join(kept))
        return ["replay", str(out), "--json"]
    return build


def _matches(line: str, pattern: str) -> bool:
    import re

    return re.search(pattern, line) is not None


def _finish_before_start(job: dict) -> None:
    job["finishTime"] = job["submitTime"] - 1000


def _huge_times(job: dict) -> None:
    for task in job["mapTasks"]:
        for a in task["attempts"]:
            a["finishTime"] = 1e300
        task["finishTime"] = 1e300


# ------------------------------------------------------------------------------ stores, strict, sweeps, XML

_DISPATCH = "rumen/small-trace-test/dispatch-sample-v20-jt-log.gz"
_COUNTERS = "rumen/small-trace-test/counters-format-test-logs"


def _store(tmp: Path, data: Path, *inputs: str) -> Path:
    """A trace store profiled in-process from real logs (the setup step of a store case)."""
    from mrsim.cli import main

    store = tmp / "store"
    rc = main(["profile", *(str(data / i) for i in inputs), "-o", str(store), "--quiet", "--json"])
    assert rc == 0, "profile of the real logs failed"
    return store


def _manifest_edit(edit: Callable[[dict], None]) -> Callable[[Path, Path], list[str]]:
    def build(tmp: Path, data: Path) -> list[str]:
        import contextlib
        import io

        with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO())):
            store = _store(tmp, data, _DISPATCH)
        from mrsim.io.sealed_json import seal, unseal

        manifest = unseal((store / "manifest.json").read_bytes())
        edit(manifest)
        # Sealed again, as a writer who knows the format would: what is refused is the content, not the checksum.
        (store / "manifest.json").write_bytes(seal(manifest, indent=True))
        return ["replay", str(store)]
    return build


def _store_then(action: Callable[[Path, Path, Path], list[str]]) -> Callable[[Path, Path], list[str]]:
    def build(tmp: Path, data: Path) -> list[str]:
        import contextlib
        import io

        with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO())):
            store = _store(tmp, data, _DISPATCH)
        return action(tmp, data, store)
    return build


def _flip_bit(tmp: Path, data: Path, store: Path) -> list[str]:
    manifest = json.loads((store / "manifest.json").read_text())
    array = store / manifest["data"] / "map_durations.npy"
    raw = bytearray(array.read_bytes())
    raw[-3] ^= 0x10  # a bit of the last duration's exponent: still a valid, wrong, number
    array.write_bytes(bytes(raw))
    return ["replay", str(store)]


def _profile_into_corrupt(tmp: Path, data: Path, store: Path) -> list[str]:
    _flip_bit(tmp, data, store)
    return ["profile", str(data / _COUNTERS), "-o", str(store), "--quiet"]


def _profile_without_manifest(tmp: Path, data: Path, store: Path) -> list[str]:
    (store / "manifest.json").unlink()
    return ["profile", str(data / _COUNTERS), "-o", str(store), "--quiet"]


def _store_missing_data(tmp: Path, data: Path, store: Path) -> list[str]:
    import shutil

    manifest = json.loads((store / "manifest.json").read_text())
    shutil.rmtree(store / manifest["data"])
    return ["replay", str(store)]


def _mixed_years(tmp: Path, data: Path) -> list[str]:
    import contextlib
    import io

    with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO())):
        store = _store(tmp, data, _DISPATCH, _COUNTERS)
    return ["replay", str(store)]


def _strict_mixed_years(tmp: Path, data: Path) -> list[str]:
    return ["--strict", *_mixed_years(tmp, data)]


def _sweep_huge(tmp: Path, data: Path) -> list[str]:
    spec = tmp / "sweep.toml"
    spec.write_text('replications = 1000000000\n[[workloads]]\ngenerator = "fb2009"\njobs = 10\n'
                    '[[schedulers]]\nname = "fifo"\n')
    return ["sweep", str(spec), "-o", str(tmp / "r.parquet"), "--dry-run"]


def _xml(body: str, flag: str = "--mapred-site") -> Callable[[Path, Path], list[str]]:
    def build(tmp: Path, data: Path) -> list[str]:
        (tmp / "conf.xml").write_text(body)
        return ["replay", flag, str(tmp / "conf.xml")]
    return build


_XXE = ('<?xml version="1.0"?><!DOCTYPE c [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        "<configuration><property><name>mapred.tasktracker.map.tasks.maximum</name><value>&x;</value></property>"
        "</configuration>")
_LAUGHS = ('<?xml version="1.0"?><!DOCTYPE c [<!ENTITY a "aaaaaaaaaa">' + "".join(
    f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(9)) + "]>"
    "<configuration><property><name>x</name><value>&j;</value></property></configuration>")
_SLOTS_INF = ("<configuration><property><name>mapred.reduce.slowstart.completed.maps</name><value>Infinity</value>"
              "</property></configuration>")


SEED_FLAGS = [
    Case("seed-negative", lambda t, d: ["replay", "--seed", "-1"], "usage", "--seed", needs_data=False),
    Case("heartbeat-inf", lambda t, d: ["replay", "--heartbeat-interval", "inf"], "usage", "--heartbeat-interval", needs_data=False),
    Case("heartbeat-nan", lambda t, d: ["replay", "--heartbeat-interval", "nan"], "usage", "--heartbeat-interval", needs_data=False),
    Case("nodes-huge", lambda t, d: ["replay", "--nodes", "10000000000"], "usage", "--nodes", needs_data=False),
    Case("map-slots-huge", lambda t, d: ["replay", "--map-slots", "1000000000"], "usage", "--map-slots", needs_data=False),
    Case("nodes-zero", lambda t, d: ["replay", "--nodes", "0"], "usage", "--nodes", needs_data=False),
    Case("slowstart-nan", lambda t, d: ["replay", "--slowstart", "nan"], "usage", "--slowstart", needs_data=False),
    Case("slowdown-inf", lambda t, d: ["replay", "--rack-local-slowdown", "inf"], "usage", "--rack-local-slowdown", needs_data=False),
    Case("synth-jobs-huge", lambda t, d: ["synth", "--jobs", str(10**12), "-o", str(t / "x.json.gz")], "usage", "--jobs", needs_data=False),
]

CASES: list[Case] = [
    *SEED_FLAGS,
    Case("rumen-nan", _raw_rumen(lambda s: s.replace('"finishTime" : 1285322658262', '"finishTime" : NaN', 1)), "error", "finishTime"),
    Case("rumen-infinity", _raw_rumen(lambda s: s.replace('"finishTime" : 1285322658262', '"finishTime" : Infinity', 1)), "error", "finishTime"),
    Case("rumen-maptasks-string", _mutated_rumen(_set(("mapTasks",), "three")), "error", "mapTasks"),
    Case("rumen-maptasks-object", _mutated_rumen(_set(("mapTasks",), {"a": 1})), "error", "mapTasks"),
    Case("rumen-attempts-number", _mutated_rumen(_set(("mapTasks", 0, "attempts"), 7)), "error", "attempts"),
    Case("rumen-preferred-string", _mutated_rumen(_set(("mapTasks", 0, "preferredLocations"), "host1")), "error", "preferredLocations"),
    Case("rumen-huge-int", _raw_rumen(lambda s: s.replace('"finishTime" : 1285322658262', '"finishTime" : ' + "9" * 5000, 1)), "error", "finishTime"),
    Case("rumen-deep-nesting", _deep_json, "error", "nest"),
    Case("rumen-finish-before-start", _mutated_rumen(_finish_before_start), "warn", "finish"),
    Case("rumen-huge-times", _mutated_rumen(_huge_times), "error", "finishTime"),
    Case("trace-directory-empty", lambda t, d: (t / "empty").mkdir() or ["replay", str(t / "empty")], "error", "empty"),
    Case("trace-unreadable", _unreadable, "error", "permission"),  # skipped as root (root reads anything)
    Case("trace-fifo", _fifo, "error", "not a regular file"),
    Case("trace-dev-zero", lambda t, d: ["replay", "/dev/zero"], "error", "not a regular file", needs_data=False),
    Case("topology-fifo", _fifo_topology, "error", "not a regular file"),
    Case("topology-gzip-garbage", _gzip_garbage_topology, "error", "topo.json.gz"),
    Case("toml-deep-nesting", _deep_toml, "error", "cluster.toml"),
    Case("cluster-nan", _cluster_toml("[[racks]]\nname = \"r\"\ncount = 2\nmap_slots = nan\nreduce_slots = 1\n"), "error", "map_slots"),
    Case("cluster-huge-count", _cluster_toml("[[racks]]\nname = \"r\"\ncount = 1000000000000\nmap_slots = 1\nreduce_slots = 1\n"), "error", "count"),
    Case("sls-huge-count", _sls(_sls_huge_count), "error", "count"),
    Case("sls-no-start", _sls(_sls_no_start), "warn", "job.start.ms"),
    Case("jobspec-huge-maps", _jobspec_huge, "error", "maps", needs_data=False),
    Case("v20-missing-attempts", _drop_lines("rumen/small-trace-test/v20-single-input-log.gz", r'^MapAttempt .*TASKID="task_200904211745_0002_m_000003"'), "warn", "no attempt"),
    Case("store-manifest-escapes", _manifest_edit(lambda m: m.update(data="../../../etc")), "error", "inside the store"),
    Case("store-manifest-data-type", _manifest_edit(lambda m: m.update(data=7)), "error", "manifest"),
    Case("store-data-missing", _store_then(_store_missing_data), "error", "missing"),
    Case("store-flipped-bit", _store_then(_flip_bit), "error", "checksum mismatch"),
    Case("profile-into-corrupt-store", _store_then(_profile_into_corrupt), "error", "checksum mismatch"),
    Case("profile-store-without-manifest", _store_then(_profile_without_manifest), "error", "will not modify"),
    Case("store-mixed-years", _mixed_years, "warn", "gap of 295 days"),
    Case("strict-turns-warning-into-error", _strict_mixed_years, "error", "--strict"),
    Case("sweep-dry-run-huge", _sweep_huge, "error", "replications", needs_data=False),
    Case("xml-external-entity", _xml(_XXE), "error", "conf.xml", needs_data=False),
    Case("xml-entity-expansion", _xml(_LAUGHS), "error", "conf.xml", needs_data=False),
    Case("xml-infinite-value", _xml(_SLOTS_INF), "error", "finite", needs_data=False),
    Case("xml-fifo", lambda t, d: (os.mkfifo(t / "site.xml"), ["replay", "--mapred-site", str(t / "site.xml")])[1],
         "error", "not a regular file", needs_data=False),
    Case("swim-huge-bytes", lambda t, d: (t / "w.tsv").write_text("job0\t0\t10\t1e300\t100\t100\njob1\t5\t10\t1000\t1\t1\n")
         and ["replay", str(t / "w.tsv")], "error", "map input bytes", needs_data=False),
    Case("swim-too-many-maps", lambda t, d: (t / "w.tsv").write_text("job0\t0\t10\t1e17\t100\t100\n")
         and ["replay", str(t / "w.tsv")], "error", "tasks_per_job", needs_data=False),
    Case("jhist-missing-attempts", _drop_lines("jhist/mapreduce-client-hs/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist", r'"type":"MAP_ATTEMPT_(STARTED|FINISHED)"'), "warn", "no attempt"),
]


class Hang(Exception):
    """Raised by the alarm when an in-process run exceeds its time limit."""


def run_in_process(argv: list[str], timeout: float) -> tuple[int | None, str]:
    """``(exit code, stderr)`` of ``mrsim.cli.main(argv)`` in this process; code None on a hang (SIGALRM
    interrupts even a blocking ``open`` of a FIFO). A traceback is returned as stderr text, as a user sees it."""
    import contextlib
    import io
    import signal
    import traceback

    from mrsim.cli import main

    def on_alarm(signum, frame):
        raise Hang()

    err = io.StringIO()
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # commands write JSON to sys.stdout.buffer
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            try:
                code: int | None = main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except Hang:
                code = None
            except Exception:  # noqa: BLE001  (what the user would see as a traceback)
                err.write("Traceback (most recent call last):\n" + traceback.format_exc())
                code = 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return code, err.getvalue()


def run_subprocess(argv: list[str], timeout: float, cwd: Path) -> tuple[int | None, str]:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    try:
        proc = subprocess.run([sys.executable, "-m", "mrsim", *argv], capture_output=True, text=True, timeout=timeout,
                              env=env, cwd=cwd, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, ""
    return proc.returncode, proc.stderr


def classify(case: Case, tmp: Path, data: Path | None, timeout: float = 20.0,
             in_process: bool = False) -> tuple[str, str]:
    """(verdict, detail): pass, traceback, hang, wrong-exit, wrong-text."""
    argv = case.build(tmp, data or Path("/nonexistent"))
    code, err = run_in_process(argv, timeout) if in_process else run_subprocess(argv, timeout, tmp)
    if code is None:
        return "hang", f"no exit in {timeout} s"
    if "Traceback" in err or "Fatal Python error" in err:
        return "traceback", err.strip().splitlines()[-1][:200]
    want = {"usage": 2, "error": 1, "warn": 0, "ok": 0}[case.expect]
    if code != want:
        return "wrong-exit", f"rc={code} {err.strip()[:200]}"
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if case.expect in ("usage", "error"):
        errors = [ln for ln in lines if ln.startswith("mrsim: error:") or ln.startswith("mrsim ") and "error:" in ln]
        if len(errors) != 1 or case.text.lower() not in errors[0].lower():
            return "wrong-text", err.strip()[:300]
    if case.expect == "warn":
        if not any("warning" in ln and case.text.lower() in ln.lower() for ln in lines):
            return "wrong-text", err.strip()[:300]
    return "pass", (lines[0] if lines else "")[:200]


def main() -> int:
    import tempfile

    data = shared_data()
    bad = 0
    for case in CASES:
        if case.needs_data and data is None:
            print(f"{case.name:32s} SKIP (no shared data)")
            continue
        if case.name == "trace-unreadable" and os.geteuid() == 0:
            print(f"{case.name:32s} SKIP (running as root)")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            verdict, detail = classify(case, Path(tmp), data)
            (Path(tmp) / "trace.json").exists() and (Path(tmp) / "trace.json").chmod(0o600)
        bad += verdict != "pass"
        print(f"{case.name:32s} {verdict:11s} {detail}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
