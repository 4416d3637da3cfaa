"""``paicli-tui memory ...``: the scriptable memory commands and their exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli_tui.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["memory", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_save_list_search_verify_delete(project_dir: Path, capsys) -> None:
    p = ("--project", str(project_dir))
    code, out, _ = _run(capsys, "save", "我们团队统一用", "pytest", "写测试", *p, "--json")
    saved = json.loads(out)
    assert code == 0 and saved["status"] == "saved"
    assert saved["entry"]["content"] == "我们团队统一用 pytest 写测试"
    entry_id = saved["entry"]["id"]
    code, out, _ = _run(capsys, "list", *p)
    assert code == 0 and entry_id in out and "pytest" in out
    code, out, _ = _run(capsys, "search", "pytest", *p, "--keywords-only", "--json")
    assert [r["id"] for r in json.loads(out)] == [entry_id]
    code, out, _ = _run(capsys, "verify", entry_id[:6], *p)
    assert code == 0 and out.startswith("verified")
    code, out, _ = _run(capsys, "delete", entry_id, *p)
    assert code == 0
    code, out, _ = _run(capsys, "list", *p, "--json")
    assert json.loads(out) == []
    code, _, err = _run(capsys, "delete", entry_id, *p)
    assert code == 1 and "no memory" in err


def test_conflict_exits_3_and_prints_both(project_dir: Path, capsys) -> None:
    p = ("--project", str(project_dir))
    _run(capsys, "save", "项目使用 Java 17", *p)
    code, out, err = _run(capsys, "save", "项目使用 Java 21", *p)
    assert code == 3 and "项目使用 Java 17" in err and "项目使用 Java 21" in err
    code, out, _ = _run(capsys, "save", "项目使用 Java 21", *p, "--json")
    payload = json.loads(out)
    assert code == 3 and payload["status"] == "conflict"
    old_id = payload["conflicts"][0]["id"]
    code, out, _ = _run(capsys, "replace", old_id, "项目使用 Java 21", *p)
    assert code == 0 and out.startswith("replaced")
    code, out, _ = _run(capsys, "save", "项目使用 Java 11", *p, "--force")
    assert code == 0
    code, out, _ = _run(capsys, "list", *p, "--json")
    assert sorted(e["content"] for e in json.loads(out)) == ["项目使用 Java 11", "项目使用 Java 21"]


def test_global_and_all(tmp_path: Path, capsys) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    _run(capsys, "save", "one uses Gradle", "--project", str(one))
    _run(capsys, "save", "I prefer short answers", "--global", "--project", str(one))
    _, out, _ = _run(capsys, "list", "--project", str(two), "--json")
    assert [e["content"] for e in json.loads(out)] == ["I prefer short answers"]
    _, out, _ = _run(capsys, "list", "--all", "--project", str(two), "--json")
    assert len(json.loads(out)) == 2


def test_clear_asks_unless_yes(project_dir: Path, capsys, monkeypatch) -> None:
    p = ("--project", str(project_dir))
    _run(capsys, "save", "one fact here", *p)
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    code, _, err = _run(capsys, "clear", *p)
    assert code == 2 and "--yes" in err
    code, out, _ = _run(capsys, "clear", *p, "--yes")
    assert code == 0 and "forgot 1" in out


def test_bad_input_is_a_usage_error(project_dir: Path, tmp_path: Path, capsys) -> None:
    code, _, err = _run(capsys, "save", " ", "--project", str(project_dir))
    assert code == 2 and "empty" in err
    # an empty query is a mistake to point out, not a search that found nothing
    code, out, err = _run(capsys, "search", "  ", "--project", str(project_dir))
    assert code == 2 and "the query is empty" in err and out == ""
    code, out, _ = _run(capsys, "search", "", "--project", str(project_dir), "--json")
    assert code == 2 and json.loads(out) == {"status": "error", "message": "the query is empty"}
    code, _, err = _run(capsys, "list", "--project", str(tmp_path / "missing"))
    assert code == 2 and f"project folder {str(tmp_path / 'missing')!r} does not exist" in err


def test_save_with_a_linked_file(project_dir: Path, capsys) -> None:
    (project_dir / "pom.xml").write_text("<project/>", encoding="utf-8")
    code, out, _ = _run(capsys, "save", "项目使用 Java 17", "--file", "pom.xml",
                        "--project", str(project_dir), "--json")
    assert code == 0 and json.loads(out)["entry"]["metadata"]["source_file"] == "pom.xml"


@pytest.mark.parametrize(("argv", "code", "status"), [
    (["list"], 0, None),
    (["list", "--all"], 0, None),
    (["search", "pytest", "--keywords-only"], 0, None),
    (["save", "我们用", "pytest"], 0, "saved"),
    (["save", "We", "use", "pytest"], 0, "duplicate"),
    (["save", "项目使用 Java 21"], 3, "conflict"),
    (["save", "项目使用 Java 21", "--force"], 0, "saved"),
    (["save", "x" * 2_001], 2, "refused"),
    (["save", "fact", "--file", "missing.txt"], 2, "refused"),
    (["verify", "nope0000"], 1, "not_found"),
    (["delete", "nope0000"], 1, "not_found"),
    (["replace", "nope0000", "text"], 1, "not_found"),
    (["clear"], 2, "needs_confirmation"),
    (["clear", "--global", "--yes"], 0, "cleared"),
])
def test_every_action_speaks_json_with_its_exit_code(project_dir: Path, capsys, monkeypatch,
                                                     argv: list[str], code: int,
                                                     status: str | None) -> None:
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    p = ("--project", str(project_dir))
    _run(capsys, "save", "We use pytest", *p)
    _run(capsys, "save", "项目使用 Java 17", *p)
    got, out, err = _run(capsys, *argv, *p, "--json")
    assert got == code, (out, err)
    payload = json.loads(out)  # one JSON document on stdout, whatever happened
    if status is None:
        assert isinstance(payload, list)
    else:
        assert payload["status"] == status
        if code:
            assert payload.get("message")


def test_errors_are_json_too(tmp_path: Path, capsys) -> None:
    code, out, err = _run(capsys, "list", "--project", str(tmp_path / "missing"), "--json")
    assert code == 2 and json.loads(out) == {"status": "error",
                                             "message": f"project folder "
                                                        f"{str(tmp_path / 'missing')!r} "
                                                        "does not exist"}
    assert err == ""


def test_a_newer_memory_file_is_a_clear_error(settings, project_dir: Path, capsys) -> None:
    path = settings.home.memory_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"schema_version": 99, "entries": []}', encoding="utf-8")
    code, out, _ = _run(capsys, "save", "We use pytest", "--project", str(project_dir), "--json")
    assert code == 1 and "Upgrade paicli-tui" in json.loads(out)["message"]
    code, _, _ = _run(capsys, "list", "--project", str(project_dir))
    assert code == 0  # reading a newer file still works; only changing it is refused


@pytest.mark.parametrize("before,after", [
    (["--json"], []),
    (["--project", "{project}"], ["--json"]),
    (["--project", "{project}", "--json"], []),
    ([], ["--project", "{project}", "--json"]),
])
def test_project_and_json_work_before_the_action_too(before, after, project_dir: Path,
                                                     monkeypatch, capsys) -> None:
    """README: every sub-command takes --project DIR and --json. `paicli-tui memory --help`
    listed neither, and `paicli-tui memory --json list` was 'unrecognized arguments:
    --json' (exit 2): memory takes them before its action as well as after it."""
    monkeypatch.chdir(project_dir)
    assert main(["memory", "save", "the build uses gradle"]) == 0
    capsys.readouterr()
    fill = [a.replace("{project}", str(project_dir)) for a in before]
    assert main(["memory", *fill, "list",
                 *[a.replace("{project}", str(project_dir)) for a in after]]) == 0
    assert [e["content"] for e in json.loads(capsys.readouterr().out)] == \
        ["the build uses gradle"]


def test_memory_help_names_project_and_json(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["memory", "--help"])
    out = capsys.readouterr().out
    assert "--project DIR" in out and "--json" in out


SECRET = "the deploy token is ghp_abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.mark.parametrize("argv,code,status,sensitive,kept", [
    (["save", SECRET], 2, "refused", True, "the api uses REST"),
    (["replace", "{id}", SECRET], 2, "refused", True, "the api uses REST"),
    (["replace", "{id}", SECRET, "--sensitive"], 0, "replaced", None, SECRET),
    (["replace", "{id}", "the api uses GraphQL"], 0, "replaced", None, "the api uses GraphQL"),
])
def test_replace_refuses_a_secret_as_save_does(argv, code, status, sensitive, kept,
                                               project_dir: Path, capsys) -> None:
    """`memory save` refuses a text that looks like a secret, but `memory replace ID` put
    'the deploy token is ghp_…' in place of a memory without a word: the same check, and
    the same --sensitive to confirm."""
    p = ("--project", str(project_dir))
    _, out, _ = _run(capsys, "save", "the api uses REST", *p, "--json")
    entry_id = json.loads(out)["entry"]["id"]
    code_, out, _ = _run(capsys, *[a.replace("{id}", entry_id) for a in argv], *p, "--json")
    payload = json.loads(out)
    assert (code_, payload["status"], payload.get("sensitive")) == (code, status, sensitive)
    _, out, _ = _run(capsys, "list", *p, "--json")
    assert [e["content"] for e in json.loads(out)] == [kept]


@pytest.mark.parametrize("decision,confirmed,written", [
    ("replace", True, True),
    ("keep_both", True, True),
    ("replace", False, False),
    ("keep_both", False, False),
])
def test_a_confirmed_secret_stays_confirmed_through_its_conflict(
        decision, confirmed, written, settings, project_dir: Path) -> None:
    """`/save --sensitive <text>` that conflicted with a memory, answered 'keep both' in the
    dialog, was refused as a secret: the confirmation did not reach the answer's write (and
    with replace now checked, 'replace' would be refused too). The answer carries it."""
    from paicli_tui.core.contracts.asks import ConflictDecision
    from paicli_tui.core.memory.book import MemoryBook
    from paicli_tui.ui.core_adapters import MemoryAdapter

    book = MemoryBook(settings, project_dir)
    old = SECRET.replace("0123456789", "9876543210")  # the same token, changed
    book.save(old, scope="project", allow_sensitive=True)
    adapter = MemoryAdapter(book)
    outcome = adapter.save(SECRET, "project", allow_sensitive=True)
    assert outcome.conflicts
    try:
        adapter.decide(SECRET, "project", ConflictDecision(decision), None,
                       tuple(c.id for c in outcome.conflicts), allow_sensitive=confirmed)
    except ValueError:
        pass
    assert (SECRET in [e.content for e in book.list_visible()]) == written


@pytest.mark.parametrize("limit,code", [("0", 2), ("-3", 2), ("1", 0)])
def test_memory_search_limit_below_one_is_a_usage_error(limit, code, project_dir: Path,
                                                        capsys) -> None:
    """`memory search x --limit 0` printed one memory (the limit silently raised to 1),
    where `search x --top-k 0` is a usage error: a limit below 1 is refused the same way."""
    p = ("--project", str(project_dir))
    _run(capsys, "save", "the build uses gradle", *p)
    got, out, err = _run(capsys, "search", "gradle", "--limit", limit, "--keywords-only", *p,
                         "--json")
    assert got == code
    if code:
        assert json.loads(out) == {"status": "error", "message": "--limit must be at least 1"}
    else:
        assert [m["content"] for m in json.loads(out)] == ["the build uses gradle"]
