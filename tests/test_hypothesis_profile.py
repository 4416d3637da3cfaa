"""Property tests hold on a busy machine: no example is failed for the time it took."""

from __future__ import annotations

from hypothesis import HealthCheck, settings


def test_examples_have_no_deadline_and_slow_data_is_no_failure() -> None:
    """CI runs the suite serially on two shared cores: Hypothesis's default 200 ms deadline
    and its too-slow health check failed tests there that pass alone."""
    for chosen in (settings.default, settings(max_examples=5)):
        assert chosen.deadline is None
        assert HealthCheck.too_slow in chosen.suppress_health_check

