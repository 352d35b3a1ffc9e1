"""The load what-if flags of ``mrsim replay`` and ``mrsim compare`` (:mod:`mrsim.model.load`, docs/what-if-load.md;
applied by :mod:`mrsim.run.load`)."""

from __future__ import annotations

import argparse


def add_load_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("load what-ifs (Rumen Folder's transforms, docs/what-if-load.md)")
    g.add_argument("--load-scale", type=float, metavar="F",
                   help="F times the load: every inter-arrival gap x 1/F, the first submission kept (F = 2: gaps "
                        "halved)")
    g.add_argument("--duration", type=float, metavar="D",
                   help="fold the trace into D seconds (Folder's -output-duration; needs --input-cycle)")
    g.add_argument("--input-cycle", type=float, metavar="C",
                   help="cut the trace into cycles of C seconds and overlay them, stretched to --duration "
                        "(Folder's -input-cycle; default duration 3600 s)")
    g.add_argument("--concentration", type=float, metavar="X",
                   help="Folder's -concentration: each job kept X x (D/C) / folding-ratio times on average "
                        "(skipped or duplicated at random, seeded by --seed)")


def given_load_flags(args: argparse.Namespace) -> list[str]:
    """The load flags set on the command line (for commands and modes that cannot honour them)."""
    return [flag for flag, dest in (("--load-scale", "load_scale"), ("--duration", "duration"),
                                    ("--input-cycle", "input_cycle"), ("--concentration", "concentration"))
            if getattr(args, dest, None) is not None]
