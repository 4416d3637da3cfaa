"""Fixtures for the context-engine tests."""

from __future__ import annotations

import pytest
from ctx_fakes import FakeSummariser


@pytest.fixture
def fake_summariser() -> FakeSummariser:
    return FakeSummariser()
