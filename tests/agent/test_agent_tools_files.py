"""File tools: path guard, paging, binary refusal, exact edits, diffs and approval."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from paicli_tui.core.agent.tools import (
    EditFileTool,
    ListDirTool,
    ReadFileTool,
    ToolArgumentError,
    WriteFileTool,
    builtin_tools,
    resolve_in_project,
)
from paicli_tui.core.contracts.asks import ApprovalDecision, ApprovalRequest, approve_all, deny_all
from paicli_tui.core.contracts.session_state import SessionState
from paicli_tui.core.contracts.tools import ToolContext


def ctx(project: Path, settings, approve=approve_all) -> ToolContext:
    return ToolContext(project_root=project, settings=settings,
                       session=SessionState("s1"), approve=approve)


@pytest.fixture
def project(project_dir: Path) -> Path:
    (project_dir / "src").mkdir()
    (project_dir / "src" / "app.py").write_text(
        "".join(f"line {i}\n" for i in range(1, 501)), encoding="utf-8")
    (project_dir / "README.md").write_text("# Demo\n中文说明\n", encoding="utf-8")
    return project_dir


@pytest.mark.parametrize("raw", [
    "../outside.txt", "src/../../outside.txt", "/etc/passwd", "~/secret", "", "   ",
])
def test_path_guard_refuses_escapes(project: Path, raw: str) -> None:
    with pytest.raises(ToolArgumentError):
        resolve_in_project(project, raw)


def test_path_guard_refuses_symlink_out(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    os.symlink(outside, project / "link")
    os.symlink(outside / "secret.txt", project / "file_link")
    for raw in ("link/secret.txt", "file_link", "link"):
        with pytest.raises(ToolArgumentError, match="outside"):
            resolve_in_project(project, raw)


def test_path_guard_accepts_inside_paths(project: Path) -> None:
    os.symlink(project / "src", project / "inner_link")
    assert resolve_in_project(project, "src/./app.py") == (project / "src/app.py").resolve()
    assert resolve_in_project(project, str(project / "README.md")).name == "README.md"
    assert resolve_in_project(project, "inner_link/app.py").name == "app.py"
    assert resolve_in_project(project, "src/../README.md").name == "README.md"


async def test_read_whole_file_is_numbered_and_offloadable(project, settings) -> None:
    out = await ReadFileTool().run({"path": "README.md"}, ctx(project, settings))
    assert out.status == "done" and not out.bypass_offload
    assert out.content == "README.md (2 lines)\n     1\t# Demo\n     2\t中文说明"


@pytest.mark.parametrize("args,header,first,last", [
    ({"offset": 1}, "src/app.py lines 1-200 of 500 (more: offset=201)", "line 1", "line 200"),
    ({"offset": 401, "limit": 200}, "src/app.py lines 401-500 of 500", "line 401", "line 500"),
    ({"limit": 5}, "src/app.py lines 1-5 of 500 (more: offset=6)", "line 1", "line 5"),
    ({"offset": "10", "limit": "2"}, "src/app.py lines 10-11 of 500 (more: offset=12)",
     "line 10", "line 11"),
])
async def test_paged_reads(project, settings, args, header, first, last) -> None:
    out = await ReadFileTool().run({"path": "src/app.py", **args}, ctx(project, settings))
    lines = out.content.splitlines()
    assert lines[0] == header
    assert lines[1].endswith("\t" + first) and lines[-1].endswith("\t" + last)
    assert out.bypass_offload


# A minified bundle's line of a megabyte was cut to its first 40,000 characters without a
# word (paged reads are never offloaded), so the model took the cut line for the whole.
_CUT = ": grep_code shows the part of a long line around a match)"


@pytest.mark.parametrize(("lengths", "offset", "header"), [
    ([100, 50_000], 1, "lines 1-1 of 2 (more: offset=2)"),  # the long line: a page of its own
    ([100, 50_000], 2, "lines 2-2 of 2 (line 2 has 50,000 characters, the first 40,000 are "
                       "shown" + _CUT),
    ([1_000_000], 1, "lines 1-1 of 1 (line 1 has 1,000,000 characters, the first 40,000 are "
                     "shown" + _CUT),
    ([40_000], 1, "lines 1-1 of 1"),
])
async def test_a_long_line_cut_in_a_page_says_so(project, settings, lengths: list[int],
                                                 offset: int, header: str) -> None:
    (project / "dist").mkdir()
    (project / "dist" / "app.js").write_text("\n".join("x" * n for n in lengths) + "\n")
    out = await ReadFileTool().run({"path": "dist/app.js", "offset": offset, "limit": 2},
                                   ctx(project, settings))
    assert out.content.splitlines()[0] == f"dist/app.js {header}"
    assert len(out.content) < 41_000


async def test_read_refusals(project, settings, tmp_path) -> None:
    (project / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    tool, context = ReadFileTool(), ctx(project, settings)
    cases = {"image.png": "binary", "src": "folder", "missing.txt": "does not exist",
             "../x": "outside"}
    for path, word in cases.items():
        out = await tool.run({"path": path}, context)
        assert out.status == "failed" and word in out.content, out.content
    out = await tool.run({"path": "README.md", "offset": "abc"}, context)
    assert out.status == "failed" and "integer" in out.content
    out = await tool.run({"path": "README.md", "offset": 99}, context)
    assert "past the end" in out.content


async def test_list_dir(project, settings) -> None:
    (project / ".git").mkdir()
    out = await ListDirTool().run({}, ctx(project, settings))
    assert out.content.splitlines() == ["./", "src/", "README.md  20 B"]
    deep = await ListDirTool().run({"path": ".", "depth": 2}, ctx(project, settings))
    assert "  app.py" in deep.content and ".git" not in deep.content
    bad = await ListDirTool().run({"path": "README.md"}, ctx(project, settings))
    assert bad.status == "failed"


async def test_write_file_creates_with_diff_after_approval(project, settings) -> None:
    seen: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> ApprovalDecision:
        seen.append(request)
        return ApprovalDecision.ONCE

    out = await WriteFileTool().run({"path": "new/dir/a.txt", "content": "one\ntwo\n"},
                                    ctx(project, settings, approve))
    assert out.status == "done"
    assert (project / "new/dir/a.txt").read_text() == "one\ntwo\n"
    assert seen[0].tool == "write_file" and seen[0].summary == "create new/dir/a.txt (2 lines)"
    assert "--- /dev/null" in seen[0].detail and "+++ b/new/dir/a.txt" in seen[0].detail
    assert "+two" in seen[0].detail


async def test_denied_write_changes_nothing(project, settings) -> None:
    out = await WriteFileTool().run({"path": "README.md", "content": "gone"},
                                    ctx(project, settings, deny_all))
    assert out.status == "denied" and "declined" in out.content
    assert (project / "README.md").read_text(encoding="utf-8").startswith("# Demo")


async def test_always_approves_the_rest_of_the_session(project, settings) -> None:
    calls = []

    async def approve(request):
        calls.append(request)
        return ApprovalDecision.ALWAYS

    context = ctx(project, settings, approve)
    await WriteFileTool().run({"path": "a.txt", "content": "1"}, context)
    await WriteFileTool().run({"path": "b.txt", "content": "2"}, context)
    assert len(calls) == 1 and "write_file" in context.session.always_approved


async def test_auto_approve_setting_never_asks(project, settings) -> None:
    async def explode(request):
        raise AssertionError("should not ask")

    out = await WriteFileTool().run({"path": "a.txt", "content": "x"},
                                    ctx(project, settings.with_overrides(auto_approve=True),
                                        explode))
    assert out.status == "done"


@pytest.mark.parametrize("old,new,status,word", [
    ("line 7\n", "LINE SEVEN\n", "done", "edit src/app.py"),
    ("no such text", "x", "failed", "not found"),
    ("line 1", "x", "failed", "occurs"),        # line 1, line 10, line 100... not unique
    ("", "x", "failed", "required"),
    ("line 7\n", "line 7\n", "failed", "same"),
])
async def test_edit_file_exact_unique_match(project, settings, old, new, status, word) -> None:
    out = await EditFileTool().run({"path": "src/app.py", "old_string": old, "new_string": new},
                                   ctx(project, settings))
    assert out.status == status and word in out.content, out.content
    text = (project / "src/app.py").read_text()
    assert ("LINE SEVEN" in text) is (status == "done")


async def test_edit_keeps_file_mode_and_outside_edit_refused(project, settings) -> None:
    script = project / "run.sh"
    script.write_text("echo hi\n")
    script.chmod(0o755)
    out = await EditFileTool().run({"path": "run.sh", "old_string": "hi", "new_string": "yo"},
                                   ctx(project, settings))
    assert out.status == "done" and script.stat().st_mode & 0o777 == 0o755
    out = await EditFileTool().run({"path": "/etc/hosts", "old_string": "a", "new_string": "b"},
                                   ctx(project, settings))
    assert out.status == "failed" and "outside" in out.content


def test_builtin_tools_have_schemas() -> None:
    names = [t.name for t in builtin_tools()]
    assert names == ["read_file", "list_dir", "write_file", "edit_file", "execute_command"]
    for tool in builtin_tools():
        assert tool.parameters["type"] == "object" and tool.description
    assert [t.requires_approval for t in builtin_tools()] == [False, False, True, True, True]


async def test_whole_read_of_a_saved_output_comes_back_paged(project, settings) -> None:
    # Saved outputs bypass offload (behaviour §3), so an unpaged read serves 200 lines, not 2M chars.
    saved = project / ".paicli" / "tool-outputs" / "s1"
    saved.mkdir(parents=True)
    (saved / "001-execute_command.txt").write_text("".join(f"out {i}\n" for i in range(1, 1001)))
    out = await ReadFileTool().run({"path": ".paicli/tool-outputs/s1/001-execute_command.txt"},
                                   ctx(project, settings))
    lines = out.content.splitlines()
    assert lines[0] == (".paicli/tool-outputs/s1/001-execute_command.txt lines 1-200 of 1000 "
                        "(more: offset=201)")
    assert lines[-1].endswith("\tout 200") and out.bypass_offload


@pytest.mark.parametrize(("original", "old", "new", "expected"), [
    (b"a\r\nb\r\nc\r\n", "b\n", "B\n", b"a\r\nB\r\nc\r\n"),           # CRLF kept everywhere
    (b"a\r\nb\r\nc\r\n", "a\nb", "x\ny", b"x\r\ny\r\nc\r\n"),
    (b"a\nb\r\nc\n", "c", "C", b"a\nb\r\nC\n"),                       # mixed: only the edit
    (b"a\nb\r\nc\n", "a\nb", "x\ny", b"x\ny\r\nc\n"),
    (b"a\r\nb\r\n", "b", "B\nC", b"a\r\nB\r\nC\r\n"),                  # new lines in file style
    (b"\xef\xbb\xbfhello\n", "hello", "bye", b"\xef\xbb\xbfbye\n"),   # BOM kept
])
async def test_edit_changes_only_the_edited_bytes(project, settings, original, old, new,
                                                  expected) -> None:
    target = project / "f.txt"
    target.write_bytes(original)
    out = await EditFileTool().run({"path": "f.txt", "old_string": old, "new_string": new},
                                   ctx(project, settings))
    assert out.status == "done", out.content
    assert target.read_bytes() == expected


async def test_edit_refuses_invalid_utf8(project, settings) -> None:
    target = project / "latin1.txt"
    # past the binary sniff (first 8 KiB): a stray Latin-1 byte deep in a text file
    original = b"ok\n" + b"plain line\n" * 1_000 + b"caf\xe9\n"
    target.write_bytes(original)
    out = await EditFileTool().run({"path": "latin1.txt", "old_string": "ok",
                                    "new_string": "fine"}, ctx(project, settings))
    assert out.status == "failed" and "UTF-8" in out.content
    assert target.read_bytes() == original


@pytest.mark.parametrize("tool,arguments", [
    (ReadFileTool(), {"path": "a\x00b"}),
    (ListDirTool(), {"path": "src\x00"}),
    (WriteFileTool(), {"path": "new\x00.txt", "content": "x"}),
    (EditFileTool(), {"path": "README.md\x00", "old_string": "a", "new_string": "b"}),
])
async def test_a_path_with_a_nul_byte_is_a_clear_refusal(project, settings, tool,
                                                         arguments) -> None:
    # the path functions raised ValueError: "failed unexpectedly: embedded null byte"
    out = await tool.run(arguments, ctx(project, settings))
    assert out.status == "failed" and "holds a NUL byte; no file has such a name" in out.content
    assert "unexpectedly" not in out.content


@pytest.mark.parametrize("tool,arguments", [
    (ReadFileTool(), {"path": "pipe"}),
    (WriteFileTool(), {"path": "pipe", "content": "x"}),
    (EditFileTool(), {"path": "pipe", "old_string": "a", "new_string": "b"}),
])
async def test_a_fifo_is_named_for_what_it_is_and_never_opened(project, settings, tool,
                                                               arguments) -> None:
    os.mkfifo(project / "pipe")  # opening it for reading would wait for a writer forever
    out = await tool.run(arguments, ctx(project, settings))
    assert out.status == "failed"
    assert out.content.endswith("pipe is not a regular file; it cannot be read or edited as "
                                "text")


@pytest.mark.parametrize(("text", "arguments", "start"), [
    ("one\n", {}, "one.txt (1 line)\n"),  # it read "(1 lines)" in the block's preview
    ("one\ntwo\n", {}, "one.txt (2 lines)\n"),
    ("one\n", {"offset": 5}, "one.txt has only 1 line; offset 5 is past the end."),
])
async def test_read_counts_lines_in_words(project, settings, text, arguments, start) -> None:
    (project / "one.txt").write_text(text, encoding="utf-8")
    out = await ReadFileTool().run({"path": "one.txt", **arguments}, ctx(project, settings))
    assert out.content.startswith(start), out.content
