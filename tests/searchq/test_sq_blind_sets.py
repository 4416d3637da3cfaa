"""The blind search sets (benchmarks/blind_sets): question files sound, verifier able to fail.

The corpora are third-party sources that the repository does not hold, so these tests check
the question files on their own, run the target verifier on small TypeScript, Go, Java and
JavaScript sources written here (right and wrong ranges), and check the real targets only
when a clone of the set's repository is named by ``PAICLI_BLIND_<SET>_REPO``.
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

SETS = ["go_cobra", "java_gson", "java_jenetics_ext", "java_jox", "js_axios", "ts_query_core"]
QUESTIONS = {"go_cobra": 30, "java_gson": 40, "java_jenetics_ext": 40, "java_jox": 30,
             "js_axios": 30, "ts_query_core": 30}

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

JAVA_SOURCE = """\
package demo;

/** Counts things. */
public final class Counter<T> {
  private int n;

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public String toString() {
    return "{" + n + '}';
  }

  Counter(int start) {
    this.n = start; // a { in a comment
  }

  static <E> java.util.List<E> listOf(
      E first, E second) {
    if (first == null) {
      throw new IllegalArgumentException("}");
    }
    return java.util.Arrays.asList(first, second);
  }

  private static <V> java.util.Map<String, V>
  index(final V value) {
    return java.util.Map.of("{", value);
  }
}
"""

JS_SOURCE = """\
const isName = (str) => /^[-_a-z{}"'`]+$/.test(str.trim());

export const pieces = function* (chunk, size) {
  if (!size) {
    yield chunk;
    return;
  }
  yield chunk.slice(0, size);
}

const lower = str => {
  return str.replace(/[{"]/g, '').toLowerCase();
};

class Part {
  static escape(name) {
    return String(name).replace(/[\\r"]/g, (m) => ({'"': '%22'}[m]));
  }
}
"""


def test_the_shipped_sets_are_listed() -> None:
    assert prepare.sets() == SETS


@pytest.mark.parametrize("name", SETS)
def test_question_file_is_sound(name: str) -> None:
    doc = json.loads((SETS_DIR / name / "questions.json").read_text(encoding="utf-8"))
    source = prepare.load_source(name)
    lang = verify_targets.language(source["files"][0])
    assert verify_targets.verify_questions(doc, source, lang) == []
    assert len(doc["questions"]) == QUESTIONS[name] == 2 * source.get("per_lang", 15)
    assert len({q["targets"][0]["path"] for q in doc["questions"]}) >= 8  # spread over files
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
        ("java", JAVA_SOURCE, "toString", 7, 11, True),   # annotations belong to it
        ("java", JAVA_SOURCE, "toString", 9, 11, False),  # leaves its annotations out
        ("java", JAVA_SOURCE, "toString", 8, 11, False),
        ("java", JAVA_SOURCE, "toString", 7, 10, False),
        ("java", JAVA_SOURCE, "Counter", 13, 15, True),    # a constructor
        ("java", JAVA_SOURCE, "Counter", 12, 15, False),
        ("java", JAVA_SOURCE, "listOf", 17, 23, True),     # generic, parameters wrapped
        ("java", JAVA_SOURCE, "listOf", 17, 22, False),
        ("java", JAVA_SOURCE, "listOf", 17, 24, False),
        ("java", JAVA_SOURCE, "asList", 22, 22, False),    # a call is no declaration
        ("java", JAVA_SOURCE, "index", 25, 28, True),      # the name opens the next line
        ("java", JAVA_SOURCE, "index", 26, 28, False),     # leaves its return type out
        ("java", JAVA_SOURCE, "index", 25, 27, False),
        ("java", JAVA_SOURCE, "index", 24, 28, False),
        ("js", JS_SOURCE, "pieces", 3, 9, True),           # a generator bound to a const
        ("js", JS_SOURCE, "pieces", 3, 8, False),
        ("js", JS_SOURCE, "pieces", 2, 9, False),
        ("js", JS_SOURCE, "lower", 11, 13, True),          # braces inside a regex ignored
        ("js", JS_SOURCE, "lower", 11, 14, False),
        ("js", JS_SOURCE, "escape", 16, 18, True),         # a static method
        ("js", JS_SOURCE, "escape", 16, 17, False),
    ],
)
def test_check_range_accepts_exact_declarations_only(
        lang: str, source: str, name: str, start: int, end: int, ok: bool) -> None:
    lines = source.splitlines()
    start = verify_targets.past_overloads(lines, name, start, end, lang)  # as verify() does
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


@pytest.mark.parametrize(
    ("before", "is_regex"),
    [("", True), ("x = ", True), ("f(", True), ("return ", True), ("a && ", True),
     ("total ", False), ("f(a) ", False), ("items[0] ", False), ("10 ", False),
     ("returned ", False)],
)
def test_a_slash_opens_a_regex_only_where_a_value_may_start(before: str, is_regex: bool) -> None:
    assert verify_targets.starts_regex(before) is is_regex


def test_a_division_keeps_the_braces_after_it_counted() -> None:
    code, state = verify_targets.strip_code("  return a / b + {x: '}'}.x / 2 }", None, "js")
    assert (code.count("{"), code.count("}"), state) == (1, 2, None)
