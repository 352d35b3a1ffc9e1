"""Workload sources of a sweep: a trace file (any format mrsim reads) or a named generator with its parameters.

A :class:`WorkloadSource` is a frozen recipe, cheap to ship to workers; each worker builds (and caches) the
workload itself. Its :meth:`~WorkloadSource.fingerprint` identifies the *content* (a trace's SHA-256, a
generator's parameters), not the path, so moving a trace does not invalidate completed cells.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from mrsim.analysis.sweeps.axes import Model
from mrsim.analysis.sweeps.checks import check_keys, integer, number, string
from mrsim.errors import InputError
from mrsim.profiler.synth import FacebookLikeSpec


class Generator(enum.Enum):
    """Synthetic workload generators a spec can name."""

    FACEBOOK_LIKE = "facebook-like"  # mrsim.profiler.synth.facebook_like_workload (SimMR section V-C)


#: Generator parameters a spec may set (every FacebookLikeSpec field but the seed, which each cell derives).
FACEBOOK_KEYS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(FacebookLikeSpec) if f.name != "seed")
_WHOLE_KEYS = {"jobs", "users"}
#: Lower bounds of the real-valued generator parameters (log-normal means may be any real number).
_MINIMUM = {"mean_interarrival_s": 0.0, "map_sigma": 0.0, "reduce_sigma": 0.0, "reduce_ratio": 0.0,
            "shuffle_fraction": 0.0}


@dataclass(frozen=True)
class WorkloadSource:
    """One workload of a sweep.

    Attributes:
        label: the ``workload`` column value.
        trace: absolute path of the trace (file or log directory), or None for a generator.
        format: forced input format (``rumen``, ``swim``, ...) or None to detect it.
        digest: SHA-256 of the trace's bytes (a directory: of its relative paths and bytes).
        generator / generator_params: the generator and its parameters (sorted ``(key, value)`` pairs).
    """

    label: str
    trace: str | None = None
    format: str | None = None
    digest: str | None = None
    generator: Generator | None = None
    generator_params: tuple[tuple[str, Any], ...] = ()

    def fingerprint(self) -> dict[str, Any]:
        """JSON-ready identity of the content (used in cell ids and seeds)."""
        if self.generator is not None:
            return {"label": self.label, "generator": self.generator.value, "params": dict(self.generator_params)}
        return {"label": self.label, "trace_sha256": self.digest, "format": self.format}

    def facebook_spec(self, seed: int, mean_interarrival_s: float | None = None) -> FacebookLikeSpec:
        """The generator's parameters with this cell's seed (and grid override of the mean inter-arrival)."""
        params = dict(self.generator_params)
        if mean_interarrival_s is not None:
            params["mean_interarrival_s"] = mean_interarrival_s
        return FacebookLikeSpec(seed=seed, **params)

    def describe(self) -> dict[str, Any]:
        """For the sweep's recorded specification."""
        out = self.fingerprint()
        if self.trace:
            out["trace"] = self.trace
        return out


def file_digest(path: Path) -> str:
    """SHA-256 of a file, or of a directory's sorted relative paths and file bytes. Cost: O(bytes), ~1 GB/s."""
    h = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for f in files:
        if f is not path:
            h.update(str(f.relative_to(path)).encode("utf-8") + b"\0")
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def parse_workload(doc: Mapping[str, Any], index: int, model: Model, base: Path, where: str) -> WorkloadSource:
    """Validate one ``[[workloads]]`` entry; relative trace paths are resolved against ``base`` (the spec's dir)."""
    where = f"{where}: workloads[{index}]"
    has_trace, has_gen = "trace" in doc, "generator" in doc
    if has_trace == has_gen:
        raise InputError(f"{where}: give exactly one of trace = PATH or generator = NAME")
    if has_trace:
        return _trace_source(doc, model, base, where)
    return _generator_source(doc, model, where)


def _trace_source(doc: Mapping[str, Any], model: Model, base: Path, where: str) -> WorkloadSource:
    from mrsim.profiler.detect import Format, detect_format

    check_keys(doc, ("label", "trace", "format"), where)
    path = Path(string(doc["trace"], where, "trace")).expanduser()
    path = path if path.is_absolute() else (base / path)
    if not path.exists():
        raise InputError(f"{where}: trace {str(path)!r}: no such file or directory")
    fmt = string(doc["format"], where, "format").lower() if "format" in doc else None
    if fmt is not None and fmt.upper() not in Format.__members__:
        raise InputError(f"{where}: format {fmt!r} is unknown (expected one of {', '.join(f.value for f in Format)})")
    detected = Format[fmt.upper()] if fmt else detect_format(path)
    if model is Model.FLUID and detected is not Format.SWIM:
        raise InputError(f"{where}: the fluid model needs a SWIM trace, {path.name} is {detected.value}")
    label = string(doc["label"], where, "label") if "label" in doc else path.name.split(".")[0]
    return WorkloadSource(label=label, trace=str(path.resolve()), format=fmt, digest=file_digest(path))


def _generator_source(doc: Mapping[str, Any], model: Model, where: str) -> WorkloadSource:
    name = string(doc["generator"], where, "generator")
    try:
        generator = Generator(name.lower())
    except ValueError:
        raise InputError(f"{where}: generator {name!r} is unknown (expected one of "
                         f"{', '.join(g.value for g in Generator)})") from None
    if model is Model.FLUID:
        raise InputError(f"{where}: the fluid model takes SWIM traces, not generator {name!r}")
    check_keys(doc, ("label", "generator", *FACEBOOK_KEYS), where)
    params: dict[str, Any] = {}
    for key in FACEBOOK_KEYS:
        if key in doc:
            if key in _WHOLE_KEYS:
                params[key] = integer(doc[key], where, key, 1)
            else:
                params[key] = number(doc[key], where, key, _MINIMUM.get(key, -float("inf")))
    try:
        FacebookLikeSpec(**params).validate()
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    label = string(doc["label"], where, "label") if "label" in doc else generator.value
    return WorkloadSource(label=label, generator=generator, generator_params=tuple(sorted(params.items())))
