"""The memory inbox rule: with ``review_auto_memories`` on, a memory saved automatically is
not injected into a turn until the person accepts (verifies) it; explicit ones always are."""

from __future__ import annotations

from paicli_tui.core.memory.entry import SOURCE_AUTO, awaiting_review
from paicli_tui.core.memory.service import LocalMemoryService


def _service(settings, project_dir, review: bool) -> LocalMemoryService:
    return LocalMemoryService(settings.with_overrides(review_auto_memories=review), project_dir,
                              use_vectors=False)


def test_unaccepted_auto_memories_are_held_back_only_when_review_is_required(
        settings, project_dir) -> None:
    service = _service(settings, project_dir, review=True)
    auto = service.save("We deploy through the staging cluster first", source=SOURCE_AUTO)
    service.save("We deploy tags signed with the release key")
    assert awaiting_review(auto.entry)
    block = service.injection_block("how do we deploy", 500)
    assert "release key" in block and "staging cluster" not in block
    # without the setting the same memory is used (marked auto-extracted, unverified)
    loose = _service(settings, project_dir, review=False).injection_block("how do we deploy", 500)
    assert "staging cluster" in loose and "auto-extracted, unverified" in loose
    # accepted in the inbox: used from now on
    accepted = service.verify(auto.entry.id)
    assert accepted is not None and not awaiting_review(accepted)
    assert "staging cluster" in _service(settings, project_dir, True).injection_block(
        "how do we deploy", 500)
