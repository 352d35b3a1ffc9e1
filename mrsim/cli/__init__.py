"""The ``mrsim`` command line.

Each subcommand is one module in :mod:`mrsim.cli.commands` defining ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``; modules are discovered automatically, so adding a
subcommand never touches this file. User mistakes raise :class:`mrsim.errors.InputError` and end as a
single ``mrsim: error: ...`` line on stderr with exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from typing import Sequence

from mrsim import __version__
from mrsim.errors import EXIT_INPUT_ERROR, InputError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's usage errors also exit 2, on one line
        self.exit(EXIT_INPUT_ERROR, f"{self.prog}: error: {message}\n")


def _command_modules() -> list:
    import mrsim.cli.commands as pkg

    mods = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        mods.append(importlib.import_module(f"{pkg.__name__}.{info.name}"))
    return sorted(mods, key=lambda m: m.NAME)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="mrsim", description="Hadoop-compatible MapReduce scheduler emulator.")
    parser.add_argument("--version", action="version", version=f"mrsim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for mod in _command_modules():
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=getattr(mod, "DESCRIPTION", mod.HELP))
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except InputError as exc:
        print(f"mrsim: error: {exc}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except KeyboardInterrupt:
        print("mrsim: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
