"""The blind search sets (benchmarks/blind_sets): question files sound, verifier able to fail.

The corpora are third-party sources that the repository does not hold, so these tests check
the question files on their own, run the target verifier on small TypeScript and Go sources
written here (right and wrong ranges), and check the real targets only when a clone of the
set's repository is named by ``PAICLI_BLIND_<SET>_REPO``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

SETS_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "blind_sets"
sys.path.insert(0, str(SETS_DIR))
import prepare  # noqa: E402
import verify_targets  # noqa: E402

SETS = ["go_cobra", "ts_query_core"]

TS_SOURCE = """\
/**
 * Doubles a value.
 */
export function twice(a: number): number
export function twice(a: any): any {
  const text = `braces { in ${'a template'} }`
  if (a) {
    return { value: a * 2 }
  }
  return a
}

export class Box {
  #size = 0
  #grow(by: number): void {
    this.#size += by // a } in a comment
  }
}
"""

GO_SOURCE = """\
package demo

// pad pads a string.
func pad(s string) string {
	r := '{'
	raw := `}}}`
	if s == "" {
		return "{"
	}
	return s + string(r) + raw
}

func (c *Thing) Name() string {
	return c.name
}
"""


def test_the_shipped_sets_are_listed() -> None:
    assert prepare.sets() == SETS


@pytest.mark.parametrize("name", SETS)
def test_question_file_is_sound(name: str) -> None:
    doc = json.loads((SETS_DIR / name / "questions.json").read_text(encoding="utf-8"))
    source = prepare.load_source(name)
    lang = "go" if source["files"][0].endswith(".go") else "ts"
    assert verify_targets.verify_questions(doc, source, lang) == []
    assert len(doc["questions"]) == 30
    assert source["commit"] == doc["version"] and len(source["commit"]) == 40
    assert source["repo"].startswith("https://") and source["sha256"]


@pytest.mark.parametrize(
    ("lang", "source", "name", "start", "end", "ok"),
    [
        ("ts", TS_SOURCE, "twice", 4, 11, True),     # overload signature + body
        ("ts", TS_SOURCE, "twice", 5, 11, True),
        ("ts", TS_SOURCE, "twice", 5, 10, False),   # ends inside the body
        ("ts", TS_SOURCE, "twice", 5, 12, False),   # runs past the closing brace
        ("ts", TS_SOURCE, "twice", 6, 11, False),   # does not start at the declaration
        ("ts", TS_SOURCE, "grow", 15, 17, True),    # a #private method
        ("ts", TS_SOURCE, "grow", 15, 18, False),
        ("go", GO_SOURCE, "pad", 4, 11, True),      # rune and raw-string braces ignored
        ("go", GO_SOURCE, "pad", 4, 9, False),
        ("go", GO_SOURCE, "Name", 13, 15, True),    # a method with a receiver
        ("go", GO_SOURCE, "Name", 12, 15, False),
    ],
)
def test_check_range_accepts_exact_declarations_only(
        lang: str, source: str, name: str, start: int, end: int, ok: bool) -> None:
    lines = source.splitlines()
    if lang == "ts":  # verify() steps over overload signatures the same way
        while "{" not in lines[start - 1] and verify_targets.declares(lines[start], name, lang):
            start += 1
    problem = verify_targets.check_range(lines, name, start, end, lang)
    assert (problem is None) is ok, problem


def test_question_rules_catch_a_leaked_name_and_a_wrong_count() -> None:
    source = {"dest_prefix": "", "files": ["a.go"]}
    q = {"id": "en01", "lang": "en", "kind": "semantic", "question": "where does pad happen?",
         "targets": [{"path": "a.go", "name": "pad", "start_line": 1, "end_line": 2}]}
    problems = verify_targets.verify_questions({"questions": [q]}, source, "go")
    assert "en01: question contains the name pad" in problems
    assert "set: 1 en questions, want 15" in problems
    assert "set: 0 zh questions, want 15" in problems


def test_prepare_says_how_to_get_an_absent_source(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(prepare.repo_env_var("go_cobra"), raising=False)
    code, message = prepare.prepare("go_cobra", tmp_path, None)
    assert code == prepare.ABSENT
    assert "https://github.com/spf13/cobra" in message and "--repo" in message
    code, message = prepare.prepare("go_cobra", tmp_path, str(tmp_path))  # not a clone
    assert code == prepare.ABSENT
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", SETS)
def test_targets_hold_on_the_pinned_sources(name: str, tmp_path: Path) -> None:
    repo = os.environ.get(prepare.repo_env_var(name))
    if not repo:
        pytest.skip(f"set {prepare.repo_env_var(name)} to a clone to check the real targets")
    code, message = prepare.prepare(name, tmp_path, repo)
    assert code == 0, message
    assert verify_targets.verify(name, tmp_path, use_tool=True) == []
