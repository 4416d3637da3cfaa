"""/init's PAI.md draft: facts read from the project's own files, nothing invented."""

from __future__ import annotations

from pathlib import Path

from paicli_tui.core.memory.rules_draft import draft_rules


def _write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_python_project(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", "[project]\nname='x'\n[project.optional-dependencies]\n"
           "test=['pytest']\n[tool.ruff]\nline-length = 100\n[tool.pytest.ini_options]\n")
    _write(tmp_path, "src/app/main.py", "print(1)\n")
    _write(tmp_path, "tests/test_main.py", "")
    _write(tmp_path, ".editorconfig", "[*]\nindent_style = space\nindent_size = 4\n")
    text = draft_rules(tmp_path)
    assert "- Python (2 files)" in text
    assert "Install: `pip install -e '.[test]'`" in text and "Test: `pytest -q`" in text
    assert "Lint: `ruff check .`" in text
    assert "lines at most 100 characters" in text
    assert "Indent with space, 4 wide" in text
    assert "- `src/`" in text and "- `tests/`" in text


def test_node_project_with_pnpm(tmp_path: Path) -> None:
    _write(tmp_path, "package.json", '{"scripts": {"build": "tsc", "test": "vitest"}}')
    _write(tmp_path, "pnpm-lock.yaml", "")
    _write(tmp_path, "tsconfig.json", '{"compilerOptions": {"strict": true}}')
    _write(tmp_path, "src/index.ts", "")
    _write(tmp_path, "node_modules/dep/index.js", "")
    text = draft_rules(tmp_path)
    assert "Install: `pnpm install`" in text and "Test: `pnpm test`" in text
    assert "Build: `pnpm run build`" in text and "Use pnpm, not npm" in text
    assert "TypeScript in strict mode." in text
    assert "JavaScript" not in text  # node_modules is skipped


def test_go_and_make(tmp_path: Path) -> None:
    _write(tmp_path, "go.mod", "module x\n")
    _write(tmp_path, "main.go", "package main\n")
    _write(tmp_path, "Makefile", ".PHONY: check\ncheck:\n\tgo vet ./...\nVAR := 1\n")
    text = draft_rules(tmp_path)
    assert "Test: `go test ./...`" in text and "`make check`" in text
    assert "make VAR" not in text


def test_empty_project_says_so(tmp_path: Path) -> None:
    text = draft_rules(tmp_path)
    assert "(no source files found)" in text and "(no build or test configuration" in text
