"""Load what-ifs on a workload's submit times: scale the arrival rate, or fold the trace as Hadoop Rumen's
``Folder`` does (``org.apache.hadoop.tools.rumen.Folder``, options ``-output-duration``, ``-input-cycle``,
``-concentration``, ``-seed``).

Every transform is a pure function of the job templates (and a seed): it returns a new :class:`Workload` and
leaves its argument alone. Only submit times change (and, for copies made by ``concentration``, the job id);
task durations, deadlines (relative to submission) and the rest of each template are kept.

**Load scale** (:func:`scale_load`): ``F`` times the load. The first submission is the origin ``t0``; a job
submitted at ``t`` moves to ``t0 + (t - t0) / F``, so every inter-arrival gap is multiplied by ``1 / F`` (F = 2:
gaps halved, twice the arrival rate).

**Folding** (:func:`fold`), following ``Folder.run`` / ``Folder.adjustJobTimes`` / ``Folder.maybeOutput``:

* ``t0`` is the first submission, ``t_last`` the last, ``N`` the number of jobs, ``C`` the input cycle, ``D`` the
  output duration (s). The trace is cut into cycles ``[t0 + kC, t0 + (k+1)C)``; all cycles are overlaid onto one,
  and the overlay is stretched to ``D``: a job at offset ``o = (t - t0) mod C`` in its cycle is submitted at
  ``t0 + o x D / C`` (the time dilation ``D / C``).
* The folding ratio is ``(t_last - t0) x (N + 1) / N / C`` (about the number of cycles overlaid); each job is
  transcribed ``p = (D / C) x concentration / folding ratio`` times on average: ``floor(p)`` copies, plus one
  more with probability ``p - floor(p)``. A probability below 1 skips jobs, above 1 duplicates them. With
  concentration 1, ``p`` is about ``D / (t_last - t0)``: the folded trace keeps the input's arrival rate (jobs
  per second); concentration X multiplies that rate by X.
* Random draws: one uniform [0, 1) per job, in the folded submit order (ties: original submit order, then job
  id), from ``mrsim.rng.stream(seed, "folder-transcription")`` (Folder: one ``Random.nextDouble`` per job in its
  heap order). The k-th copy (k >= 2) of a job is named ``<id>#k``, the convention for repeated job ids.
* Errors, as Folder's: an empty trace, a trace whose jobs all share one submit time, a non-positive cycle,
  duration or concentration. Differences from Folder: times stay in seconds with fractions (Folder truncates to
  whole milliseconds), and ``-starts-after``, ``-skew-buffer-length`` and ``-allow-missorting`` have no
  counterpart (templates are always sorted).

**Concentration alone** (no cycle): Folder needs an input cycle; mrsim then takes ``C = D = (t_last - t0) x
(N + 1) / N``, the cycle for which the folding ratio is 1 and the fold leaves every time where it is, so ``p`` is
exactly the concentration.

When more than one is given, the fold runs first (on the trace's own clock, as Folder would on the file) and the
load scale applies to the folded trace. Cost: O(jobs log jobs) plus one template copy per job emitted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from mrsim.errors import InputError, OptionError
from mrsim.model.templates import JobTemplate, Workload
from mrsim.rng import stream

#: Folder's default ``-output-duration``: one hour (``Folder.initialize``).
FOLDER_DEFAULT_DURATION_S = 3600.0
#: The named random stream of the transcription draws (:func:`mrsim.rng.stream`).
TRANSCRIPTION_STREAM = "folder-transcription"


@dataclass(frozen=True)
class LoadWhatIf:
    """The load what-if of a run. ``None`` fields are not applied; ``defaulted`` names fields mrsim chose.

    ``load_scale`` (> 0): F times the arrival rate. ``duration_s`` / ``input_cycle_s`` (> 0, s): Folder's
    ``-output-duration`` / ``-input-cycle``. ``concentration`` (> 0): Folder's ``-concentration``.
    """

    load_scale: float | None = None
    duration_s: float | None = None
    input_cycle_s: float | None = None
    concentration: float | None = None
    seed: int = 0

    @property
    def folds(self) -> bool:
        return self.duration_s is not None or self.input_cycle_s is not None or self.concentration is not None

    @property
    def active(self) -> bool:
        return self.folds or self.load_scale is not None


def check_load_what_if(what: LoadWhatIf, where: str = "") -> None:
    """Every given value positive and finite; ``duration`` needs ``input_cycle`` (Folder's rule)."""
    prefix = f"{where}: " if where else ""
    for name, value in (("load_scale", what.load_scale), ("duration", what.duration_s),
                        ("input_cycle", what.input_cycle_s), ("concentration", what.concentration)):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise OptionError(f"{prefix}{{{name}}} must be a positive number, got {value:g}")
    if what.duration_s is not None and what.input_cycle_s is None:
        raise OptionError(f"{prefix}{{duration}} D folds the trace into D seconds by cycles of {{input_cycle}} C "
                          "seconds: give {input_cycle} too (Rumen's Folder has no default cycle)")


def scale_load(workload: Workload, factor: float) -> Workload:
    """``factor`` times the load: gaps multiplied by ``1 / factor``, the first submission kept (module docstring).

    ``factor`` 1 returns ``workload`` itself. Cost: O(jobs).
    """
    if not (math.isfinite(factor) and factor > 0):
        raise OptionError(f"{{load_scale}} must be a positive number, got {factor:g}")
    if factor == 1.0 or len(workload) == 0:
        return workload
    origin = workload.origin_s
    jobs = [j.with_changes(submit_s=origin + (j.submit_s - origin) / factor) for j in workload]
    return Workload.of(jobs, source=workload.source, warnings=workload.warnings)


@dataclass(frozen=True)
class Fold:
    """What :func:`fold` did: its parameters and derived figures, for ``spec.load`` and the stderr line."""

    duration_s: float
    input_cycle_s: float
    concentration: float
    folding_ratio: float
    transcription_probability: float
    jobs_in: int
    jobs_out: int
    skipped: int
    duplicated: int


def _span(workload: Workload) -> tuple[float, float, int]:
    if len(workload) == 0:
        raise InputError(f"{workload.source or 'workload'}: the trace has no jobs to fold")
    first, last = workload.jobs[0].submit_s, workload.jobs[-1].submit_s
    if last <= first:
        raise InputError(f"{workload.source or 'workload'}: every job has the same submit time; folding needs a "
                         "trace that spans some time (Rumen's Folder refuses it too)")
    return first, last, len(workload)


def identity_cycle_s(workload: Workload) -> float:
    """The cycle for which Folder's folding ratio is 1: ``(t_last - t0) x (N + 1) / N`` (s)."""
    first, last, n = _span(workload)
    return (last - first) * (n + 1) / n


def fold(workload: Workload, duration_s: float, input_cycle_s: float, concentration: float = 1.0,
         seed: int = 0) -> tuple[Workload, Fold]:
    """Fold ``workload`` into ``duration_s`` seconds by overlaying cycles of ``input_cycle_s`` seconds, each job
    transcribed with Folder's probability (module docstring). Returns the folded workload and a :class:`Fold`.
    """
    for name, value in (("duration", duration_s), ("input cycle", input_cycle_s), ("concentration", concentration)):
        if not (math.isfinite(value) and value > 0):
            raise InputError(f"the {name} of a fold must be a positive number, got {value:g}")
    first, last, n = _span(workload)
    dilation = duration_s / input_cycle_s
    folding_ratio = (last - first) * (n + 1) / n / input_cycle_s
    probability = dilation * concentration / folding_ratio
    whole = math.floor(probability)
    fraction = probability - whole
    placed = sorted(((first + ((j.submit_s - first) % input_cycle_s) * dilation, i) for i, j in
                     enumerate(workload.jobs)))
    draws = stream(seed, TRANSCRIPTION_STREAM).random(len(placed))
    out: list[JobTemplate] = []
    skipped = duplicated = 0
    for (submit, i), u in zip(placed, draws):
        copies = whole + (1 if u < fraction else 0)
        job = workload.jobs[i]
        if copies == 0:
            skipped += 1
        elif copies > 1:
            duplicated += 1
        for k in range(copies):
            out.append(job.with_changes(submit_s=submit, job_id=job.job_id if k == 0 else f"{job.job_id}#{k + 1}"))
    if not out:
        raise OptionError(f"{workload.source or 'workload'}: the fold kept no job (transcription probability "
                         f"{probability:.4g}); raise {{concentration}} or {{duration}}")
    folded = Workload.of(out, source=workload.source, warnings=workload.warnings)
    return folded, Fold(duration_s, input_cycle_s, concentration, folding_ratio, probability, n, len(out), skipped,
                        duplicated)


def apply_load_what_if(workload: Workload, what: LoadWhatIf) -> tuple[Workload, dict[str, Any] | None, list[str]]:
    """Apply ``what`` to ``workload``: ``(workload, spec.load or None, notes)``. The notes are the one stderr
    line describing the change and, when mrsim chose a value, the line saying so. Unchanged without a what-if."""
    if not what.active:
        return workload, None, []
    check_load_what_if(what)
    record: dict[str, Any] = {"jobs_in": len(workload)}
    parts: list[str] = []
    notes: list[str] = []
    if what.folds:
        cycle, duration = what.input_cycle_s, what.duration_s
        if cycle is None:  # concentration alone: the identity cycle (module docstring)
            cycle = duration = identity_cycle_s(workload)
            notes.append(f"mrsim: note: --concentration without --input-cycle: cycle = output duration = "
                         f"{cycle:g} s (the trace's span x (N + 1) / N), so the fold moves no job")
        elif duration is None:
            duration = FOLDER_DEFAULT_DURATION_S
            notes.append(f"mrsim: note: --input-cycle without --duration: output duration {duration:g} s "
                         "(Rumen Folder's default -output-duration 1h)")
        concentration = 1.0 if what.concentration is None else what.concentration
        workload, done = fold(workload, duration, cycle, concentration, what.seed)
        record["fold"] = {"duration_s": done.duration_s, "input_cycle_s": done.input_cycle_s,
                          "concentration": done.concentration, "folding_ratio": round(done.folding_ratio, 9),
                          "transcription_probability": round(done.transcription_probability, 9),
                          "seed": what.seed, "skipped": done.skipped, "duplicated": done.duplicated}
        parts.append(f"folded into {done.duration_s:g} s by cycles of {done.input_cycle_s:g} s (concentration "
                     f"{done.concentration:g}, folding ratio {done.folding_ratio:.3f}, each job kept "
                     f"{done.transcription_probability:.3f} times on average, seed {what.seed}: {done.skipped} "
                     f"skipped, {done.duplicated} duplicated)")
    if what.load_scale is not None:
        workload = scale_load(workload, what.load_scale)
        record["load_scale"] = what.load_scale
        parts.append(f"load x{what.load_scale:g} (inter-arrival gaps x{1 / what.load_scale:g}, first submission "
                     "kept)")
    record["jobs_out"] = len(workload)
    span = workload.jobs[-1].submit_s - workload.jobs[0].submit_s if len(workload) else 0.0
    record["submit_span_s"] = round(span, 9)
    notes.insert(0, f"mrsim: note: load what-if: {'; then '.join(parts)}: {record['jobs_in']} jobs -> "
                    f"{record['jobs_out']} jobs submitted over {span:g} s")
    return workload, record, notes
