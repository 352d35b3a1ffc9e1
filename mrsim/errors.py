"""User-facing errors.

Anything the user can fix (a missing file, a malformed trace, a bad flag value) raises
:class:`InputError` with a one-line message that names the file, line or job and the problem.
The CLI prints it as ``mrsim: error: <message>`` and exits with :data:`EXIT_INPUT_ERROR`; no traceback.
"""

from __future__ import annotations

EXIT_INPUT_ERROR = 2


class InputError(Exception):
    """A problem with the user's input; the message is shown as-is on one line."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))
