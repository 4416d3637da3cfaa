"""End to end: a long `paicli-tui exec --resume` session in a 32k window against a strict
local server whose summaries ignore the format (plain prose, as many small models write).

Every turn must answer; every request must fit the window and pass the server's protocol
checks; the failed summaries and the model-free digest must be visible in the JSON events
and the ledger; the circuit breaker must stop the useless summary calls.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e_fake_openai import FakeOpenAI
from test_e2e_exec import _env, _exec

from paicli_tui.config import load_settings
from paicli_tui.core.context.ledger import SessionLedger

TURNS = 26
WINDOW = 32_000


def _files(root: Path) -> Path:
    root.mkdir()
    for i in range(1, 2 * TURNS + 1):
        body = "".join(f"f{i} line {n:03d}: " + "lorem ipsum dolor " * 5 + "\n"
                       for n in range(100))
        (root / f"f{i}.txt").write_text(body)  # ~10,000 characters: kept whole (tier 1)
    return root


@pytest.mark.slow
def test_every_turn_answers_when_summaries_ignore_the_format(tmp_path: Path,
                                                             paicli_home: Path) -> None:
    project = _files(tmp_path / "project")
    script = {t: [[("read_file", {"path": f"f{2 * t - 1}.txt"})],
                  [("read_file", {"path": f"f{2 * t}.txt"})]] for t in range(1, TURNS + 1)}
    events: list[dict] = []
    with FakeOpenAI(script, summaries="prose") as server:
        env = _env(paicli_home)
        flags = ["--provider", "custom", "--base-url", server.base_url, "--model", "small-1",
                 "--window", str(WINDOW), "--yes", "--json"]
        session = None
        for turn in range(1, TURNS + 1):
            resume = ["--resume", session] if session else []
            # each request carries a pasted log (~2,000 tokens) that clearing cannot remove
            paste = "".join(f"log {turn}.{n}: step finished with status ok\n"
                            for n in range(180))
            result = _exec([f"TURN {turn}: read the next two files\n{paste}", *flags,
                            *resume], env, project)
            assert result.returncode == 0, result.stderr
            lines = [json.loads(line) for line in result.stdout.splitlines()]
            session = lines[0]["session"]
            assert lines[-1]["type"] == "turn_finished", lines[-1]
            assert lines[-1]["final_text"] == f"Turn {turn} is complete.", lines[-1]
            events += lines
        assert server.problems == []
        agent_requests = [b for b, r in zip(server.raw_bodies, server.requests, strict=True)
                          if r.get("tools")]
        largest = max(len(body) for body in agent_requests) // 4  # the server's own count
        summary_calls = server.summary_calls
    assert largest < WINDOW
    seen = [(e["type"], e.get("tier"), e.get("tokens_before")) for e in events
            if e["type"].startswith("context_")]
    failed = [e for e in events if e["type"] == "context_compaction_failed"]
    assert failed, seen
    digests = [e for e in events if e["type"] == "context_compacted" and e["tier"] == "digest"]
    assert failed and failed[0]["tier"] == "summary" and failed[0]["outcome"] == "failed"
    assert digests and all(e["outcome"] == "compacted" and e["path"] for e in digests)
    assert any("summaries failed in a row" in e["detail"] for e in failed), \
        [(e["type"], e["tier"], e["tokens_before"], e["detail"][:60]) for e in events
         if e["type"].startswith("context_") and e["tier"] != "clearing"]
    # three failed summaries of at most 8 calls each, then the breaker: far below one per turn
    assert summary_calls <= 3 * 8 + 8
    transcript = project / digests[0]["path"]
    assert "TURN 1: read the next two files" in transcript.read_text()
    ledger = SessionLedger.open(load_settings({}, {"PAICLI_HOME": str(paicli_home)}).home,
                                session)
    tiers = [(e["tier"], e.get("outcome")) for e in ledger.compaction_history()]
    assert ("digest", "compacted") in tiers and ("summary", "failed") in tiers
    before = ledger.checkpoint_before_last_compaction()
    assert before is not None and len(before) > 3  # the view before the last digest
