"""Old flag spellings kept for one release: the same option under its new name, with a warning when the old one
is used. Imported by every command, so it imports nothing heavy."""

from __future__ import annotations

import argparse
import copy
import sys
from typing import Any, Sequence


class RenamedStore(argparse._StoreAction):
    """A store action reachable by new and deprecated option strings; a deprecated one warns on stderr."""

    def __init__(self, option_strings: Sequence[str], dest: str, deprecated: Sequence[str] = (), **kwargs: Any):
        self.deprecated = tuple(deprecated)
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if option_string in self.deprecated:
            new = next(o for o in self.option_strings if o not in self.deprecated and o.startswith("--"))
            print(f"mrsim: warning: {option_string} is deprecated and will be removed; use {new}", file=sys.stderr)
        super().__call__(parser, namespace, values, option_string)


def add_renamed(p: argparse.ArgumentParser | Any, new: Sequence[str], old: Sequence[str], dest: str,
                help: str | None = None, **kwargs: Any) -> argparse.Action:
    """``p.add_argument(*new, *old)`` storing into ``dest``; the ``old`` spellings warn when used, and ``--help``
    shows only the new ones (:class:`HelpWithoutDeprecated`)."""
    return p.add_argument(*new, *old, dest=dest, action=RenamedStore, deprecated=tuple(old), help=help, **kwargs)


class HelpWithoutDeprecated(argparse.HelpFormatter):
    """argparse's help, without the deprecated spellings of :class:`RenamedStore` options: ``--help`` teaches the
    current names only (the old ones still parse, with a warning)."""

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if isinstance(action, RenamedStore) and action.deprecated:
            shown = copy.copy(action)
            shown.option_strings = [o for o in action.option_strings if o not in action.deprecated]
            return super()._format_action_invocation(shown)
        return super()._format_action_invocation(action)
