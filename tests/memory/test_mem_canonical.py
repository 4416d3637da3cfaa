"""Canonical form, duplicates and conflicts (behaviour §12): table tests with the spec's numbers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paicli_tui.core.memory.canonical import (
    canonical,
    conflicts,
    dice,
    is_version_variant,
)


def is_duplicate(a: str, b: str) -> bool:
    """The duplicate rule: the same canonical form."""
    return canonical(a) == canonical(b)


@pytest.mark.parametrize(("text", "expected"), [
    ("Use  Tabs", "use tabs"),
    ("  项目的 构建 是 Maven。 ", "项目 构建 maven"),
    ("我们地址得到的", "我们址到"),
    ("Hello, World!", "hello world"),
    ("路径：/usr/local_bin", "路径/usr/local_bin"),
    ("#tag @me 50% a-b c\\d", "#tag @me 50% a-b c\\d"),
    ("“引号”和「括号」", "引号和括号"),
    ("`ruff` format", "ruff format"),
    ("Tabs\n\tand\r\nspaces", "tabs and spaces"),
])
def test_canonical_form(text: str, expected: str) -> None:
    assert canonical(text) == expected


@pytest.mark.parametrize(("a", "b", "duplicate"), [
    ("项目使用 Java 17", "项目使用 java 17。", True),
    ("We use   pytest.", "we use pytest", True),
    ("我们的项目是 Maven", "我们项目 Maven", True),
    ("We use pytest", "We use unittest", False),
])
def test_duplicates(a: str, b: str, duplicate: bool) -> None:
    assert is_duplicate(a, b) is duplicate


@pytest.mark.parametrize(("a", "b", "variant"), [
    ("项目使用 Java 17", "项目使用 Java 21", True),
    ("Node 18", "Node 20", True),
    ("uses Java 17", "uses Java 21", True),
    ("Python 3.11 is the target", "Python 3.12.1 is the target", True),
    ("API v1 is frozen", "API v2 is frozen", True),
    ("项目使用 Java 17", "项目使用 Java 17", False),  # same fact: a duplicate, not a conflict
    ("Node 18", "Deno 18", False),
    ("18", "20", False),  # nothing left once numbers go: no basis for a conflict
])
def test_version_variants(a: str, b: str, variant: bool) -> None:
    assert is_version_variant(a, b) is variant


@pytest.mark.parametrize(("a", "b", "threshold", "conflict"), [
    ("项目使用 Java 17", "项目使用 Java 21", 0.8, True),
    ("Node 18", "Node 20", 0.99, True),  # version rule is independent of Dice
    ("We always format code with ruff", "We always format code with ruff!", 0.8, False),  # dup
    ("We always format the code with ruff", "We always format the code with black", 0.8, True),
    ("We use pytest for unit tests", "We use Playwright for browser tests", 0.8, False),
    ("The main branch is called main", "The main branch is called trunk", 0.8, True),
    ("我们默认的主分支叫 main", "我们默认的主分支叫 master", 0.7, True),
    ("我们默认的主分支叫 main", "我们默认的主分支叫 master", 0.99, False),
    ("We deploy with helm charts stored in deploy/", "We deploy with helm charts kept in deploy/",
     0.8, True),
    ("We deploy with helm charts stored in deploy/", "We deploy with helm charts kept in deploy/",
     0.99, False),
    ("We use pytest", "Lombok is forbidden", 0.8, False),
    ("abcdef", "abcdeg", 0.8, True),  # Dice exactly 0.8: "≥ 0.8" conflicts
    ("abcdef", "abcdeg", 0.81, False),
    ("abcdef", "abcdeg", 0.98, False),
    ("abcdef", "abcdeg", 0.99, False),
])
def test_conflicts(a: str, b: str, threshold: float, conflict: bool) -> None:
    assert conflicts(a, b, threshold) is conflict


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("abc", "abc", 1.0),
    ("abcd", "abce", 2 * 2 / 6),
    ("ab", "cd", 0.0),
    ("abcdef", "abcdeg", 0.8),
])
def test_dice_values(a: str, b: str, expected: float) -> None:
    assert dice(a, b) == pytest.approx(expected)


@given(st.text(max_size=60))
def test_canonical_is_idempotent(text: str) -> None:
    assert canonical(canonical(text)) == canonical(text)


@given(st.text(max_size=40), st.text(max_size=40))
def test_dice_is_symmetric_and_bounded(a: str, b: str) -> None:
    value = dice(a, b)
    assert 0.0 <= value <= 1.0
    assert value == pytest.approx(dice(b, a))


@given(st.text(max_size=40), st.text(max_size=40))
def test_never_both_duplicate_and_conflict(a: str, b: str) -> None:
    assert not (is_duplicate(a, b) and conflicts(a, b, 0.8))


def _scan(a: str, b: str, threshold: float) -> tuple[bool, bool]:
    """(duplicate, conflict) as the store's one-pass scan sees a stored ``a`` and a new ``b``."""
    from paicli_tui.core.memory.dedup import scan
    from paicli_tui.core.memory.entry import MemoryEntry

    def entry(entry_id: str, text: str) -> MemoryEntry:
        return MemoryEntry(id=entry_id, content=text, created_at="", last_verified_at="",
                           project="/p")

    duplicate, found = scan([entry("old", a)], entry("new", b), threshold)
    return duplicate is not None, bool(found)


@pytest.mark.parametrize(("a", "b", "threshold", "conflict"), [
    ("项目使用 Java 17", "项目使用 Java 21", 0.8, True),
    ("Node 18", "Node 20", 0.99, True),
    ("We always format the code with ruff", "We always format the code with black", 0.8, True),
    ("We use pytest for unit tests", "We use Playwright for browser tests", 0.8, False),
    ("我们默认的主分支叫 main", "我们默认的主分支叫 master", 0.7, True),
    ("我们默认的主分支叫 main", "我们默认的主分支叫 master", 0.99, False),
    ("We use pytest", "We use pytest.", 0.8, False),
    ("uses Java", "uses Java 17", 0.99, True),
])
def test_the_store_scan_applies_the_same_rules(a: str, b: str, threshold: float,
                                               conflict: bool) -> None:
    assert _scan(a, b, threshold) == (is_duplicate(a, b), conflict)


@given(st.text(alphabet=st.sampled_from(list("ab1. 项目用的是")), max_size=14),
       st.text(alphabet=st.sampled_from(list("ab2. 项目用的是")), max_size=14),
       st.sampled_from([0.5, 0.8, 0.99]))
def test_scan_agrees_with_the_pure_rules(a: str, b: str, threshold: float) -> None:
    assert _scan(a, b, threshold) == (is_duplicate(a, b), conflicts(a, b, threshold))


@settings(deadline=None)  # the first example imports numpy
@given(st.binary(min_size=128, max_size=128),
       st.lists(st.lists(st.sampled_from([0, 1, 2, 7, 254, 255]), min_size=128, max_size=128)
                .map(bytes), max_size=6))
def test_bulk_signature_bounds_equal_the_pairwise_ones(mine: bytes, stored: list) -> None:
    """The numpy pass a big store's save uses gives exactly ``overlap`` for every pair,
    "255 or more" buckets included."""
    from paicli_tui.core.memory.canonical import overlap, overlaps

    assert overlaps(mine, stored) == [overlap(mine, s) for s in stored]


@settings(deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab12. 项目用的是Java")), max_size=16),
                max_size=12),
       st.text(alphabet=st.sampled_from(list("ab12. 项目用的是Java")), max_size=16),
       st.sampled_from([0.5, 0.8, 0.99]))
def test_a_big_stores_scan_finds_what_the_pairwise_scan_finds(stored: list, new: str,
                                                             threshold: float) -> None:
    """The scan with the bounds computed for all entries at once (as from 2,000 entries)
    finds the same duplicate and the same conflicts, in order, as entry by entry."""
    from paicli_tui.core.memory import dedup
    from paicli_tui.core.memory.entry import MemoryEntry

    def entries() -> list[MemoryEntry]:
        return [MemoryEntry(id=f"e{i}", content=t, created_at="", last_verified_at="",
                            project="/p") for i, t in enumerate(stored)]

    candidate = MemoryEntry(id="new", content=new, created_at="", last_verified_at="",
                            project="/p")
    results = []
    for limit in (10 ** 9, 0):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(dedup, "BULK_BOUNDS_FROM", limit)
            duplicate, found = dedup.scan(entries(), candidate, threshold)
        results.append((duplicate and duplicate.id, [e.id for e in found]))
    assert results[0] == results[1]
