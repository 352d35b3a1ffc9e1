"""docs/what-if.md holds the rule table of mrsim.whatif.rules, unchanged."""

from __future__ import annotations

from mrsim.whatif.rules import RULES, markdown_table
from tests.data import REPO


def test_the_docs_table_is_the_rules_module():
    assert markdown_table() in (REPO / "docs" / "what-if.md").read_text()


def test_every_rule_names_a_hadoop_class_or_says_it_is_an_assumption():
    for r in RULES:
        assert r.basis.startswith(("assumption:", "the user's choice")) or "`" in r.basis or "Rumen" in r.basis, r
