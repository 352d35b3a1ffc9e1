"""User-facing errors and exit codes.

Anything the user can fix raises :class:`InputError` (a bad file: a missing trace, a malformed record, a value
out of range) or :class:`UsageError` (a bad flag value) with a one-line message that names the file, line, job,
task or flag, the field and what was expected. The CLI prints it as ``mrsim: error: <message>``, no traceback,
and exits with :data:`EXIT_INPUT_ERROR` (1) or :data:`EXIT_USAGE_ERROR` (2; argparse's own errors too).
"""

from __future__ import annotations

import re
from typing import Callable

#: A bad input file (or a warning under ``--strict``): exit code 1.
EXIT_INPUT_ERROR = 1
#: A bad command line (unknown flag, flag value out of range): exit code 2, as argparse uses.
EXIT_USAGE_ERROR = 2


#: ``{field_name}`` in an :class:`OptionError`'s message.
_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


class InputError(Exception):
    """A problem with the user's input; the message is shown as-is on one line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


class UsageError(InputError):
    """A bad command-line flag or flag value (exit code 2)."""


class OptionError(InputError):
    """A value a run's option cannot take, or options that do not go together. The message names the options as
    ``{field}`` placeholders (``"{nodes} cannot be combined with {cluster}"``): the command line words each as its
    flag (``--nodes``), the API as its keyword argument (``nodes``); ``str()`` gives the API's wording."""

    def __init__(self, template: str) -> None:
        self.template = " ".join(str(template).split())
        super().__init__(self.worded(lambda name: name))

    def worded(self, name_of: Callable[[str], str]) -> str:
        """The message with every ``{field}`` placeholder replaced by ``name_of(field)``."""
        return _PLACEHOLDER.sub(lambda m: name_of(m.group(1)), self.template)


class OptionUsageError(OptionError, UsageError):
    """An :class:`OptionError` of the command line's kind (exit code 2): a malformed value."""


class LimitError(InputError):
    """An input larger than a documented size limit (:mod:`mrsim.io.limits`), refused before allocating."""


class StalledError(InputError, RuntimeError):
    """A replay that stopped with jobs unfinished: the scheduler, as configured, assigns none of their tasks (a
    pool or queue whose limits let nothing run, a plug-in that stops assigning). An input error (the configuration
    given is at fault), and a ``RuntimeError`` as well, which a replay raised for it before."""


class StrictError(InputError):
    """A warning turned into an error by ``--strict`` (exit code 1: the input is at fault, not the flag)."""


def exit_code_for(exc: InputError) -> int:
    """2 for flag problems, 1 for file problems.

    A message that starts with a flag name (``--nodes must be ...``) is a usage error even when raised as a plain
    :class:`InputError`, so commands need not import :class:`UsageError` to get the documented code.
    """
    if isinstance(exc, StrictError):
        return EXIT_INPUT_ERROR
    if isinstance(exc, OptionError) and exc.template.startswith("{"):  # worded as a flag first: "--nodes must"
        return EXIT_USAGE_ERROR
    if isinstance(exc, UsageError) or str(exc).startswith("-"):
        return EXIT_USAGE_ERROR
    return EXIT_INPUT_ERROR
