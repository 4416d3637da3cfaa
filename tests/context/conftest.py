"""Fixtures for the context-engine tests."""

from __future__ import annotations

import pytest
from ctx_fakes import VALID_SUMMARY
from doubles.completers import ScriptedCompleter


@pytest.fixture
def fake_summariser() -> ScriptedCompleter:
    return ScriptedCompleter(VALID_SUMMARY)
