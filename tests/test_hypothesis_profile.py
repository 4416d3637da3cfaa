"""Property tests hold on a busy machine: no example is failed for the time it took."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, settings


def test_examples_have_no_deadline_and_slow_data_is_no_failure() -> None:
    """CI runs the suite serially on two shared cores: Hypothesis's default 200 ms deadline
    and its too-slow health check failed tests there that pass alone."""
    for chosen in (settings.default, settings(max_examples=5)):
        assert chosen.deadline is None
        assert HealthCheck.too_slow in chosen.suppress_health_check



def test_a_tests_own_health_checks_keep_the_too_slow_one_off() -> None:
    """A test's own suppress_health_check replaces the profile's list: seven property tests
    that named only function_scoped_fixture ran with the too-slow check back on."""
    tests = Path(__file__).parent
    missing = [f"{path.relative_to(tests)}: [{named}]"
               for path in sorted(tests.rglob("*.py"))
               for named in re.findall(r"suppress_health_check=\[([^\]]*)\]",
                                       path.read_text(encoding="utf-8"))
               if "too_slow" not in named]
    assert missing == []
