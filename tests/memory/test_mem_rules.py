"""PAI.md loading (behaviour §10): order, includes, confinement, cap, report."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli_tui.config import Settings
from paicli_tui.core.memory.rules import MAX_RULES_CHARS, load_project_rules
from paicli_tui.paths import normalise_project_root


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_five_locations_in_order(settings: Settings, project_dir: Path) -> None:
    root = normalise_project_root(project_dir)
    written = [
        _write(settings.home.global_rules_file, "G"),
        _write(root / "PAI.md", "P"),
        _write(root / ".paicli" / "PAI.md", "D"),
        _write(root / "PAI.local.md", "L"),
        _write(root / ".paicli" / "PAI.local.md", "DL"),
    ]
    rules = load_project_rules(project_dir, settings.home)
    assert rules.text == "G\n\nP\n\nD\n\nL\n\nDL"
    assert [Path(f).name for f in rules.files] == [p.name for p in written]
    assert not rules.truncated


def test_no_files_means_empty_rules(settings: Settings, project_dir: Path) -> None:
    rules = load_project_rules(project_dir, settings.home)
    assert rules.text == "" and rules.files == ()


def test_includes_nest_three_levels(settings: Settings, project_dir: Path) -> None:
    _write(project_dir / "PAI.md", "top\n@docs/one.md\nend")
    _write(project_dir / "docs" / "one.md", "one\n@sub/two.md")
    _write(project_dir / "docs" / "sub" / "two.md", "two\n@../../three.md")
    _write(project_dir / "three.md", "three\n@four.md")
    _write(project_dir / "four.md", "four")
    rules = load_project_rules(project_dir, settings.home)
    assert rules.text.splitlines() == [
        "top", "one", "two", "three", "[include @four.md skipped: deeper than 3 levels]", "end"]
    assert [Path(f).name for f in rules.files] == ["PAI.md", "one.md", "two.md", "three.md"]


@pytest.mark.parametrize("target", ["../outside.md", "/etc/hostname", "link.md"])
def test_includes_never_leave_the_project(settings: Settings, project_dir: Path,
                                          target: str) -> None:
    outside = _write(project_dir.parent / "outside.md", "SECRET OUTSIDE")
    (project_dir / "link.md").symlink_to(outside)
    _write(project_dir / "PAI.md", f"rules\n@{target}")
    rules = load_project_rules(project_dir, settings.home)
    assert "SECRET OUTSIDE" not in rules.text
    assert "outside the project" in rules.text


def test_missing_and_cyclic_includes_are_marked(settings: Settings, project_dir: Path) -> None:
    _write(project_dir / "PAI.md", "a\n@b.md\n@missing.md")
    _write(project_dir / "b.md", "b\n@PAI.md")
    rules = load_project_rules(project_dir, settings.home)
    assert rules.text.splitlines() == [
        "a", "b", "[include @PAI.md skipped: includes itself]",
        "[include @missing.md skipped: not found]"]


def test_total_is_capped(settings: Settings, project_dir: Path) -> None:
    _write(project_dir / "PAI.md", "规" * 20_000)
    _write(project_dir / "PAI.local.md", "x" * 10_000)
    rules = load_project_rules(project_dir, settings.home)
    assert len(rules.text) == MAX_RULES_CHARS
    assert rules.truncated and rules.text.startswith("规")


def test_at_lines_inside_code_blocks_are_code(settings: Settings, project_dir: Path) -> None:
    _write(project_dir / "inc.md", "included")
    _write(project_dir / "PAI.md", "```java\n@Override\n@inc.md\n```\n@inc.md")
    rules = load_project_rules(project_dir, settings.home)
    assert rules.text.splitlines() == ["```java", "@Override", "@inc.md", "```", "included"]
