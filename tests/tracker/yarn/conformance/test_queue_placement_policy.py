"""Hadoop's ``TestQueuePlacementPolicy`` (``scheduler.fair``), re-expressed: the same ``<queuePlacementPolicy>`` in
an allocation file, the same configured queues, and ``FairScheduler.place`` in place of
``QueuePlacementPolicy.assignAppToQueue``. A rejected app and a configuration error are one-line ``InputError``s.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mrsim.errors import InputError
from mrsim.tracker.yarn.schedulers.fair import FairScheduler
from tests.tracker.yarn.conformance.hadoop import allocation_file, app, hadoop

V2 = "2.6.0"
V3 = "3.3.6"


def _fair(tmp_path: Path, rules: str, queues: str = '<queue name="someuser"/>', version: str | None = None
          ) -> FairScheduler:
    body = f"{queues}\n<queuePlacementPolicy>{rules}</queuePlacementPolicy>"
    config: dict = {"config_file": str(allocation_file(tmp_path, body))}
    if version:
        config["hadoop_version"] = version
    return FairScheduler(config)


def _place(fair: FairScheduler, queue: str, user: str) -> str:
    return fair.place(app(0, user, queue)).path


@hadoop("TestQueuePlacementPolicy", "testSpecifiedUserPolicy", f"{V2} and {V3}")
def test_specified_user_policy(tmp_path: Path) -> None:
    fair = _fair(tmp_path, "<rule name='specified'/><rule name='user'/>")
    assert _place(fair, "specifiedq", "someuser") == "root.specifiedq"
    assert _place(fair, "default", "someuser") == "root.someuser"
    assert _place(fair, "default", "otheruser") == "root.otheruser"


@hadoop("TestQueuePlacementPolicy", "testNoCreate", f"{V2} and {V3}")
def test_no_create(tmp_path: Path) -> None:
    fair = _fair(tmp_path, "<rule name='specified'/><rule name='user' create='false'/><rule name='default'/>")
    assert _place(fair, "specifiedq", "someuser") == "root.specifiedq"
    assert _place(fair, "default", "someuser") == "root.someuser"
    assert _place(fair, "specifiedq", "otheruser") == "root.specifiedq"
    assert _place(fair, "default", "otheruser") == "root.default"


@hadoop("TestQueuePlacementPolicy", "testSpecifiedThenReject", f"{V2} and {V3}")
def test_specified_then_reject(tmp_path: Path) -> None:
    fair = _fair(tmp_path, "<rule name='specified'/><rule name='reject'/>")
    assert _place(fair, "specifiedq", "someuser") == "root.specifiedq"
    with pytest.raises(InputError, match="rejected by the placement policy"):
        _place(fair, "default", "someuser")


@hadoop("TestQueuePlacementPolicy", "testOmittedTerminalRule", f"{V2} and {V3}")
def test_omitted_terminal_rule(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"the last rule \(user, create=false\) is not terminal") as err:
        _fair(tmp_path, "<rule name='specified'/><rule name='user' create='false'/>")
    assert "\n" not in str(err.value) and "fair-scheduler.xml:" in str(err.value)


@hadoop("TestQueuePlacementPolicy", "testTerminalRuleInMiddle", f"{V2} and {V3}")
def test_terminal_rule_in_middle(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"rule 2 \(default\) is terminal, so the rules after it can never be "
                                         "reached"):
        _fair(tmp_path, "<rule name='specified'/><rule name='default'/><rule name='user'/>")


@hadoop("TestQueuePlacementPolicy", "testTerminals", V2)
def test_terminals_2x(tmp_path: Path) -> None:
    # 2.x: the default rule is terminal even with create=false: the policy loads, and an app it cannot place is
    # rejected when it is submitted
    fair = _fair(tmp_path, "<rule name='secondaryGroupExistingQueue' create='true'/>"
                           "<rule name='default' queue='otherdefault' create='false'/>")
    with pytest.raises(InputError, match="root.otherdefault, which does not exist"):
        _place(fair, "root.otherdefault", "user1")


@hadoop("TestQueuePlacementPolicy", "testTerminals", V3)
def test_terminals_3x(tmp_path: Path) -> None:
    # 3.x: "The default rule is no longer considered terminal when the create flag is false": configuration error
    with pytest.raises(InputError, match=r"the last rule \(default, create=false\) is not terminal"):
        _fair(tmp_path, "<rule name='secondaryGroupExistingQueue' create='true'/>"
                        "<rule name='default' queue='otherdefault' create='false'/>", version="3.3")


@hadoop("TestQueuePlacementPolicy", "testDefaultRuleWithQueueAttribute", f"{V2} and {V3}")
def test_default_rule_with_queue_attribute(tmp_path: Path) -> None:
    fair = _fair(tmp_path, "<rule name='specified' create='false'/><rule name='default' queue='root.someDefaultQueue'/>",
                 queues='<queue name="someDefaultQueue"/>')
    assert _place(fair, "default", "user1") == "root.someDefaultQueue"


@hadoop("TestQueuePlacementPolicy", "testBrokenRules", V3)
def test_broken_rules(tmp_path: Path) -> None:
    # a rule without a (known) name fails the configuration
    with pytest.raises(InputError, match="no placement rule named ''"):
        _fair(tmp_path, "<rule/>")
    # a policy without rules is ignored: the default policy applies
    fair = _fair(tmp_path, "<notarule/>")
    assert _place(fair, "default", "someuser") == "root.someuser"


@hadoop("TestQueuePlacementPolicy", "testUserContainsPeriod", f"{V2} and {V3}")
def test_user_contains_period(tmp_path: Path) -> None:
    fair = _fair(tmp_path, "<rule name='user'/>")
    assert _place(fair, "default", "first.last") == "root.first_dot_last"


@hadoop("TestQueuePlacementPolicy", "testEmptyGroupsPrimaryGroupRule", V3)
def test_empty_groups_primary_group_rule(tmp_path: Path) -> None:
    # a static mapping with no group for the user: the primaryGroup rule cannot place it, the app is rejected
    site = tmp_path / "core-site.xml"
    site.write_text("<?xml version=\"1.0\"?>\n<configuration>\n<property><name>hadoop.user.group.static.mapping."
                    "overrides</name><value>emptygroupuser=</value></property>\n</configuration>\n")
    body = ("<queuePlacementPolicy><rule name='primaryGroup' create='false'/><rule name='default'/>"
            "</queuePlacementPolicy>")
    fair = FairScheduler({"config_file": str(allocation_file(tmp_path, body)), "site_files": [str(site)]})
    with pytest.raises(InputError, match="user 'emptygroupuser' has no groups"):
        _place(fair, "root.fake", "emptygroupuser")
