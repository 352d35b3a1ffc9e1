"""Which Hadoop release line YARN mode follows where Hadoop 2.x and 3.x behave differently (``--hadoop-version``).

Without the flag YARN mode follows Hadoop 2.x before 2.8 (the behaviour it always had). The differences that
depend on the version:

* Capacity's ``node-locality-delay`` defaults to -1 (no delay) before 2.8 and to 40 from 2.8 on
  (``CapacitySchedulerConfiguration.DEFAULT_NODE_LOCALITY_DELAY``);
* Fair's ``default`` placement rule is terminal in 2.x whatever its ``create`` flag (an app it cannot place is
  rejected at submission); in 3.x it is terminal only with ``create="true"``, so a policy ending in
  ``<rule name="default" create="false"/>`` is a configuration error (``QueuePlacementPolicy``, YARN-8967).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mrsim.errors import OptionError


@dataclass(frozen=True)
class YarnVersion:
    """A Hadoop 2.x or 3.x release line; ``minor`` is None when only the major line is named ("2.x", "3")."""

    major: int
    minor: int | None
    text: str

    def at_least(self, major: int, minor: int) -> bool:
        """True when this line is ``major.minor`` or later (an unnamed minor counts as the line's first release)."""
        return (self.major, self.minor or 0) >= (major, minor)

    @property
    def given(self) -> bool:
        return self.text != DEFAULT_TEXT


DEFAULT_TEXT = "2.x/3.x (YARN)"
#: No ``--hadoop-version``: Hadoop 2.x before 2.8
DEFAULT = YarnVersion(2, None, DEFAULT_TEXT)


def parse_yarn_version(text: str | None) -> YarnVersion | None:
    """``2``, ``2.x``, ``2.7``, ``2.7.3``, ``3``, ``3.x``, ``3.3.6`` -> the line; None for anything else (MR1 lines
    such as 0.20 or 1.2 are the MR1 engine's). Cost O(len(text))."""
    if text is None:
        return None
    m = re.fullmatch(r"([23])(?:\.(x|\d+)(?:\.\d+)*)?", text.strip().lower())
    if m is None:
        return None
    minor = None if m.group(2) in (None, "x") else int(m.group(2))
    return YarnVersion(int(m.group(1)), minor, text.strip())


def yarn_version(text: str | None) -> YarnVersion:
    """The line ``--hadoop-version`` names in YARN mode (:data:`DEFAULT` without it); a one-line error otherwise."""
    if text is None:
        return DEFAULT
    version = parse_yarn_version(text)
    if version is None:
        raise OptionError(f"{{hadoop_version}} {text}: YARN mode follows Hadoop 2.x or 3.x (for example 2.7, 2.9 or "
                          "3.3); the 0.20/1.x lines are the Hadoop 1 engine's (use {engine} mr1)")
    return version


def from_config(config: dict | None) -> YarnVersion:
    """The version a scheduler's config dict carries (``hadoop_version``, set by the command line)."""
    value = (config or {}).get("hadoop_version")
    if isinstance(value, YarnVersion):
        return value
    return yarn_version(str(value)) if value is not None else DEFAULT
