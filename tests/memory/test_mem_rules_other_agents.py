"""AGENTS.md and CLAUDE.md as project rules (behaviour §10, issue: skills/MCP/AGENTS.md)."""

from __future__ import annotations

from pathlib import Path

from paicli_tui.config import Settings
from paicli_tui.core.memory.rules import MAX_RULES_CHARS, load_project_rules
from paicli_tui.paths import normalise_project_root


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_other_agents_files_come_after_every_pai_file(settings: Settings,
                                                      project_dir: Path) -> None:
    root = normalise_project_root(project_dir)
    _write(root / "AGENTS.md", "A")
    _write(root / "CLAUDE.md", "C")
    _write(root / ".claude" / "CLAUDE.md", "CC")
    _write(root / "PAI.md", "P")
    _write(root / ".paicli" / "PAI.local.md", "DL")
    rules = load_project_rules(project_dir, settings.home)
    assert rules.text == "P\n\nDL\n\nA\n\nC\n\nCC"
    assert [Path(f).relative_to(root).as_posix() for f in rules.files] == [
        "PAI.md", ".paicli/PAI.local.md", "AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md"]


def test_agents_md_includes_follow_the_same_rules(settings: Settings,
                                                  project_dir: Path) -> None:
    root = normalise_project_root(project_dir)
    _write(root / "AGENTS.md", "top\n@docs/style.md\n@../outside.md")
    _write(root / "docs" / "style.md", "tabs, not spaces")
    rules = load_project_rules(project_dir, settings.home)
    assert "tabs, not spaces" in rules.text
    assert "[include @../outside.md skipped: outside the project]" in rules.text


def test_claude_md_pointing_at_agents_md_is_not_read_twice(settings: Settings,
                                                           project_dir: Path) -> None:
    root = normalise_project_root(project_dir)
    _write(root / "AGENTS.md", "use pnpm")
    _write(root / "CLAUDE.md", "@AGENTS.md")
    rules = load_project_rules(project_dir, settings.home)
    assert rules.text.count("use pnpm") == 1
    assert "already included" in rules.text


def test_symlinked_claude_md_is_read_once(settings: Settings, project_dir: Path) -> None:
    root = normalise_project_root(project_dir)
    _write(root / "AGENTS.md", "one rule")
    (root / "CLAUDE.md").symlink_to(root / "AGENTS.md")
    rules = load_project_rules(project_dir, settings.home)
    assert rules.text == "one rule"
    assert len(rules.files) == 1


def test_one_cap_over_all_files(settings: Settings, project_dir: Path) -> None:
    root = normalise_project_root(project_dir)
    _write(root / "PAI.md", "p" * 20_000)
    _write(root / "AGENTS.md", "a" * 20_000)
    rules = load_project_rules(project_dir, settings.home)
    assert len(rules.text) == MAX_RULES_CHARS
    assert rules.truncated
