"""Digests of replay results, to show that an engine change leaves every result unchanged.

For every real trace under ``$MRSIM_SHARED_DATA`` (or ``../shared/data``; SWIM files cut to 300 jobs) and for
synthetic workloads of the benchmarks (back-to-back and spread arrivals, 64 to 2,000 nodes), under FIFO, Fair and
Capacity, it replays in this process and hashes the ``--json`` object (``ReplayResult.to_json_dict``) without the
fields that count the engine's own work (``events``, ``heartbeats``, ``wall_s``, ``events_per_s``, and the Fair
Scheduler's ``spec.scheduler.updates``: how many lazy ``update()`` calls the emulation ran) together with
the per-task table. ``--save FILE`` writes the digests; ``--check FILE`` compares with a saved set and exits 1 on
any difference. Run it at the commit before a change with ``--save`` and after it with ``--check``.

Usage: ``python3 benchmarks/wake_identity.py --save before.json`` then ``--check before.json``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mrsim.tracker.replay import ReplayOptions, replay  # noqa: E402
from mrsim.tracker.scheduling import create_scheduler  # noqa: E402
from mrsim.errors import InputError  # noqa: E402
from mrsim.profiler.detect import Format, detect_format  # noqa: E402
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload  # noqa: E402
from mrsim.profiler.workloads import load_workload  # noqa: E402
from mrsim.model.cluster import uniform_cluster  # noqa: E402
from mrsim.model.hadoop_conf import HadoopConf  # noqa: E402

# Bounded wake-ups forced on where the option exists (its default applies them from 1,000 trackers only).
FORCE = {"bounded_wakes": True} if "bounded_wakes" in ReplayOptions.__dataclass_fields__ else {}
ENGINE_WORK = ("events", "heartbeats", "wall_s", "events_per_s")
SCHEDULERS = ("fifo", "fair", "capacity")


def digest(result) -> str:  # type: ignore[no-untyped-def]
    doc = result.to_json_dict()
    doc["summary"] = dict(doc["summary"])
    for key in ENGINE_WORK:
        doc["summary"].pop(key, None)
    doc["spec"] = dict(doc["spec"])
    doc["spec"]["scheduler"] = {k: v for k, v in doc["spec"]["scheduler"].items() if k != "updates"}
    h = hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode())
    h.update(result.tasks.to_csv(index=False).encode())
    return h.hexdigest()[:16]


def shared_data() -> Path:
    import os

    env = os.environ.get("MRSIM_SHARED_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "data"


def cases(real: bool, synthetic: bool):  # type: ignore[no-untyped-def]
    if real and shared_data().exists():
        root = shared_data()
        for path in sorted(root.rglob("*")):
            if not path.is_file() or path.name.endswith((".xml", ".txt", ".text.gz")):
                continue
            try:
                fmt = detect_format(path)
                workload = load_workload(path)
            except InputError:
                continue
            if fmt is Format.SWIM:
                workload = type(workload).of(workload.jobs[:300], source=workload.source)
            yield str(path.relative_to(root)), workload, uniform_cluster(40, 2, 2)
    if synthetic:
        for jobs, gap, nodes, slots in ((300, 0.0, 64, 1), (300, 30.0, 64, 2), (200, 5.0, 1000, 1), (150, 2.0, 2000, 2)):
            w = facebook_like_workload(FacebookLikeSpec(jobs=jobs, seed=5, mean_interarrival_s=gap))
            yield f"synth jobs={jobs} gap={gap} nodes={nodes}x{slots}", w, uniform_cluster(nodes, slots, slots, cores=4)


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    ap.add_argument("--save", type=Path)
    ap.add_argument("--check", type=Path)
    ap.add_argument("--no-real", action="store_true")
    ap.add_argument("--no-synthetic", action="store_true")
    args = ap.parse_args()
    found: dict[str, str] = {}
    for name, workload, cluster in cases(not args.no_real, not args.no_synthetic):
        for sched in SCHEDULERS:
            try:
                result = replay(workload, cluster, HadoopConf(), create_scheduler(sched), ReplayOptions(seed=1, **FORCE))
            except (InputError, RuntimeError) as exc:
                found[f"{name} {sched}"] = f"error: {str(exc)[:60]}"
                continue
            found[f"{name} {sched}"] = digest(result)
            print(f"{found[f'{name} {sched}']}  {name} {sched}  events {result.summary['events']:,}", flush=True)
    if args.save:
        args.save.write_text(json.dumps(found, indent=1, sort_keys=True))
    if args.check:
        saved = json.loads(args.check.read_text())
        bad = [k for k in saved if found.get(k) != saved[k]]
        missing = [k for k in found if k not in saved]
        print(f"{len(saved) - len(bad)} of {len(saved)} digests identical; differ: {bad}; new: {missing}")
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
