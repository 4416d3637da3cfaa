"""Saving, replacing, verifying and scoping memories (behaviour §11–13), with a fixed clock."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from paicli_tui.config import Settings
from paicli_tui.core.memory.book import MemoryBook
from paicli_tui.core.memory.entry import SOURCE_AUTO, UNVERIFIED, VERIFIED

T0 = datetime(2026, 11, 1, 9, 0, 0, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def book(settings: Settings, project_dir: Path, clock: Clock) -> MemoryBook:
    return MemoryBook(settings, project_dir, clock=clock)


def test_save_then_list(book: MemoryBook) -> None:
    result = book.save("我们用 Maven 构建")
    assert result.status == "saved" and result.written
    (entry,) = book.list_visible()
    assert entry.content == "我们用 Maven 构建"
    assert entry.project == book.project_root and entry.scope == "project"
    assert entry.verification == VERIFIED and entry.token_count > 0


def test_duplicate_adds_nothing_and_refreshes_explicit_saves(book: MemoryBook, clock: Clock
                                                             ) -> None:
    first = book.save("We use pytest.").entry
    clock.now = T0 + timedelta(days=40)
    result = book.save("we use   PYTEST")
    assert result.status == "duplicate" and result.entry.id == first.id
    (entry,) = book.list_visible()
    assert entry.last_verified_at.startswith("2026-12-11")
    assert entry.created_at.startswith("2026-11-01")


def test_automatic_duplicates_do_not_refresh(book: MemoryBook, clock: Clock) -> None:
    book.save("We use pytest.")
    clock.now = T0 + timedelta(days=40)
    assert book.save("We use pytest", source=SOURCE_AUTO).status == "duplicate"
    assert book.list_visible()[0].last_verified_at.startswith("2026-11-01")


@pytest.mark.parametrize(("old", "new"), [
    ("项目使用 Java 17", "项目使用 Java 21"),
    ("Node 18", "Node 20"),
])
def test_conflict_writes_nothing_and_shows_both(book: MemoryBook, old: str, new: str) -> None:
    existing = book.save(old).entry
    before = book.store.path.read_bytes()
    result = book.save(new)
    assert result.status == "conflict" and not result.written
    assert [e.id for e in result.conflicts] == [existing.id]
    assert result.entry.content == new
    assert book.store.path.read_bytes() == before
    forced = book.save(new, force=True)
    assert forced.status == "saved"
    assert [e.content for e in book.list_visible()] == [old, new]


def test_dice_threshold_is_a_setting(settings: Settings, project_dir: Path) -> None:
    a, b = "我们默认的主分支叫 main", "我们默认的主分支叫 master"  # Dice 0.75
    strict = MemoryBook(settings.with_overrides(memory_dice_threshold=0.7), project_dir)
    strict.save(a)
    assert strict.save(b).status == "conflict"
    strict.clear("all")
    off = MemoryBook(settings.with_overrides(memory_dice_threshold=0.99), project_dir)
    off.save(a)
    assert off.save(b).status == "saved"


def test_only_same_type_scope_and_project_are_compared(settings: Settings, tmp_path: Path
                                                       ) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    a, b = MemoryBook(settings, one), MemoryBook(settings, two)
    assert a.save("项目使用 Java 17").status == "saved"
    assert b.save("项目使用 Java 21").status == "saved"
    assert a.save("项目使用 Java 21", scope="global").status == "saved"
    assert a.save("项目使用 Java 17", type="preference").status == "saved"


def test_replace_rules(book: MemoryBook) -> None:
    java17 = book.save("项目使用 Java 17").entry
    java11 = book.save("项目使用 Java 11", force=True).entry
    refused = book.replace(java17.id, "项目使用 Java 21")
    assert refused.status == "conflict" and [e.id for e in refused.conflicts] == [java11.id]
    assert book.delete(java11.id) is not None
    done = book.replace(java17.id, "项目使用 Java 21")
    assert done.status == "replaced" and done.entry.id == java17.id
    assert [e.content for e in book.list_visible()] == ["项目使用 Java 21"]
    assert book.replace("nope0000", "x").status == "not_found"
    other = book.save("We use pytest").entry
    assert book.replace(other.id, "项目使用 java 21").status == "refused"  # duplicate text


def test_ids_resolve_by_unique_prefix(book: MemoryBook) -> None:
    entry = book.save("Lombok is forbidden").entry
    assert book.get(entry.id[:4]) == entry
    assert book.get(entry.id[:3]) is None


def test_scope_isolation_between_projects_and_through_a_symlink(
        settings: Settings, tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    link = tmp_path / "link-to-one"
    link.symlink_to(one)
    MemoryBook(settings, one).save("Project one uses Gradle")
    MemoryBook(settings, two).save("Project two uses Maven")
    MemoryBook(settings, two).save("I prefer short answers", scope="global")
    seen_one = {e.content for e in MemoryBook(settings, one).list_visible()}
    assert seen_one == {"Project one uses Gradle", "I prefer short answers"}
    for alias in (link, str(one) + "/", os.path.relpath(one)):
        assert {e.content for e in MemoryBook(settings, alias).list_visible()} == seen_one
    assert len(MemoryBook(settings, two).list_all()) == 3
    # the other project's entry cannot be changed from here
    foreign = next(e for e in MemoryBook(settings, two).list_visible() if "two" in e.content)
    assert MemoryBook(settings, one).delete(foreign.id) is None


def test_verify_and_clear(book: MemoryBook, clock: Clock, settings: Settings, tmp_path: Path
                          ) -> None:
    entry = book.save("We use pytest", source=SOURCE_AUTO).entry
    assert entry.verification == UNVERIFIED
    clock.now = T0 + timedelta(days=31)
    assert book.is_stale(book.get(entry.id))
    verified = book.verify(entry.id)
    assert verified.verification == VERIFIED and not book.is_stale(verified)
    assert book.verify("missing") is None
    book.save("I like dark themes", scope="global")
    other = tmp_path / "other"
    other.mkdir()
    MemoryBook(settings, other).save("Other project fact")
    assert book.clear("project") == 1
    assert book.clear("global") == 1
    assert len(book.list_all()) == 1
    assert book.clear("all") == 1


@pytest.mark.parametrize(("days", "stale"), [(0, False), (29, False), (30, False),
                                             (30.01, True), (31, True), (365, True)])
def test_stale_after_thirty_days(book: MemoryBook, clock: Clock, days: float, stale: bool) -> None:
    entry = book.save("We use pytest").entry
    clock.now = T0 + timedelta(days=days)
    assert book.is_stale(entry) is stale


@pytest.mark.parametrize(("mtime_offset_s", "stale"), [(-60, False), (60, True)])
def test_stale_when_linked_file_changed_after_verification(
        book: MemoryBook, clock: Clock, project_dir: Path, mtime_offset_s: int, stale: bool
) -> None:
    source = project_dir / "pom.xml"
    source.write_text("<project/>", encoding="utf-8")
    moment = (T0 + timedelta(seconds=mtime_offset_s)).timestamp()
    os.utime(source, (moment, moment))
    entry = book.save("项目使用 Java 17", source_file="pom.xml").entry
    clock.now = T0 + timedelta(days=1)
    assert book.is_stale(entry) is stale


def test_bad_input_is_refused_clearly(book: MemoryBook) -> None:
    assert book.save("   ").status == "refused"
    assert "2000" in book.save("x" * 2001).message
    assert book.save("fine", scope="team").status == "refused"
    assert book.list_visible() == []


def test_linked_files_must_be_inside_the_project(book: MemoryBook, project_dir: Path,
                                                 tmp_path: Path) -> None:
    (project_dir / "build.gradle").write_text("", encoding="utf-8")
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("", encoding="utf-8")
    linked = book.save("We build with Gradle", source_file=str(project_dir / "build.gradle"))
    assert linked.entry.source_file == "build.gradle"
    assert "inside the project" in book.save("x y z", source_file=str(outside)).message
    assert "inside the project" in book.save("x y z", source_file="../elsewhere.txt").message
    assert "no such file" in book.save("x y z", source_file="missing.txt").message
    assert len(book.list_visible()) == 1


def test_a_global_memory_links_its_file_absolutely(settings: Settings, tmp_path: Path,
                                                   clock: Clock) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    (one / "pom.xml").write_text("<project/>", encoding="utf-8")
    (two / "pom.xml").write_text("<project/>", encoding="utf-8")
    old = (T0 - timedelta(seconds=60)).timestamp()
    os.utime(one / "pom.xml", (old, old))
    entry = MemoryBook(settings, one, clock=clock).save(
        "All services use Java 17", scope="global", source_file="pom.xml").entry
    assert entry.source_file == str((one / "pom.xml").resolve())
    clock.now = T0 + timedelta(days=1)
    # Seen from another project whose own pom.xml is newer: still judged by one/pom.xml.
    assert not MemoryBook(settings, two, clock=clock).is_stale(entry)
