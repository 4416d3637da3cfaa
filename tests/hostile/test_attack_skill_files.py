"""Attack: a skill a repository ships (`.claude/skills/<name>/SKILL.md`, read when a session
starts). A front-matter value of a word, a million blanks and another word made the comment
pattern (`\\s+#.*$`) try every start in the blanks: 40,000 took 2 s, the 1 MB a skill file may
hold most of half an hour, during which the session did not start. The comment is now found in
one pass, and cut where the pattern cut it."""

from __future__ import annotations

import re
from pathlib import Path

from doubles.one_pass import assert_read_in_one_pass
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from paicli_tui.core.skills import SkillCatalog
from paicli_tui.core.skills.frontmatter import parse


def test_a_skill_value_of_blanks_is_read_in_one_pass(tmp_path: Path) -> None:
    folder = tmp_path / ".claude" / "skills" / "deploy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: deploy\ndescription: a" + " " * 1_000_000
                                     + "b\n---\nSteps.\n")

    def discover() -> None:
        catalog = SkillCatalog.from_folders([("claude", tmp_path / ".claude" / "skills")])
        assert catalog.get("deploy") is not None

    assert_read_in_one_pass(discover)


@hypothesis_settings(max_examples=500, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([" ", "\t", "#", "a", "b", "\u3000", "x#", "# c"]),
                min_size=1, max_size=12).map("".join))
def test_a_comment_is_cut_where_the_pattern_cut_it(value: str) -> None:
    value = value.strip() or "a"
    if value[0] in "\"'[{":
        return
    expected = re.sub(r"\s+#.*$", "", value)
    assert parse(f"---\nkey: {value}\n---\n").fields["key"] == expected
