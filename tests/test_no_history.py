"""Docs, code comments and tests describe the product, not the history of the work on it.

README.md, docs/*.md and the Python sources (mrsim, schedulers, benchmarks, tests) say what mrsim is and does in the
present tense; who changed what, in which working period or tracker item, belongs in git. This test fails on
phrases that number the work: a numbered session, an ordinal or numbered round, a numbered issue. A Hadoop JIRA
key (``MAPREDUCE-1906``) names Hadoop's behaviour, not this project's history, and is not matched; neither is
"round-robin" or "rounded". The patterns are built from pieces so that this file does not match itself.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: Docs other branches are editing right now; they are cleaned once those branches are merged.
PENDING_DOCS: set[str] = set()

#: ``(path, exact matched text)`` pairs that are legitimate uses of a matched phrase. Keep it short: each entry
#: needs a reason next to it.
ALLOWED: set[tuple[str, str]] = set()

_SPACE = r"\s+"  # a phrase may wrap onto the next line
_ORDINALS = "|".join(["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
                      "eleventh", "twelfth"])
_ROUND = "ro" + "und"
PATTERNS = [re.compile(pattern, re.IGNORECASE) for pattern in (
    r"\b" + "sess" + "ion" + _SPACE + r"\d+",
    r"\b(?:" + _ORDINALS + r"|\d+(?:st|nd|rd|th))" + _SPACE + _ROUND + r"\b",
    r"\b" + _ROUND + _SPACE + r"\d+\b",
    r"\b" + "iss" + "ue" + _SPACE + r"\d+\b",
)]


def _checked_files() -> list[Path]:
    files = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    files += sorted((REPO / "mrsim").rglob("*.py")) + sorted((REPO / "schedulers").glob("*.py"))
    files += sorted((REPO / "benchmarks").glob("*.py")) + sorted((REPO / "tests").rglob("*.py"))
    return [path for path in files if path.is_file() and "__pycache__" not in path.parts
            and path.relative_to(REPO).as_posix() not in PENDING_DOCS]


def find_history(text: str) -> list[tuple[int, str]]:
    """(line number, matched text) of every history phrase in ``text``, in order of position."""
    found = []
    for pattern in PATTERNS:
        for match in pattern.finditer(text):
            found.append((match.start(), text.count("\n", 0, match.start()) + 1, " ".join(match.group(0).split())))
    return [(line, phrase) for _, line, phrase in sorted(found)]


def test_docs_and_code_carry_no_history_of_the_work() -> None:
    found = []
    for path in _checked_files():
        name = path.relative_to(REPO).as_posix()
        found += [f"{name}:{line}: {phrase}" for line, phrase in find_history(path.read_text(encoding="utf-8"))
                  if (name, phrase) not in ALLOWED]
    assert not found, ("history of the work in docs or code (describe the product in the present tense; history goes in "
                       "commit messages):\n" + "\n".join(found))


def test_history_finder_matches_each_kind_and_spares_legitimate_words() -> None:
    s, r, i = "Sess" + "ion", "ro" + "und", "iss" + "ue"
    text = "\n".join([f"measured in {s.lower()} 12", f"the Fifth {r} changed it", f"as in the 3rd {r}",
                      f"{r} 4 of the sweep", f"see {i} 18", f"{s}\n11 said so",
                      "MAPREDUCE-1906 is Hadoop's JIRA", "queues assigned round-robin", "rounded to 0.05",
                      f"{r}ing half up", f"a {r} trip to the TaskTracker", f"the {i} of a heartbeat"])
    assert find_history(text) == [(1, f"{s.lower()} 12"), (2, f"Fifth {r}"), (3, f"3rd {r}"), (4, f"{r} 4"),
                                  (5, f"{i} 18"), (6, f"{s} 11")]


def test_pending_docs_are_named_as_they_exist_or_will() -> None:
    assert all(name.startswith("docs/") and name.endswith(".md") for name in PENDING_DOCS)
    assert all((REPO / name).is_file() for name in PENDING_DOCS)  # a pending doc that is gone is a stale entry
