"""SWIM ``.tsv`` files read line by line, for streamed replays (``mrsim replay FILE.tsv --stream``).

The same format, checks and templates as :func:`mrsim.profiler.swim.read_swim` + :func:`~mrsim.profiler.swim.swim_to_templates`
(one job per line; :func:`~mrsim.profiler.swim.swim_job_template` builds each template), with two differences that
come from not holding the file:

* lines must be in submit order (the SWIM samples are); a line submitted before the previous one is an error
  naming it, where the whole-file reader sorts;
* the ``tasks`` limit (every task of the file) is not checked: it bounds the memory of a workload held whole; the
  ``tasks_per_job`` limit is checked job by job.

Duplicate job ids are still refused (a set of the ids read so far: about 60 bytes a job). Cost: O(1) memory per
job beyond that set, O(line) time.
"""

from __future__ import annotations

import math
import os
from typing import Iterator

from mrsim.errors import InputError
from mrsim.profiler.swim import SwimTaskModel, swim_job_template, swim_line
from mrsim.io.compressed import open_text
from mrsim.model.streamed import StreamedWorkload
from mrsim.model.templates import JobTemplate


class SwimSource:
    """A SWIM file as the job source of a streamed workload (``mrsim.model.streamed.JobSource``)."""

    def __init__(self, path: str | os.PathLike[str], model: SwimTaskModel = SwimTaskModel()) -> None:
        self.path = os.fspath(path)
        self.model = model
        self.warnings: list[str] = []
        self.total: int | None = None

    def jobs(self) -> Iterator[JobTemplate]:
        return iter_swim_templates(self.path, self.model)


def swim_stream(path: str | os.PathLike[str], model: SwimTaskModel = SwimTaskModel()) -> StreamedWorkload:
    """The workload of ``swim_to_templates(path, model)``, read while the replay runs (same ``source``)."""
    return StreamedWorkload(SwimSource(path, model), os.fspath(path))


def iter_swim_templates(path: str, model: SwimTaskModel = SwimTaskModel()) -> Iterator[JobTemplate]:
    """One template per line, in file order; any malformed or out-of-order line raises :class:`InputError`."""
    from mrsim.io.limits import check_limit, limit

    max_maps = limit("tasks_per_job")  # read once: check_limit reads the environment each call
    split = model.split_bytes
    per_reducer = model.bytes_per_reducer
    max_reducers = int(model.max_reducers)
    seen: set[str] = set()
    last_submit = -math.inf
    last_line = 0
    jobs = 0
    with open_text(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            row = swim_line(line, path, lineno)
            if row is None:
                continue
            jid, submit, inp, shuffle, out = row
            if jid in seen:
                raise InputError(f"{path}:{lineno}: job id {jid!r} repeats an earlier line")
            seen.add(jid)
            if submit < last_submit:
                raise InputError(f"{path}:{lineno}: job {jid} is submitted at {submit:g} s, before line {last_line} "
                                 f"({last_submit:g} s): a streamed SWIM file must be in submit order (replay it "
                                 f"without --stream to sort it)")
            last_submit, last_line = submit, lineno
            # swim_task_counts, one job at a time (the same float operations, so the same counts)
            n_map = max(1, math.ceil(inp / split))
            n_red = 0 if shuffle <= 0 else min(max(math.ceil(shuffle / per_reducer), 1), max_reducers)
            if n_map > max_maps:
                check_limit("tasks_per_job", n_map, f"{path}: job {jid}: maps")
            jobs += 1
            yield swim_job_template(jid, submit, inp, shuffle, out, n_map, n_red, model)
    if not jobs:
        raise InputError(f"{path}: no jobs (empty SWIM file)")
