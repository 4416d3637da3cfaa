"""The canonical forms kept beside the store: a fresh process reads them instead of computing
them, and the cache can only ever save work, never change a duplicate or conflict verdict."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from paicli_tui.core.memory import forms_cache as forms_cache_module
from paicli_tui.core.memory.canonical import _bigrams, forms, overlap, relation
from paicli_tui.core.memory.dedup import scan
from paicli_tui.core.memory.entry import MemoryEntry, clean_text, new_entry_id
from paicli_tui.core.memory.forms_cache import FormsCache
from paicli_tui.core.memory.store import MemoryStore, serialise

TEXTS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)


def _entry(content: str) -> MemoryEntry:
    return MemoryEntry(id=new_entry_id(), content=content, created_at="2026-11-01T12:00:00Z",
                       last_verified_at="2026-11-01T12:00:00Z", project="/p")


def _form_rows(cache_file: Path) -> int:
    """Lines of the forms sidecar that hold a text's forms (not the rule or a file digest)."""
    return sum(1 for line in cache_file.read_text().splitlines()[1:]
               if len(json.loads(line)) == 6)


def _fresh(path: Path) -> list[MemoryEntry]:
    """The entries as a new process sees them, with the cached forms attached."""
    entries = MemoryStore(path).entries()
    FormsCache(path.with_name(path.name + ".forms.jsonl")).attach(entries)
    return entries


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.text(max_size=80))
def test_signature_overlap_bounds_the_shared_bigrams(a: str, b: str) -> None:
    shared = len(_bigrams(a).keys & _bigrams(b).keys)
    assert overlap(forms(a).signature, forms(b).signature) >= shared


@settings(max_examples=60, deadline=None)
@given(st.lists(TEXTS, min_size=1, max_size=6, unique=True), TEXTS)
def test_cached_forms_equal_computed_forms_and_give_the_same_verdicts(
        tmp_path_factory, contents: list[str], candidate: str) -> None:
    path = tmp_path_factory.mktemp("forms") / "long_term_memory.json"
    store = MemoryStore(path)
    for content in contents:
        store.update(lambda entries, c=content: (entries.append(_entry(c)),
                                                 [e.forms for e in entries]))
    fresh = _fresh(path)
    assert all("forms" in e.__dict__ for e in fresh)  # every form came from the file
    for entry in fresh:
        computed = forms(entry.content)
        assert entry.forms == computed
    probe = _entry(candidate)
    ours = scan(fresh, probe, 0.8)
    theirs = scan([_entry(e.content) for e in fresh], probe, 0.8)
    assert (ours[0] and ours[0].content, [e.content for e in ours[1]]) == \
        (theirs[0] and theirs[0].content, [e.content for e in theirs[1]])


def test_a_save_in_a_fresh_process_reads_the_forms_and_still_finds_duplicates(
        tmp_path: Path) -> None:
    path = tmp_path / "long_term_memory.json"
    store = MemoryStore(path)
    for text in ("We deploy with helm 3.12", "Tests run with pytest -q", "用 uv 管理依赖"):
        store.update(lambda entries, t=text: (entries.append(_entry(t)),
                                              [e.forms for e in entries]))
    cache_file = path.with_name(path.name + ".forms.jsonl")
    assert stat.S_IMODE(cache_file.stat().st_mode) == 0o600
    assert _form_rows(cache_file) == 3
    fresh = _fresh(path)
    duplicate, conflicts = scan(fresh, _entry("we deploy with Helm 3.12."), 0.8)
    assert duplicate is not None and duplicate.content == "We deploy with helm 3.12"
    duplicate, conflicts = scan(fresh, _entry("We deploy with helm 3.14"), 0.8)
    assert duplicate is None and [e.content for e in conflicts] == ["We deploy with helm 3.12"]


def test_an_edited_memory_misses_the_cache_and_is_judged_by_its_new_text(
        tmp_path: Path) -> None:
    path = tmp_path / "long_term_memory.json"
    store = MemoryStore(path)
    store.update(lambda entries: (entries.append(_entry("Builds use Gradle")),
                                  [e.forms for e in entries]))
    data = json.loads(path.read_text())
    data[0]["content"] = "Builds use Maven"  # another program edits the file
    path.write_text(json.dumps(data))
    fresh = _fresh(path)
    assert "forms" not in fresh[0].__dict__
    assert scan(fresh, _entry("builds use maven"), 0.8)[0] is not None
    assert scan(fresh, _entry("builds use gradle"), 0.8)[0] is None


def test_a_cache_from_another_rule_or_a_torn_line_is_never_trusted(tmp_path: Path) -> None:
    path = tmp_path / "long_term_memory.json"
    cache_file = path.with_name(path.name + ".forms.jsonl")
    store = MemoryStore(path)
    store.update(lambda entries: (entries.append(_entry("Ports: 8080 for the API")),
                                  [e.forms for e in entries]))
    lines = cache_file.read_text().splitlines()
    row = json.loads(lines[1])
    row[1] = "a different canonical form"
    cache_file.write_text(json.dumps({"rule": "older-rule"}) + "\n" + json.dumps(row) + "\n")
    assert FormsCache(cache_file).attach(MemoryStore(path).entries()) == 0
    cache_file.write_text("\n".join(lines) + '\n["torn", "li')
    fresh = MemoryStore(path).entries()
    assert FormsCache(cache_file).attach(fresh) == 1
    assert fresh[0].forms == forms("Ports: 8080 for the API")


def test_the_cache_is_compacted_when_most_texts_are_gone(tmp_path: Path) -> None:
    path = tmp_path / "long_term_memory.json"
    store = MemoryStore(path)
    store.update(lambda entries: (entries.extend(_entry(f"fact number {i}") for i in
                                                 range(300)), [e.forms for e in entries]))
    store.update(lambda entries: (entries.__delitem__(slice(10, None)),
                                  [e.forms for e in entries]))
    cache_file = path.with_name(path.name + ".forms.jsonl")
    assert _form_rows(cache_file) == 10
    assert forms_cache_module.RULE in cache_file.read_text().splitlines()[0]


def test_relation_is_unchanged_by_where_the_forms_came_from() -> None:
    a, b = forms("Our CI runs on GitHub Actions"), forms("our CI runs on Github actions!")
    assert relation(a, b, 0.8) == "duplicate"
    assert relation(forms("uses Java 17"), forms("uses Java 21"), 0.8) == "conflict"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.tuples(st.just("add"), TEXTS),
                          st.tuples(st.just("delete"), st.integers(0, 5)),
                          st.tuples(st.just("new process"), st.none())), max_size=12))
def test_appending_to_the_written_file_gives_the_bytes_a_full_write_gives(
        tmp_path_factory, steps: list[tuple[str, object]]) -> None:
    """Saves append to the bytes of a file this program wrote instead of encoding every entry
    again: the file is always exactly what serialising its entries gives, through adds,
    deletes and other processes' writes, and holds exactly the memories saved."""
    path = tmp_path_factory.mktemp("append") / "long_term_memory.json"
    store = MemoryStore(path)
    expected: list[str] = []
    for action, value in steps:
        if action == "add":
            store.update(lambda entries, v=value: entries.append(_entry(v)))
            expected.append(value)
        elif action == "delete" and expected:
            index = value % len(expected)
            store.update(lambda entries, i=index: entries.pop(i))
            expected.pop(index)
        elif action == "new process":
            store = MemoryStore(path)
        if path.exists():
            entries = MemoryStore(path).entries()
            assert [e.content for e in entries] == [clean_text(t) for t in expected]
            assert path.read_bytes() == serialise(entries).encode("utf-8")
