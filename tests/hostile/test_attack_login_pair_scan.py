"""The login-pair check of the sensitive-content rule (a URL's user:password@) reads a long run
of letters once: tried from every letter, it scanned to the run's end each time, so a tool
result or error text of letters took seconds to scrub (12,000 letters: 1.7 s; 100,000 about
two minutes). Its verdicts are those of the pattern it replaced."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from paicli_tui.core.contracts.secrets import _LOGIN_PAIR, sensitive_reason

OLD_URL_LOGIN = re.compile(r"(?i)[a-z][a-z0-9+.\-]*://[^\s/:@]+:[^\s/@]+@")
"""The URL part of the pattern before the change: the reference for its verdicts."""


@hypothesis_settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(["a", "Z", "9", "+", ".", "-", ":", "/", "@", " ", "x://",
                                 "u:p@", "https://", "9h://"]), max_size=16).map("".join))
def test_a_url_login_is_found_where_the_old_pattern_found_it(text: str) -> None:
    new = _LOGIN_PAIR.search(text)
    words = re.compile(r"(?i)\b(?:admin|root|user(?:name)?|login|account|uid|owner)\s*"
                       r"(?:/|:|=)\s*[^\s/:=]{3,}")
    assert bool(new) == bool(OLD_URL_LOGIN.search(text) or words.search(text)), text


def test_table_of_url_logins() -> None:
    rows = {
        "https://bob:hunter2@example.com/x": True,
        "9http://bob:hunter2@example.com": True,  # a run that starts with a digit
        "git+ssh://bob:secret@host": True,
        "see https://example.com/a:b@c": False,  # the path, not a login
        "ftp://anonymous@host": False,  # no password
    }
    for text, found in rows.items():
        assert bool(_LOGIN_PAIR.search(text)) is found, text


def test_a_long_run_of_letters_is_read_in_one_pass() -> None:
    # before: about two minutes for the first call
    assert sensitive_reason("a" * 100_000 + "!x") is None
    assert _LOGIN_PAIR.search("a1" * 50_000 + "://bob:secret@h")
