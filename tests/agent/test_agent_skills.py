"""Skills (Agent Skills layout): discovery, front matter, the index in the system prompt,
load_skill injecting the body as an internal user message, /clear and summaries."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_script import ScriptedClient, Step, drain

from paicli_tui.core.agent.session import AgentSession
from paicli_tui.core.context.pairing import pairing_problems
from paicli_tui.core.messages import InternalKind, Role
from paicli_tui.core.skills import (
    MAX_INDEX_BYTES,
    MAX_INDEX_SKILLS,
    MAX_SKILL_BODY_CHARS,
    SkillCatalog,
)
from paicli_tui.core.skills.frontmatter import FrontMatterError, parse
from paicli_tui.paths import ProjectPaths


def write_skill(folder: Path, name: str, description: str = "Does a thing.",
                body: str = "Step 1. Do it.", *, front: str | None = None) -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    header = front if front is not None else f"name: {name}\ndescription: {description}"
    path.write_text(f"---\n{header}\n---\n{body}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("front", "fields"), [
    ("name: a\ndescription: plain words", {"name": "a", "description": "plain words"}),
    ('name: "a"\ndescription: \'it''s quoted\'', {"name": "a", "description": "its quoted"}),
    ("name: a\ndescription: >\n  folded\n  lines", {"name": "a", "description": "folded lines"}),
    ("name: a\ndescription: |\n  kept\n  lines", {"name": "a", "description": "kept\nlines"}),
    ("name: a # a comment\nmetadata:\n  owner: me", {"name": "a", "metadata": ""}),
])
def test_front_matter_subset(front: str, fields: dict[str, str]) -> None:
    document = parse(f"---\n{front}\n---\nbody")
    assert {k: document.fields[k] for k in fields} == fields
    assert document.body == "body"


@pytest.mark.parametrize(("text", "reason"), [
    ("no front matter", "does not start"),
    ("---\nname: a\n", "never closed"),
    ("---\njust words\n---\n", "expected 'key: value'"),
    ('---\nname: "open\n---\n', "unterminated"),
])
def test_broken_front_matter_is_a_clear_error(text: str, reason: str) -> None:
    with pytest.raises(FrontMatterError, match=reason):
        parse(text)


def test_discovery_order_and_broken_skills_reported(settings, project_dir) -> None:
    project = ProjectPaths.for_dir(project_dir)
    own, claude, home = project.skills_dirs(settings.home)
    write_skill(own, "review", "Project review rules.")
    write_skill(claude, "review", "Claude's review (shadowed).")
    write_skill(claude, "release", "How to cut a release.")
    write_skill(home, "notes", "Personal notes format.")
    write_skill(home, "broken", front="name: broken")  # no description
    write_skill(home, "Bad Name", front="name: Bad Name\ndescription: x")
    (home / "empty").mkdir()
    catalog = SkillCatalog.discover(project, settings.home)
    assert sorted(catalog.skills) == ["notes", "release", "review"]
    assert catalog.get("review").description == "Project review rules."
    assert catalog.get("review").source == "project"
    assert catalog.get("release").source == "claude"
    reasons = {p.path.parent.name: p.reason for p in catalog.problems}
    assert "no 'description'" in reasons["broken"]
    assert "lower-case" in reasons["Bad Name"]


def test_index_is_sorted_and_bounded(tmp_path) -> None:
    folder = tmp_path / "skills"
    for i in reversed(range(30)):
        write_skill(folder, f"skill-{i:02d}", "short")
    catalog = SkillCatalog.from_folders([("home", folder)])
    entries = catalog.index_entries()
    assert len(entries) == MAX_INDEX_SKILLS
    assert [n for n, _ in entries] == sorted(n for n, _ in entries)
    write_skill(folder, "aaa-long", "x" * 1000)
    for i in range(5):
        write_skill(folder, f"aab-long-{i}", "y" * 1000)
    entries = SkillCatalog.from_folders([("home", folder)]).index_entries()
    assert sum(len(f"- {n}: {d}\n".encode()) for n, d in entries) <= MAX_INDEX_BYTES
    assert len(entries) < MAX_INDEX_SKILLS


async def test_index_in_system_prompt_and_load_skill_injects_body(settings,
                                                                  project_dir) -> None:
    project = ProjectPaths.for_dir(project_dir)
    write_skill(project.skills_dirs(settings.home)[0], "changelog",
                "Write changelog entries.", body="Use the Keep a Changelog format.")
    client = ScriptedClient([Step(calls=[("load_skill", {"name": "changelog"})]),
                             Step(text="Done.")])
    session = await AgentSession.start(settings, project_dir, client=client)
    system = session.history[0].content
    assert "- changelog: Write changelog entries." in system
    assert "load_skill" in system
    await drain(session.run_turn("add a changelog entry"))
    second = client.requests[1]
    assert not pairing_problems(second)
    injected = [m for m in second if m.internal is InternalKind.SKILL]
    assert len(injected) == 1 and injected[0].role is Role.USER
    assert "Keep a Changelog" in injected[0].content
    assert injected[0].meta["skill"] == "changelog"
    # the injection comes after the tool result, not between the call and its result
    tool_at = next(i for i, m in enumerate(second) if m.role is Role.TOOL)
    assert second.index(injected[0]) == tool_at + 1
    # an injected skill is not a turn of the person's
    assert sum(m.is_real_user_turn for m in second) == 1
    session.clear_history()
    assert not [m for m in session.history if m.internal is InternalKind.SKILL]
    await session.aclose()


async def test_unknown_skill_is_a_failed_result(settings, project_dir) -> None:
    project = ProjectPaths.for_dir(project_dir)
    write_skill(project.skills_dirs(settings.home)[0], "one")
    client = ScriptedClient([Step(calls=[("load_skill", {"name": "two"})]), Step(text="ok")])
    session = await AgentSession.start(settings, project_dir, client=client)
    await drain(session.run_turn("go"))
    result = next(m for m in client.requests[1] if m.role is Role.TOOL)
    assert "No skill named 'two'" in result.content and "one" in result.content
    assert not [m for m in client.requests[1] if m.internal is InternalKind.SKILL]
    await session.aclose()


async def test_no_skills_no_tool_and_stable_prompt(settings, project_dir) -> None:
    client = ScriptedClient([Step(text="hi")])
    session = await AgentSession.start(settings, project_dir, client=client)
    assert "load_skill" not in session.tools.names()
    await drain(session.run_turn("hello"))
    assert "load_skill" not in client.requests[0][0].content
    await session.aclose()


def test_long_body_is_cut_with_a_pointer(tmp_path) -> None:
    folder = tmp_path / "skills"
    write_skill(folder, "big", body="z" * (MAX_SKILL_BODY_CHARS * 2))
    skill = SkillCatalog.from_folders([("home", folder)]).get("big")
    text = skill.injected_text()
    assert text.count("z") == MAX_SKILL_BODY_CHARS
    assert str(skill.path) in text


@pytest.mark.parametrize(("at_start", "now", "changes"), [
    ([], [], ""),
    (["deploy"], ["deploy"], ""),
    ([], ["gotest"], "new: `gotest`"),
    (["deploy"], [], "gone: `deploy`"),
    (["a", "deploy"], ["b", "c", "deploy"], "new: `b`, `c`; gone: `a`"),
])
def test_changes_since_the_session_started(tmp_path: Path, at_start: list[str],
                                           now: list[str], changes: str) -> None:
    def catalog(folder: Path, names: list[str]) -> SkillCatalog:
        for name in names:
            write_skill(folder, name)
        return SkillCatalog.from_folders([("home", folder)])

    started = catalog(tmp_path / "start", at_start)
    assert catalog(tmp_path / "now", now).changes_since(started) == changes
