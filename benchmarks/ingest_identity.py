"""Digests of the one-pass ingest, to show that an ingest change leaves everything the pass derives unchanged.

For every log or trace under ``$MRSIM_SHARED_DATA`` (or ``../shared/data``) that the trace cache handles (Rumen,
JobHistory, ``.jhist``, SLS; not SWIM files or stores) and for a synthetic trace (``mrsim synth --jobs 300 --seed
7``, or ``--trace FILE``), it runs the pass (:func:`mrsim.profiler.ingest._read`) in this process and
hashes every field of the result: the templates, the warnings in their order, the hosts, the observations, the
job-conf counts, the calibration (its TOML too), the background's waits and usage columns, the input report.
``--save FILE`` writes the digests; ``--check FILE`` compares with a saved set and exits 1 on any difference.
Run it at the commit before a change with ``--save`` and after it with ``--check`` (an older tree: ``PYTHONPATH=DIR``
from outside the repository); fields the saved set lacks (a pass that now derives more) are listed and not
compared. Not a timing.

Usage: ``python3 benchmarks/ingest_identity.py --save before.json`` then ``--check before.json``
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np


def _digest(value: Any, path: str) -> str:
    """A hash of ``value``, with the input's path written as ``<input>`` (the same bytes read from elsewhere)."""
    h = hashlib.sha256()

    def feed(v: Any) -> None:
        if isinstance(v, str):
            h.update(repr(v.replace(path, "<input>")).encode())
        elif isinstance(v, np.ndarray):
            h.update(v.dtype.str.encode())
            h.update(np.ascontiguousarray(v).tobytes())
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            for f in dataclasses.fields(v):
                h.update(f.name.encode())
                feed(getattr(v, f.name))
        elif isinstance(v, dict):
            for k, w in v.items():
                feed(k)
                feed(w)
        elif isinstance(v, (list, tuple)):
            h.update(b"[")
            for w in v:
                feed(w)
            h.update(b"]")
        elif isinstance(v, (set, frozenset)):
            feed(sorted(v, key=repr))
        else:
            h.update(repr(v).encode())

    feed(value)
    return h.hexdigest()[:16]


def _inputs(shared: Path, synthetic: Path) -> list[Path]:
    found = [synthetic]
    if shared.exists():
        for p in sorted(shared.rglob("*")):
            if p.name.startswith(".") or p.name.endswith((".xml", ".txt", ".crc")):
                continue
            if p.is_file() or (p.is_dir() and any(c.is_file() for c in p.iterdir())):
                found.append(p)
    return found


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", type=Path)
    group.add_argument("--check", type=Path)
    ap.add_argument("--trace", type=Path, help="the synthetic trace to use (default: written with mrsim synth)")
    args = ap.parse_args()
    if "mrsim" not in sys.modules and not os.environ.get("PYTHONPATH"):
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from mrsim.profiler.ingest import _format, _read, cacheable

    repo = Path(__file__).resolve().parents[1]
    shared = Path(os.environ.get("MRSIM_SHARED_DATA") or repo.parent / "shared" / "data")
    with tempfile.TemporaryDirectory() as tmp:
        synthetic = args.trace
        if synthetic is None:
            from mrsim.cli import main as cli

            synthetic = Path(tmp) / "synthetic.json.gz"
            cli(["synth", "--jobs", "300", "--seed", "7", "-o", str(synthetic), "--quiet"])
        digests: dict[str, Any] = {}
        for p in _inputs(shared, synthetic):
            name = "synthetic" if p == synthetic else str(p.relative_to(shared))
            try:
                if not cacheable(p, None):
                    continue
                result = _read(p, _format(p, None))
            except Exception as exc:  # noqa: BLE001 - a refused input is a result too: its message
                digests[name] = f"error: {str(exc).replace(str(p), '<input>')[:200]}"
                continue
            fields = {f.name: _digest(getattr(result, f.name), str(p)) for f in dataclasses.fields(result)
                      if f.name != "cache"}
            if result.calibration is not None:
                fields["calibration_toml"] = _digest(result.calibration.to_toml(), str(p))
            digests[name] = fields
    if args.save:
        args.save.write_text(json.dumps(digests, indent=1, sort_keys=True))
        print(f"{len(digests)} inputs digested into {args.save}")
        return
    saved = json.loads(args.check.read_text())
    # A field the saved set does not have is new in this tree (a pass that derives more): listed, not compared.
    added = sorted({k for name, new in digests.items() if isinstance(new, dict) and isinstance(saved.get(name), dict)
                    for k in set(new) - set(saved[name])})
    if added:
        print(f"new fields (not in {args.check}, not compared): {', '.join(added)}")
        for name, new in digests.items():
            if isinstance(new, dict) and isinstance(saved.get(name), dict):
                digests[name] = {k: v for k, v in new.items() if k in saved[name]}
    differ = [name for name in sorted(set(saved) | set(digests)) if saved.get(name) != digests.get(name)]
    for name in differ:
        old, new = saved.get(name), digests.get(name)
        if isinstance(old, dict) and isinstance(new, dict):
            print(f"DIFFERENT {name}: {sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))}")
        else:
            print(f"DIFFERENT {name}: {old!r} -> {new!r}")
    print(f"{len(digests)} inputs, {len(differ)} differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
