"""The display policy the runtime is given: people see ports and times, snapshots see neither."""

from __future__ import annotations

import dataclasses

import pytest

from payscope.core.display import STABLE, USER, DisplayPolicy, hidden_time

STAMP = 1_714_564_800.0  # 2024-05-01 12:00:00 UTC


def test_people_see_ports_times_and_measurements_as_they_are() -> None:
    assert USER.url("http://127.0.0.1:8042/v1/payments") == "http://127.0.0.1:8042/v1/payments"
    assert USER.host("127.0.0.1:8042") == "127.0.0.1:8042"
    assert USER.address("127.0.0.1:8042") == "127.0.0.1:8042"
    assert USER.wall_time(STAMP) == "12:00:00"
    assert USER.wall_time(STAMP, "%m-%d %H:%M:%S") == "05-01 12:00:00"
    assert USER.wall_text("Wed, 01 May 2024 12:00:00 GMT") == "Wed, 01 May 2024 12:00:00 GMT"
    assert USER.measured("42 ms") == "42 ms"


def test_the_stable_policy_hides_what_moves_between_runs() -> None:
    text = "curl http://127.0.0.1:8042/v1/payments and https://pay.example:9443?x=1"
    assert STABLE.url(text) == (
        "curl http://127.0.0.1:PORT/v1/payments and https://pay.example:PORT?x=1"
    )
    assert STABLE.url("http://localhost/no-port") == "http://localhost/no-port"
    assert STABLE.host("127.0.0.1:8042") == "127.0.0.1:PORT"
    assert STABLE.address("127.0.0.1:8042") is None
    assert STABLE.wall_time(STAMP) is None
    assert STABLE.wall_text("Wed, 01 May 2024 12:00:00 GMT") is None
    assert STABLE.measured("42 ms") is None


def test_each_decision_is_its_own() -> None:
    ports_only = DisplayPolicy(show_ports=False)
    assert ports_only.url("http://h:1/") == "http://h:PORT/"
    assert ports_only.wall_time(STAMP) == "12:00:00"
    assert ports_only.measured("1 s") == "1 s"


def test_a_hidden_time_keeps_its_format_shape() -> None:
    assert hidden_time() == "··:··:··"
    assert hidden_time("%m-%d %H:%M:%S") == "··-·· ··:··:··"


def test_the_policy_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        USER.show_ports = False  # type: ignore[misc]
