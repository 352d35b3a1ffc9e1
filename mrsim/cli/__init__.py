"""The ``mrsim`` command line.

Each subcommand is one module in :mod:`mrsim.cli.commands` defining ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``; modules are discovered automatically, so adding a
subcommand never touches this file. User mistakes raise :class:`mrsim.errors.InputError` and end as a
single ``mrsim: error: ...`` line on stderr: exit code 1 for a bad input file, 2 for a bad flag (see
:func:`mrsim.errors.exit_code_for`). Four global flags are accepted anywhere on the line: ``--strict`` (warnings
become errors), ``--no-verify`` (skip trace-store checksums), ``--no-cache`` (neither read nor write the trace
cache, :mod:`mrsim.profiler.cache`) and ``--limit NAME=N`` (raise a size limit of :mod:`mrsim.io.limits`).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import os
import pkgutil
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from mrsim import __version__, compiled_core
from mrsim.cli.flag_ranges import harden_flags
from mrsim.cli.flags import HelpWithoutDeprecated
from mrsim.errors import EXIT_INPUT_ERROR, EXIT_USAGE_ERROR, InputError, exit_code_for


class _Parser(argparse.ArgumentParser):
    """mrsim's parser: no abbreviated long flags (``--node 4`` is an error, not ``--nodes 4``: an abbreviation
    that works today breaks when a flag with the same start is added), help without deprecated spellings, and
    usage errors on one line."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", HelpWithoutDeprecated)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # argparse's usage errors also exit 2, on one line
        self.exit(EXIT_USAGE_ERROR, f"{self.prog}: error: {message}{self._suggestion(message)}\n")

    def _suggestion(self, message: str) -> str:
        """``; did you mean --nodes?`` for an unknown flag that starts a known one (abbreviations are refused) or
        is one letter away from it; empty otherwise. The known flags are this parser's and its subcommands'."""
        import difflib

        prefix = "unrecognized arguments: "
        if not message.startswith(prefix):
            return ""
        unknown = next((a.split("=", 1)[0] for a in message[len(prefix):].split() if a.startswith("--")), None)
        if unknown is None:
            return ""
        known: set[str] = set()
        parsers: list[argparse.ArgumentParser] = [self]
        while parsers:
            parser = parsers.pop()
            for action in parser._actions:
                known.update(o for o in action.option_strings if o.startswith("--"))
                if isinstance(action, argparse._SubParsersAction):
                    parsers.extend(action.choices.values())
        if unknown in known:  # an option of another level of the command line, not a misspelling
            return ""
        starts = sorted(o for o in known if o.startswith(unknown))
        close = starts[:1] or difflib.get_close_matches(unknown, sorted(known), n=1, cutoff=0.8)
        return f"; did you mean {close[0]}?" if close else ""


class _VersionAction(argparse.Action):
    """``--version``: the version and which engine build runs (decided only when asked: it imports the engine)."""

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[no-untyped-def]
        print(f"mrsim {__version__}; {compiled_core.describe()}")
        parser.exit()


@dataclass(frozen=True)
class _CommandInfo:
    module: str
    name: str
    help: str


#: ``NAME = "..."`` or ``HELP = "..."`` on a line of its own, as every command module writes them: read without
#: parsing the module (``ast.parse`` of the 12 modules took 20-25 ms of every command's start-up).
_CONSTANT_LINE = re.compile(r"""^(NAME|HELP) = ("[^"\\\n]*"|'[^'\\\n]*')[ \t]*$""", re.MULTILINE)


def _constants(text: str) -> dict[str, str]:
    """``NAME`` and ``HELP`` of a command module's source: the literal lines above, else its module-level string
    assignments (``ast``), else {}."""
    values = {m.group(1): m.group(2)[1:-1] for m in _CONSTANT_LINE.finditer(text)}
    if "NAME" in values and "HELP" in values:
        return values
    values = {}
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            key = node.targets[0].id
            if key in ("NAME", "HELP") and isinstance(node.value, ast.Constant):
                values[key] = str(node.value.value)
    return values


def _commands() -> list[_CommandInfo]:
    """Every subcommand module with its NAME and HELP, read from source so that nothing is imported yet."""
    import mrsim.cli.commands as pkg

    found = []
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        path = Path(pkg.__path__[0]) / f"{info.name}.py"
        try:
            values = _constants(path.read_text(encoding="utf-8"))
        except OSError:
            values = {}
        if "NAME" not in values:  # not a static constant: import to find out
            mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
            values = {"NAME": mod.NAME, "HELP": mod.HELP}
        found.append(_CommandInfo(f"{pkg.__name__}.{info.name}", values["NAME"], values.get("HELP", "")))
    return sorted(found, key=lambda c: c.name)


def build_parser(chosen: str | None = None, load_all: bool = True) -> argparse.ArgumentParser:
    """The full parser. Subcommand modules are imported only for ``chosen`` (or all with ``load_all``), so
    ``mrsim replay`` does not pay for importing every other command's dependencies."""
    parser = _Parser(prog="mrsim", description="Hadoop-compatible MapReduce scheduler emulator.")
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="print mrsim's version and whether the compiled engine core runs, then exit")
    parser.add_argument("--strict", action="store_true", help="turn every warning into an error (exit 1); "
                        "accepted anywhere on the command line")
    parser.add_argument("--no-verify", action="store_true", help="load trace stores without checking their "
                        "per-array checksums (faster); accepted anywhere on the command line")
    parser.add_argument("--no-cache", action="store_true", help="parse inputs instead of reading the trace cache, "
                        "and save nothing to it (docs/performance.md); accepted anywhere on the command line")
    parser.add_argument("--limit", action="append", metavar="NAME=N", default=[],
                        help="raise a size limit (jobs, tasks_per_job, tasks, nodes, slots, replications, "
                             "input_bytes; see docs/reliability.md); accepted anywhere on the command line")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for cmd in _commands():
        if load_all or cmd.name == chosen:
            mod = importlib.import_module(cmd.module)
            p = sub.add_parser(cmd.name, help=mod.HELP, description=getattr(mod, "DESCRIPTION", mod.HELP))
            mod.add_arguments(p)
            _add_verbosity(p)
            p.set_defaults(_run=mod.run, _early_input=getattr(mod, "early_input", None))
            harden_flags(p)
        else:
            sub.add_parser(cmd.name, help=cmd.help, add_help=False)
    return parser


def _global_flags(argv: list[str]) -> tuple[list[str], dict[str, bool], list[str]]:
    """Take ``--strict``, ``--no-verify``, ``--no-cache`` and ``--limit NAME=N`` out of ``argv`` wherever they are (before
    ``--`` only)."""
    rest: list[str] = []
    flags = {"strict": False, "no_verify": False, "no_cache": False}
    limits: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest.extend(argv[i:])
            break
        if arg in ("--strict", "--no-verify", "--no-cache"):
            flags[arg[2:].replace("-", "_")] = True
        elif arg == "--limit" and i + 1 < len(argv):
            limits.append(argv[i + 1])
            i += 1
        elif arg.startswith("--limit="):
            limits.append(arg.removeprefix("--limit="))
        else:
            rest.append(arg)
        i += 1
    return rest, flags, limits


def _add_verbosity(p: argparse.ArgumentParser, nested: bool = False) -> None:
    """``--quiet`` and ``--log-level`` on every command (commands that define them keep their own), and on the
    subcommands of those that have them (``mrsim plot cdf ... --quiet``). There they default to nothing
    (``SUPPRESS``), so that ``mrsim plot --quiet cdf ...`` keeps the value given before the subcommand."""
    default: dict[str, object] = {"default": argparse.SUPPRESS} if nested else {}
    if "--quiet" not in p._option_string_actions:
        p.add_argument("--quiet", action="store_true", help="nothing on stderr but errors (= --log-level error)",
                       **default)
    if "--log-level" not in p._option_string_actions:
        p.add_argument("--log-level", choices=("debug", "info", "warning", "error"),
                       help="stderr detail: info (default), warning (warnings only), error (errors only), debug",
                       **(default or {"default": "info"}))
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _add_verbosity(sub, nested=True)


class _StderrLevel:
    """Drops mrsim's own stderr lines below the chosen level: notes and announcements at ``warning``, also
    warnings at ``error``. Errors, tracebacks and progress bars pass through."""

    def __init__(self, stream, level: str) -> None:  # type: ignore[no-untyped-def]
        self.stream, self.level, self.pending = stream, level, ""

    def _keep(self, line: str) -> bool:
        if not line.startswith("mrsim") or line.startswith("mrsim: error:"):
            return True
        if line.startswith("mrsim: warning:"):
            return self.level != "error"
        return False  # notes and "mrsim CMD: cluster ..." announcements

    def write(self, text: str) -> int:
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            if self._keep(line):
                self.stream.write(line + "\n")
        if self.pending and not self.pending.startswith("mrsim"):  # progress bars redraw without a newline
            self.stream.write(self.pending)
            self.pending = ""
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.stream, name)


def main(argv: Sequence[str] | None = None) -> int:
    from mrsim.io.limits import reset_limit_flags, set_limit_flag
    from mrsim.io.policy import set_cache, set_strict, set_verify

    process_entry = argv is None  # the console script or ``python -m mrsim``, not a caller's main([...])
    argv = list(sys.argv[1:] if argv is None else argv)
    argv, flags, limits = _global_flags(argv)
    set_strict(flags["strict"])
    set_verify(not flags["no_verify"])
    set_cache(not flags["no_cache"])
    reset_limit_flags()
    try:
        for text in limits:
            set_limit_flag(text)
    except InputError as exc:
        print(f"mrsim: error: {exc}", file=sys.stderr)
        return EXIT_USAGE_ERROR
    chosen = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(chosen, load_all=False)
    args = parser.parse_args(argv)
    args.process_entry = process_entry  # a command may end the process itself once its output is out (sweep)
    _read_early(args)
    level = "error" if getattr(args, "quiet", False) else getattr(args, "log_level", "info")
    if level in ("warning", "error"):
        original = sys.stderr
        sys.stderr = _StderrLevel(original, level)  # type: ignore[assignment]
        try:
            code = _run(args)
        finally:
            sys.stderr = original
    else:
        code = _run(args)
    if process_entry:  # the output is out: skip freeing every object one by one (mrsim.io.process_exit)
        from mrsim.io.process_exit import exit_now

        exit_now(code)
    return code


def _read_early(args: argparse.Namespace) -> None:
    """Start reading the command's input in a forked process now, while the command imports and sets up, when the
    command names an input its pass will parse (a module's ``early_input(args)``: ``(path, --format)`` or None;
    :mod:`mrsim.profiler.early_read`). Costs a stat and the format's sniff; imports no numpy."""
    early = getattr(args, "_early_input", None)
    if early is None:
        return
    named = early(args)
    if named is not None:
        from mrsim.profiler.early_read import start_for_pass

        start_for_pass(*named)


def _run(args: argparse.Namespace) -> int:
    try:
        return _run_command(args)
    finally:
        if getattr(args, "_early_input", None) is not None:
            from mrsim.profiler.early_read import discard

            discard()  # a reader the command did not take (it failed first, or read otherwise)


def _run_command(args: argparse.Namespace) -> int:
    try:
        return int(args._run(args) or 0)
    except InputError as exc:
        worded = getattr(exc, "worded", None)  # mrsim.errors.OptionError: each option worded as its flag
        text = worded(lambda name: "--" + name.replace("_", "-")) if worded is not None else str(exc)
        print(f"mrsim: error: {text}", file=sys.stderr)
        return exit_code_for(exc)
    except RecursionError:  # a reader met nesting deeper than the interpreter allows
        print("mrsim: error: input nested too deeply to read", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except MemoryError:
        print("mrsim: error: out of memory (an input larger than this machine can hold; see the size limits "
              "in docs/reliability.md)", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except KeyboardInterrupt:
        print("mrsim: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a write or read no narrower handler worded: still one line, naming the file
        where = f"{os.fsdecode(exc.filename)}: " if exc.filename is not None else ""
        print(f"mrsim: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
