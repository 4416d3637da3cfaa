"""Memory retrieval quality, black-box: what `paicli-tui exec` actually puts in front of the model.

    python benchmarks/bench_memory_retrieval.py [--sets dev,blind] [--cold] [--jobs 2]
    python benchmarks/bench_memory_retrieval.py --check     # shared words message ↔ target
    python benchmarks/bench_memory_retrieval.py --sets blind2,blind3 --jobs 1   # once, at the end
    python benchmarks/bench_memory_retrieval.py --in-process --concepts none   # table off
    python benchmarks/bench_memory_retrieval.py --in-process --everyday   # + the everyday probe
    python benchmarks/bench_memory_retrieval.py --in-process --selector oracle   # light model

For each set in benchmarks/memret/ (README there: which sets are blind; the default leaves
out the unseen ``blind2`` and ``blind3``, run only by name, once a session, with the final
configuration), a temporary PAICLI_HOME gets the set's store (this project's, global and
another project's memories, each verified ``age_days`` ago), and every message runs as one
`paicli-tui exec` task against a local scripted OpenAI-compatible server on 127.0.0.1. The
memories counted as shown are the ids in the ``<long_term_memory>`` block of the newest user
message of the first request.

``--selector`` (in process) puts a scripted light model in the turn, through the app's own
choice (`LocalMemoryService.selected_block`: the candidates, the request, the answer's parser):
``oracle`` answers the numbers of the candidates that are targets (``none`` when no
candidate is), so its recall is the most a light model can reach from the candidates it is
offered; ``top3`` always answers 1 2 3 (a model that only trusts the order); ``random3``
three numbers at random. Scripted answers bound what a model can do here; they are not what
any model does.

The vector cache is filled first (one `paicli-tui memory search`), as in a store that has
been used before; ``--cold`` skips that (a first-ever run ranks by what is ready in time).

Measures: recall (targets shown / targets), precision (shown that were targets / shown, over
messages that have targets), recall per message language, for cross-language targets (the
memory in the other language) and paraphrased ones (same language, no shared word), memories
shown for messages with nothing relevant, and other-project leaks.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

# the end-to-end tests' scripted OpenAI-compatible server (it also checks every request
# against the protocol)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "e2e"))
from e2e_fake_openai import FakeOpenAI  # noqa: E402

SETS_DIR = Path(__file__).resolve().parent / "memret"
UNSEEN_SETS = frozenset({"blind2", "blind3"})
"""Sets nobody tuning retrieval may look into: only their aggregate figures are printed or
written (no misses, no shown ids per message)."""
DEFAULT_SETS = "dev,blind"
"""What a run without ``--sets`` measures: the sets tuned on, never an unseen one."""
_ID_LINE = re.compile(r"^- \[([^\]]+)\]", re.MULTILINE)
_CJK = re.compile(r"[\u4e00-\u9fff]")


def language(text: str) -> str:
    return "zh" if _CJK.search(text) else "en"


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PAICLI_", "OLLAMA_")) and not k.endswith("_API_KEY")}
    env.update(PAICLI_HOME=str(home), PAICLI_API_KEY="bench-key")
    return env


def _write_store(data: dict[str, Any], home: Path, project: Path, other: Path) -> dict[str, str]:
    """The set's memories in PAICLI_HOME's memory file; returns entry id → set key."""
    from paicli_tui.core.memory.budget import estimate_tokens
    from paicli_tui.core.memory.entry import MemoryEntry, format_time
    from paicli_tui.core.memory.store import MemoryStore
    from paicli_tui.paths import normalise_project_root

    roots = {"project": str(normalise_project_root(project)),
             "other": str(normalise_project_root(other))}
    now = datetime.now(UTC)  # exec reads the real clock: ages count from now
    entries = []
    for item in data["memories"]:
        moment = format_time(now - timedelta(days=item["age_days"]))
        scope = "global" if item["scope"] == "global" else "project"
        entries.append(MemoryEntry(
            id=f"m{item['key']}{abs(hash(item['content'])) % 10**6:06d}", content=item["content"],
            created_at=moment, last_verified_at=moment, scope=scope,
            project=roots.get(item["scope"]), token_count=estimate_tokens(item["content"])))
    store = MemoryStore(home / "memory" / "long_term_memory.json")
    store.update(lambda current: current.extend(entries))
    return {e.id: item["key"] for e, item in zip(entries, data["memories"], strict=True)}


def _run_set(data: dict[str, Any], *, cold: bool, jobs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="paicli-memret-") as tmp:
        home, project, other = Path(tmp, "home"), Path(tmp, "mall"), Path(tmp, "other")
        for folder in (home, project, other):
            folder.mkdir()
        (home / "config.toml").write_text("auto_extract = false\n")
        ids = _write_store(data, home, project, other)
        env = _env(home)
        if not cold:
            subprocess.run([sys.executable, "-m", "paicli_tui", "memory", "search", "warm up"],
                           cwd=project, env=env, capture_output=True, timeout=600, check=True,
                           stdin=subprocess.DEVNULL)
        with FakeOpenAI({}) as model:
            model.chat = True  # every task is a message without a script: a short answer

            def one(message: dict[str, Any]) -> None:
                prompt = message["text"]
                args = [sys.executable, "-m", "paicli_tui", "exec", prompt, "--provider",
                        "custom", "--base-url", model.base_url, "--model", "fake-1", "--yes",
                        "--json"]
                done = subprocess.run(args, cwd=project, env=env, capture_output=True,
                                      text=True, timeout=300, stdin=subprocess.DEVNULL)
                if done.returncode != 0:
                    raise RuntimeError(f"exec failed for {message['key']}: {done.stderr[-800:]}")

            with ThreadPoolExecutor(max_workers=jobs) as pool:
                list(pool.map(one, data["messages"]))
            if model.problems:
                raise RuntimeError(f"requests broke the protocol: {model.problems[:3]}")
            first = _first_requests(model.requests, [m["text"] for m in data["messages"]])
            shown = {m["key"]: _shown_in(first.get(m["text"]), ids, m["key"])
                     for m in data["messages"]}
    return score(data, shown)


def _first_requests(requests: list[dict[str, Any]], texts: list[str]
                    ) -> dict[str, dict[str, Any]]:
    """The first agent request (one with tools) of each task, by its message text. The
    person's words follow the turn-context block, so the newest user message ends with them;
    the longest message it ends with is its task (a task is known by its own words: a marker
    added to it would be a keyword and change what is retrieved)."""
    first: dict[str, dict[str, Any]] = {}
    by_length = sorted(texts, key=len, reverse=True)
    for body in requests:
        users = [m for m in body["messages"] if m.get("role") == "user"]
        if not body.get("tools") or not users:
            continue
        content = str(users[-1].get("content", "")).rstrip()
        task = next((t for t in by_length if content.endswith(t)), None)
        if task is not None:
            first.setdefault(task, body)
    return first


def _shown_in(body: dict[str, Any] | None, ids: dict[str, str], key: str) -> list[str]:
    """The set keys of the memories in the request's ``<long_term_memory>`` block."""
    if body is None:
        raise RuntimeError(f"no request seen for {key}")
    users = [m for m in body["messages"] if m.get("role") == "user"]
    content = str(users[-1]["content"])
    block = content.split("<long_term_memory>", 1)[1] if "<long_term_memory>" in content else ""
    return [ids.get(i, f"?{i}") for i in _ID_LINE.findall(block)]


@contextmanager
def _local_service(data: dict[str, Any]) -> Iterator[tuple[Any, dict[str, str]]]:
    """The set's store behind a LocalMemoryService in this process (waiting for vectors), with
    entry id → set key."""
    from paicli_tui.config import load_settings
    from paicli_tui.core.memory.service import LocalMemoryService

    with tempfile.TemporaryDirectory(prefix="paicli-memret-") as tmp:
        home, project, other = Path(tmp, "home"), Path(tmp, "mall"), Path(tmp, "other")
        for folder in (home, project, other):
            folder.mkdir()
        ids = _write_store(data, home, project, other)
        settings = load_settings(env={"PAICLI_HOME": str(home)})
        yield LocalMemoryService(settings, project, background_vectors=False), ids


def _shown_for_turn(service: Any, ids: dict[str, str], text: str) -> list[str]:
    block = service.injection_block(text, 640)
    return [ids.get(i, f"?{i}") for i in _ID_LINE.findall(block)]


def _run_in_process(data: dict[str, Any]) -> dict[str, Any]:
    """The same store and messages through LocalMemoryService.injection_block in this process
    (waiting for vectors): seconds instead of minutes, for tuning on the dev set."""
    with _local_service(data) as (service, ids):
        shown = {m["key"]: _shown_for_turn(service, ids, m["text"]) for m in data["messages"]}
    return score(data, shown)


_CANDIDATE_LINE = re.compile(r"^(\d+)\. (.*)$", re.MULTILINE)


def scripted_selector(kind: str, text_of: dict[str, str], targets: list[str],
                      draw: Any) -> Any:
    """A light model answering the memory-choice request by script (``--selector``)."""
    wanted = [" ".join(text_of[t].split()) for t in targets]

    async def complete(_system: str, user: str) -> str:
        block = user.split("<memories>", 1)[1].split("</memories>", 1)[0]
        lines = [(int(n), body.rstrip("…")) for n, body in _CANDIDATE_LINE.findall(block)]
        if kind == "top3":
            return " ".join(str(n) for n, _ in lines[:3])
        if kind == "random3":
            return " ".join(str(n) for n, _ in draw.sample(lines, min(3, len(lines))))
        hits = [str(n) for n, body in lines if any(w.startswith(body) for w in wanted)]
        return ", ".join(hits) or "none"
    return complete


def _run_with_selector(data: dict[str, Any], kind: str) -> dict[str, Any]:
    """Each message's turn through the light model's choice, answered by ``kind``."""
    import asyncio
    import random

    text_of = {m["key"]: m["content"] for m in data["memories"]}
    draw = random.Random(7)
    offered: list[int] = []
    with _local_service(data) as (service, ids):
        shown = {}
        for m in data["messages"]:
            complete = scripted_selector(kind, text_of, m["targets"], draw)
            choice = asyncio.run(service.selected_block(m["text"], 640, complete))
            offered.append(choice.candidates)
            shown[m["key"]] = [ids.get(i, f"?{i}") for i in _ID_LINE.findall(choice.block)]
    result = score(data, shown)
    result["offered_avg"] = round(sum(offered) / max(1, len(offered)), 1)
    return result


def run_everyday(data: dict[str, Any], store: str, probe: dict[str, Any]) -> dict[str, Any]:
    """The everyday probe (everyday.json) as turns against one seen store: memories shown for
    messages that need none, or only the ones listed as welcome for this store."""
    with _local_service(data) as (service, ids):
        shown = {m["key"]: _shown_for_turn(service, ids, m["text"]) for m in probe["messages"]}
    return score_everyday(probe, store, shown)


def score_everyday(probe: dict[str, Any], store: str, shown: dict[str, list[str]]
                   ) -> dict[str, Any]:
    wrong: dict[str, list[str]] = {}
    welcome = 0
    for message in probe["messages"]:
        allowed = set(message["welcome"].get(store, ()))
        got = shown[message["key"]]
        welcome += sum(1 for k in got if k in allowed)
        bad = [k for k in got if k not in allowed]
        if bad:
            wrong[message["key"]] = bad
    return {"messages": len(probe["messages"]), "wrong": sum(len(v) for v in wrong.values()),
            "welcome": welcome, "with_wrong": len(wrong), "wrong_by_message": wrong}


def use_concept_table(choice: str) -> None:
    """In this process, read memories and messages with another concept table: ``none`` (no
    table: the proxy for a domain the shipped table does not cover), ``shipped``, or a file
    in concepts.tsv's format."""
    from paicli_tui.core.memory import terms

    if choice == "shipped":
        return
    text = "" if choice == "none" else Path(choice).read_text(encoding="utf-8")
    table = terms.parse_concepts(text)
    terms.concepts = lambda: table  # the module looks the table up through this name


def score(data: dict[str, Any], shown: dict[str, list[str]]) -> dict[str, Any]:
    scope_of = {m["key"]: m["scope"] for m in data["memories"]}
    text_of = {m["key"]: m["content"] for m in data["memories"]}
    hits = {"all": [0, 0], "en": [0, 0], "zh": [0, 0], "cross": [0, 0], "para": [0, 0]}
    shown_relevant = correct = 0
    irrelevant_shown: list[int] = []
    leaks = 0
    misses = []
    for message in data["messages"]:
        got = shown[message["key"]]
        leaks += sum(1 for k in got if scope_of.get(k) == "other")
        targets = message["targets"]
        if not targets:
            irrelevant_shown.append(len(got))
            continue
        shown_relevant += len(got)
        lang = language(message["text"])
        for target in targets:
            kind = "cross" if language(text_of[target]) != lang else "para"
            hit = target in got
            for bucket in ("all", lang, kind):
                hits[bucket][0] += hit
                hits[bucket][1] += 1
            if hit:
                correct += 1
            else:
                misses.append(f"{message['key']}→{target}")
    ratio = {k: (round(v[0] / v[1], 3) if v[1] else None) for k, v in hits.items()}
    return {
        "recall": ratio["all"], "recall_en": ratio["en"], "recall_zh": ratio["zh"],
        "recall_cross": ratio["cross"], "recall_para": ratio["para"],
        "targets": hits["all"][1], "found": hits["all"][0],
        "precision": round(correct / shown_relevant, 3) if shown_relevant else None,
        "shown_relevant": shown_relevant,
        "irrelevant_avg": round(sum(irrelevant_shown) / max(1, len(irrelevant_shown)), 2),
        "leaks": leaks, "misses": misses, "shown": shown,
    }


def check_shared_words(data: dict[str, Any]) -> list[str]:
    """Message/target pairs that share a keyword (jieba words of 2+ characters, English stems):
    the set promises there are none."""
    from paicli_tui.core.text.jieba_setup import cut_words

    def words(text: str) -> set[str]:
        out = set()
        for w in cut_words(text, None):
            w = w.lower().strip()
            if len(w) < 2 or not any(ch.isalnum() for ch in w):
                continue
            out.add(w[:5] if w.isascii() else w)  # a crude stem for English forms
        return out

    text_of = {m["key"]: m["content"] for m in data["memories"]}
    problems = []
    for message in data["messages"]:
        for target in message["targets"]:
            shared = words(message["text"]) & words(text_of[target])
            if shared:
                problems.append(f"{message['key']}→{target}: {sorted(shared)}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=DEFAULT_SETS)
    parser.add_argument("--cold", action="store_true", help="do not fill the vector cache first")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--check", action="store_true", help="list shared words and stop")
    parser.add_argument("--in-process", action="store_true",
                        help="call the memory service directly instead of running exec")
    parser.add_argument("--concepts", default="shipped",
                        help="with --in-process: 'none' (no concept table) or a table file")
    parser.add_argument("--everyday", action="store_true",
                        help="also run the everyday probe (everyday.json) on each seen set's "
                             "store, in process")
    parser.add_argument("--selector", choices=("oracle", "top3", "random3"),
                        help="with --in-process: a scripted light model chooses the memories")
    parser.add_argument("--out", help="write the full results (shown ids per message) here")
    args = parser.parse_args()
    if args.selector and not args.in_process:
        parser.error("--selector needs --in-process")
    if args.concepts != "shipped":
        if not args.in_process:
            parser.error("--concepts needs --in-process (exec reads the shipped table)")
        use_concept_table(args.concepts)
    results: dict[str, dict[str, Any]] = {}
    everyday: dict[str, dict[str, Any]] = {}
    for name in args.sets.split(","):
        data = json.loads((SETS_DIR / f"{name}.json").read_text(encoding="utf-8"))
        if args.check:
            problems = check_shared_words(data)
            print(f"{name}: {len(problems)} pairs share a word")
            for line in problems if name not in UNSEEN_SETS else ():
                print("  ", line)
            continue
        results[name] = (_run_with_selector(data, args.selector) if args.selector
                         else _run_in_process(data) if args.in_process
                         else _run_set(data, cold=args.cold, jobs=args.jobs))
        if args.everyday and name not in UNSEEN_SETS:
            probe = json.loads((SETS_DIR / "everyday.json").read_text(encoding="utf-8"))
            everyday[name] = run_everyday(data, name, probe)
    if args.check:
        return 0
    columns = ["recall", "recall_en", "recall_zh", "recall_cross", "recall_para", "precision",
               "irrelevant_avg", "leaks"] + (["offered_avg"] if args.selector else [])
    print(f"{'measure':<16}" + "".join(f"{n:>10}" for n in results))
    for column in columns:
        print(f"{column:<16}" + "".join(f"{str(r[column]):>10}" for r in results.values()))
    for name, r in results.items():
        line = (f"{name}: {r['found']}/{r['targets']} targets shown, {r['shown_relevant']} "
                f"shown for messages with targets; ")
        print(line + ("per-message results withheld (an unseen set)" if name in UNSEEN_SETS
                      else f"missed {', '.join(r['misses']) or 'none'}"))
    for name, r in everyday.items():
        detail = "; ".join(f"{k}→{','.join(v)}" for k, v in r["wrong_by_message"].items())
        print(f"everyday on {name}: {r['wrong']} wrong shown in {r['with_wrong']} of "
              f"{r['messages']} messages, {r['welcome']} welcome; {detail or 'none wrong'}")
    if args.out:
        written = {name: ({k: v for k, v in r.items() if k not in ("misses", "shown")}
                          if name in UNSEEN_SETS else r) for name, r in results.items()}
        written.update({f"everyday:{name}": r for name, r in everyday.items()})
        Path(args.out).write_text(json.dumps(written, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
