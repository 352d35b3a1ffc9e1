"""How many jobs of the real Rumen traces the typed decoder takes, per file, against how many are plain.

For every Rumen trace under ``$MRSIM_SHARED_DATA`` (or ``../shared/data``) it reads the jobs as the one-pass ingest
does (:func:`mrsim.profiler.rumen.iter_rumen_jobs` with ``typed=True``) and counts the jobs read, those that came as a
:class:`mrsim.profiler.typed.TypedJob` (decoded into columns, no task dicts) and those that are *plain* at all (a
``TypedJob`` or a dict that :func:`mrsim.profiler.plain.plain_job` accepts: the most the typed decoder could take).
A plain job the typed decoder leaves to the dicts is listed with the reason ``msgspec`` gives for the last schema
it tried. Not a timing; the ``docs/performance.md`` figures ("Checks that are not timings") come from it.

Usage: ``python3 benchmarks/typed_coverage.py [--quiet]`` (``--quiet``: the totals only)
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    ap.add_argument("--quiet", action="store_true", help="print the totals only")
    args = ap.parse_args()
    if "mrsim" not in sys.modules and not os.environ.get("PYTHONPATH"):
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import msgspec
    import orjson

    from mrsim.profiler.ingest import _format, cacheable
    from mrsim.profiler import typed
    from mrsim.profiler.detect import Format
    from mrsim.profiler.plain import plain_job
    from mrsim.profiler.rumen import iter_rumen_jobs

    repo = Path(__file__).resolve().parents[1]
    shared = Path(os.environ.get("MRSIM_SHARED_DATA") or repo.parent / "shared" / "data")
    totals = [0, 0, 0, 0]
    for path in sorted(shared.rglob("*")):
        if not path.is_file() or path.name.startswith(".") or path.name.endswith((".xml", ".txt", ".crc")):
            continue
        try:
            if not cacheable(path, None) or _format(path, None) is not Format.RUMEN:
                continue
            jobs = list(iter_rumen_jobs(path, typed=True))
        except Exception as exc:  # noqa: BLE001 - a refused input is listed, not counted
            if not args.quiet:
                print(f"{path.relative_to(shared)}: not read ({str(exc)[:80]})")
            continue
        taken = sum(type(job) is typed.TypedJob for job in jobs)
        left = [job for job in jobs if type(job) is not typed.TypedJob and plain_job(job) is not None]
        plain = taken + len(left)
        for i, value in enumerate((1, len(jobs), taken, plain)):
            totals[i] += value
        if args.quiet:
            continue
        print(f"{str(path.relative_to(shared)):<62} jobs {len(jobs):5d}  typed {taken:5d}  plain {plain:5d}")
        for job in left:
            try:
                getattr(typed, "_LOCATED", typed._RUMEN).decode(orjson.dumps(job))  # an older tree: two schemas
                reason = "a job-level value or the columns' check"
            except msgspec.ValidationError as exc:
                reason = str(exc)
            print(f"    left to the dicts: {job.get('jobID')}: {reason[:100]}")
    files, jobs_read, taken, plain = totals
    share = f"{taken / plain:.0%}" if plain else "-"
    print(f"{files} Rumen traces: {jobs_read} jobs, {plain} plain, {taken} typed ({share} of the plain jobs)")


if __name__ == "__main__":
    main()
