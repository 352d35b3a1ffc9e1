"""Users' groups for the schedulers' group rules (Fair's ``primaryGroup`` and ``secondaryGroupExistingQueue``,
Capacity's ``g:`` mappings and ``%primary_group``), as Hadoop's ``Groups`` service gives them.

The groups come from ``hadoop.user.group.static.mapping.overrides`` (``user1=group1,group2;user2=;``, Hadoop's
static mapping, which the ``Groups`` service consults before the OS) in the ``--yarn-site`` files (a
``core-site.xml`` may be given there too), or from a scheduler config's ``user_groups`` table. A user the mapping
does not name has one group, its own name (mrsim has no OS accounts to ask); a user mapped to no group
(``user2=``) has none, and a rule that needs its primary group rejects its apps, as Hadoop's "No groups found for
user" does.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from mrsim.errors import InputError
from mrsim.tracker.schedconf.site_file import read_site_file

STATIC_KEY = "hadoop.user.group.static.mapping.overrides"


class UserGroups:
    """user -> groups (the first is the primary group). Cost O(1) per lookup."""

    def __init__(self, mapping: Mapping[str, list[str]] | None = None, source: str = "") -> None:
        self.mapping: dict[str, list[str]] = {u: list(g) for u, g in (mapping or {}).items()}
        self.source = source

    def groups(self, user: str) -> list[str]:
        return self.mapping.get(user, [user])

    def primary(self, user: str, app_id: str) -> str:
        found = self.groups(user)
        if not found:
            raise InputError(f"job {app_id}: user {user!r} has no groups ({self.source}: {STATIC_KEY}), so its "
                             "primary group is unknown: rejected")
        return found[0]

    @staticmethod
    def parse(text: str, where: str) -> dict[str, list[str]]:
        """``user1=group1,group2;user2=`` -> {user1: [group1, group2], user2: []}; a one-line error if malformed."""
        out: dict[str, list[str]] = {}
        for entry in filter(None, (e.strip() for e in text.split(";"))):
            user, sep, groups = entry.partition("=")
            if not sep or not user.strip():
                raise InputError(f"{where}: {STATIC_KEY} entry {entry!r} is not user=group1,group2")
            out[user.strip()] = [g.strip() for g in groups.split(",") if g.strip()]
        return out

    @classmethod
    def from_config(cls, config: Mapping | None, site_files: Iterable[str] = ()) -> "UserGroups":
        """The static mapping of the last site file that sets it, then a config's ``user_groups`` table."""
        mapping: dict[str, list[str]] = {}
        source = ""
        for path in site_files:
            props = read_site_file(str(path)).props
            if STATIC_KEY in props:
                where = f"{path}:{props[STATIC_KEY].line}"
                mapping.update(cls.parse(props[STATIC_KEY].value, where))
                source = where
        table = (config or {}).get("user_groups")
        if isinstance(table, Mapping):
            mapping.update({str(u): [str(g) for g in gs] for u, gs in table.items()})
            source = source or "scheduler config user_groups"
        return cls(mapping, source)
