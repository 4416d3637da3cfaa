"""Code-index benchmark on a generated Java tree (prints figures; asserts nothing).

Measured side by side in one run:
  1. the embedder's raw speed on the index's own embedding texts (chunks/s),
  2. a full index of the tree (chunks/s end to end: walk, parse, embed, write, FTS) and the
     ratio of the two (target >= 0.8),
  3. an incremental re-index after one file changed, as a share of the full index time, and
     the part of it spent recomputing the words that come from other files (callers' names,
     cross_file.py: read every chunk's name and every call edge, rewrite what changed),
  4. search latency (semantic, text, hybrid) on a table of --search-rows chunks (100k by
     default; synthetic rows with random vectors, so no embedding is needed to fill it).

Usage: python benchmarks/bench_index.py [--files 2000] [--embedder use|fake]
                                         [--search-rows 100000] [--skip-search]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from paicli_tui.config import load_settings  # noqa: E402

WORDS = ("order invoice customer payment stock price discount shipment warehouse report "
         "account ledger balance tax refund coupon cart session token user role audit").split()


def generate_tree(root: Path, files: int, seed: int = 7) -> None:
    """A Java project: packages of classes with fields, Javadoc'd methods and calls."""
    rng = random.Random(seed)
    for i in range(files):
        package = f"com.bench.p{i % 40}"
        noun = WORDS[i % len(WORDS)].capitalize()
        name = f"{noun}Service{i}"
        other = f"{WORDS[(i + 3) % len(WORDS)].capitalize()}Service{(i + 1) % files}"
        methods = []
        for m in range(rng.randint(4, 8)):
            verb = rng.choice(["compute", "load", "save", "validate", "merge", "format"])
            thing = rng.choice(WORDS)
            body = "\n".join(f"        total += helper.{rng.choice(WORDS)}Count(x + {k});"
                             for k in range(rng.randint(2, 12)))
            methods.append(f"""
    /**
     * {verb.capitalize()}s the {thing} of a {rng.choice(WORDS)} and returns the result.
     */
    public int {verb}{thing.capitalize()}{m}(int x) {{
        int total = 0;
{body}
        return total + other.hashCode();
    }}""")
        text = (f"package {package};\n\nimport java.util.List;\nimport java.util.Map;\n\n"
                f"/** Handles {noun.lower()} work number {i}. */\npublic class {name} {{\n"
                f"    private final Helper helper = new Helper();\n"
                f"    private final {other} other = null;\n" + "".join(methods) + "\n}\n")
        path = root / "src" / "main" / "java" / package.replace(".", "/") / f"{name}.java"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


class FakeEmbedder:
    name = "fake-512"
    dim = 512

    def embed(self, texts):
        rng = np.random.default_rng(len(texts))
        vectors = rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    embed_queries = embed


def make_embedder(kind: str):
    if kind == "fake":
        return FakeEmbedder()
    from paicli_tui.core.embedders.use import UseEmbedder

    return UseEmbedder()


def bench_index(files: int, embedder_kind: str) -> None:
    from paicli_tui.core.code.chunking import chunk_file
    from paicli_tui.core.code.indexer import CodeIndexer, list_index_files
    from paicli_tui.core.code.ranking_text import embedding_text

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "tree"
        home = Path(tmp) / "home"
        generate_tree(root, files)
        settings = load_settings({}, {"PAICLI_HOME": str(home)})
        embedder = make_embedder(embedder_kind)
        embedder.embed(["warm up"])

        texts = []
        for rel in list_index_files(root):
            result = chunk_file(rel, (root / rel).read_text(encoding="utf-8"))
            texts.extend(embedding_text(c) for c in result.chunks)
        def raw_speed() -> float:
            started = time.perf_counter()
            embedder.embed(texts)
            return len(texts) / (time.perf_counter() - started)

        # the machine is shared: measure the raw speed before and after the full index and
        # compare with their mean, so a load change during the run does not bias the ratio
        raw_before = raw_speed()
        started = time.perf_counter()
        summary = CodeIndexer(settings, root, embedder).update()
        full_seconds = time.perf_counter() - started
        full = summary.chunks_total / full_seconds
        raw_after = raw_speed()
        raw = (raw_before + raw_after) / 2

        target = next(iter(sorted(list_index_files(root))))
        path = root / target
        path.write_text(path.read_text().replace("s the ", "s all the ", 1))  # one Javadoc
        started = time.perf_counter()
        changed = CodeIndexer(settings, root, embedder).update()
        incremental_seconds = time.perf_counter() - started

        started = time.perf_counter()
        CodeIndexer(settings, root, embedder).update()
        noop_seconds = time.perf_counter() - started

        from paicli_tui.core.code.lance_store import index_location, open_index

        indexer = CodeIndexer(settings, root, embedder)
        tables = open_index(index_location(settings, root))
        started = time.perf_counter()
        indexer._refresh_cross_file(tables, set())  # what each changed run adds
        cross_file_seconds = time.perf_counter() - started

        print(f"tree: {files} Java files, {summary.chunks_total} chunks, embedder "
              f"{embedder.name}")
        print(f"raw embedder:      {raw:8.1f} chunks/s  (before {raw_before:.1f}, after "
              f"{raw_after:.1f})")
        print(f"full index:        {full:8.1f} chunks/s  ({full_seconds:.1f} s; embedding "
              f"{summary.embed_seconds:.1f} s of it)")
        print(f"ratio full/raw:    {full / raw:8.2f}  (target >= 0.8)")
        print(f"one file changed:  {incremental_seconds:8.2f} s = "
              f"{100 * incremental_seconds / full_seconds:.1f}% of the full index "
              f"({changed.chunks_embedded} chunks re-embedded)")
        print(f"  of which callers: {cross_file_seconds:7.2f} s = "
              f"{100 * cross_file_seconds / incremental_seconds:.1f}% of that re-index "
              f"({summary.chunks_cross_file} chunks got callers' words in the full index)")
        print(f"nothing changed:   {noop_seconds:8.2f} s  (no callers pass: nothing changed)")


def bench_search(rows: int) -> None:
    from paicli_tui.core.code.indexer import _chunk_row
    from paicli_tui.core.code.lance_store import open_index, reset_tables, write_meta
    from paicli_tui.core.code.search import search_project

    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        settings = load_settings({}, {"PAICLI_HOME": str(Path(tmp) / "home")})
        tables = open_index(str(root / ".paicli" / "index"), create=True)
        embedder = FakeEmbedder()
        reset_tables(tables, embedder.dim)
        write_meta(tables, {"embedder": embedder.name, "dim": "512", "schema": "1"})
        from paicli_tui.core.code.chunk import Chunk

        started = time.perf_counter()
        for start in range(0, rows, 10_000):
            batch = []
            vectors = rng.standard_normal((min(10_000, rows - start), 512)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            for offset, vector in enumerate(vectors):
                n = start + offset
                words = " ".join(rng.choice(WORDS, 12))
                chunk = Chunk(path=f"src/f{n // 10}.java", kind="method",
                              name=f"C{n // 10}.m{n}(int x)", start_line=n % 10 * 10 + 1,
                              end_line=n % 10 * 10 + 9, source=words, language="java")
                batch.append(_chunk_row(chunk, f"{chunk.name} {words}", str(n), vector))
            tables.chunks.add(batch)
        from lancedb.index import FTS

        tables.chunks.create_index("fulltext", config=FTS(base_tokenizer="icu"), replace=True)
        print(f"search table: {rows} chunks built in {time.perf_counter() - started:.1f} s")
        for mode in ("semantic", "text", "hybrid"):
            timings = []
            for q in range(12):
                query = f"{WORDS[q % len(WORDS)]} {WORDS[(q * 7) % len(WORDS)]} total"
                started = time.perf_counter()
                search_project(settings, root, query, mode=mode, top_k=5, embedder=embedder)
                timings.append(time.perf_counter() - started)
            timings = timings[2:]  # the first calls open files and warm caches
            print(f"search {mode:8s}: median {1000 * statistics.median(timings):7.1f} ms, "
                  f"max {1000 * max(timings):7.1f} ms (query embedding not included)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--embedder", choices=("use", "fake"), default="use")
    parser.add_argument("--search-rows", type=int, default=100_000)
    parser.add_argument("--skip-search", action="store_true")
    parser.add_argument("--skip-index", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("LANCEDB_LOG", "error")
    if not args.skip_index:
        bench_index(args.files, args.embedder)
    if not args.skip_search:
        bench_search(args.search_rows)


if __name__ == "__main__":
    main()
