"""End to end: ``ask_before_summary`` on, ``paicli-tui exec`` never blocks. Over a few
``--resume`` turns in an 8k window against the local strict server, the summary is made
without waiting, and the run says it did not ask: a ``context_summary_consent`` event
(answer ``not_asked``) in ``--json``, a ``[context]`` line in plain output, a ledger record.
The warning that a summary is coming is there too, once before it."""

from __future__ import annotations

import json
from pathlib import Path

from e2e_fake_openai import FakeOpenAI
from test_e2e_exec import _env, _exec

from paicli_tui.config import load_settings
from paicli_tui.core.context.ledger import SessionLedger

TURNS = 7


def _prompt(turn: int) -> str:
    return f"TURN {turn}: note this down\n" + "".join(
        f"item {turn}.{n}: the build passed on the second try\n" for n in range(60))


def test_exec_summarises_without_asking_and_says_so(tmp_path: Path, paicli_home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = _env(paicli_home, PAICLI_ASK_BEFORE_SUMMARY="1")
    events: list[dict] = []
    plain = ""
    with FakeOpenAI({}) as server:
        flags = ["--provider", "custom", "--base-url", server.base_url, "--model", "small-1",
                 "--window", "8000"]
        session = None
        for turn in range(1, TURNS + 1):
            resume = ["--resume", session] if session else []
            as_json = ["--json"] if turn % 2 else []  # plain output every other turn
            result = _exec([_prompt(turn), *flags, *as_json, *resume], env, project)
            assert result.returncode == 0, result.stderr
            if as_json:
                lines = [json.loads(line) for line in result.stdout.splitlines()]
                session = lines[0]["session"]
                events += lines
            else:
                plain += result.stderr
        assert server.problems == []
    consent = [e for e in events if e["type"] == "context_summary_consent"]
    plain_consent = [line for line in plain.splitlines()
                     if line.startswith("[context] summary not asked")]
    assert consent or plain_consent, [e["type"] for e in events]
    for record in consent:
        assert record["answer"] == "not_asked" and record["tokens"] >= 5_000
        assert "nobody can answer here" in record["detail"]
    ahead = [e for e in events if e["type"] == "context_summary_ahead"]
    ahead_plain = [line for line in plain.splitlines() if "[context] summary ahead" in line]
    assert len(ahead) + len(ahead_plain) >= 1
    ledger = SessionLedger.open(load_settings({}, {"PAICLI_HOME": str(paicli_home)}).home,
                                session)
    lines = ledger.path.read_text(encoding="utf-8").splitlines()
    records = [r for r in map(json.loads, lines) if r.get("type") == "event"]
    answers = [r["answer"] for r in records if r["kind"] == "summary_consent"]
    assert answers and set(answers) == {"not_asked"}
    assert len(answers) == len(consent) + len(plain_consent)
    summaries = [r for r in records if r["kind"] == "compaction" and r["tier"] == "summary"
                 and r["changed"]]
    assert len(summaries) == len(answers)  # every summary made is one that was not asked
