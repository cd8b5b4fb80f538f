"""Ingest benchmark: is ingestion bounded by embedding? (DESIGN.md §5: total <= 1.25 x embed-only.)

Generates a deterministic (seeded) Markdown corpus that looks like product documentation —
headings, prose, bullet lists, fenced code and tables — sized to about `--chunks` chunks,
ingests it into a temporary CITELINE_HOME with the default settings (parse worker included),
then embeds exactly the same embedding inputs alone with the same, already loaded embedder.

    .venv/bin/python bench/ingest.py                # ~2,000 chunks, the real ONNX embedder
    .venv/bin/python bench/ingest.py --chunks 300   # a quick look

The model is loaded and warmed up before either timing, so both measure steady-state work.
Prints the two times and their ratio, and writes them to bench/results/ingest.json.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from citeline.config import Settings
from citeline.documents.chunking import chunk_document
from citeline.documents.loaders import MarkdownLoader
from citeline.index.embedder import Embedder, Vectors, get_embedder
from citeline.index.sqlite import SQLiteStore
from citeline.ingest import _embedding_input, ingest_paths

NOUNS = ("client", "request", "response", "timeout", "retry", "pool", "connection", "proxy", "header",
         "cookie", "session", "stream", "transport", "certificate", "event", "hook", "limit", "queue",
         "worker", "cache", "token", "scope", "policy", "backend", "job", "schedule", "payload", "index")
VERBS = ("configure", "send", "close", "reuse", "retry", "cancel", "validate", "encode", "decode",
         "stream", "authenticate", "redirect", "log", "measure", "limit", "schedule", "ignore", "raise")
ADJECTIVES = ("default", "custom", "async", "persistent", "idle", "maximum", "optional", "secure",
              "global", "per-request", "blocking", "lazy", "explicit", "transient")
TOPICS = ("Quickstart", "Timeouts", "Retries", "Connection pooling", "Proxies", "Authentication",
          "Streaming", "Event hooks", "Logging", "Testing", "Deployment", "Scheduling", "Caching",
          "Rate limits", "Error handling", "Configuration", "Migration", "Security", "Transports")


def sentence(rng: random.Random) -> str:
    words = [rng.choice(ADJECTIVES), rng.choice(NOUNS)]
    words += [rng.choice(("will", "can", "should", "must not")), rng.choice(VERBS), "the"]
    words += [rng.choice(ADJECTIVES), rng.choice(NOUNS)]
    tail = rng.choice(("when the {n} is {a}", "unless `{n}_{v}` is set", "after {k} seconds",
                       "for every {n}", "before the {n} closes", "so the {n} stays {a}"))
    text = " ".join(words) + " " + tail.format(n=rng.choice(NOUNS), a=rng.choice(ADJECTIVES),
                                               v=rng.choice(VERBS), k=rng.randint(1, 120))
    return text[0].upper() + text[1:] + "."


def paragraph(rng: random.Random) -> str:
    return " ".join(sentence(rng) for _ in range(rng.randint(3, 7)))


def block(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.6:
        return paragraph(rng)
    if kind < 0.75:
        return "\n".join(f"- {sentence(rng)}" for _ in range(rng.randint(3, 6)))
    if kind < 0.9:
        name = rng.choice(NOUNS)
        return (f"```python\nimport citeline\n\n{name} = citeline.{rng.choice(NOUNS).title()}("
                f"{rng.choice(ADJECTIVES).replace('-', '_')}=True, limit={rng.randint(1, 99)})\n"
                f"{name}.{rng.choice(VERBS)}()\n```")
    rows = "\n".join(
        f"| `{rng.choice(NOUNS)}_{rng.choice(VERBS)}` | {rng.randint(0, 500)} | {sentence(rng)} |"
        for _ in range(rng.randint(3, 6))
    )
    return "| Setting | Default | Meaning |\n|---|---|---|\n" + rows


def page(rng: random.Random, index: int, words_target: int) -> str:
    topic = rng.choice(TOPICS)
    parts = [f"---\ntitle: {topic} {index}\n---\n", f"# {topic} {index}\n", paragraph(rng)]
    words = len(parts[-1].split())
    section = 0
    while words < words_target:
        section += 1
        parts.append(f"\n## {rng.choice(ADJECTIVES).title()} {rng.choice(NOUNS)} {section}\n")
        for _ in range(rng.randint(2, 5)):
            text = block(rng)
            parts.append(text + "\n")
            words += len(text.split())
        if rng.random() < 0.4:
            parts.append(f"\n### {rng.choice(VERBS).title()} it\n\n{paragraph(rng)}\n")
    return "\n".join(parts)


def generate(root: Path, chunks: int, settings: Settings, seed: int) -> int:
    """Write pages until their chunk count (counted with the real chunker) reaches `chunks`."""
    rng = random.Random(seed)
    total, index = 0, 0
    while total < chunks:
        path = root / f"page-{index:04d}.md"
        text = page(rng, index, rng.randint(600, 2000))
        path.write_text(text, encoding="utf-8")
        document = MarkdownLoader().load(path, path.read_bytes())
        total += len(chunk_document(document, doc_id="x", doc_hash="x", chunk_tokens=settings.chunk_tokens,
                                    overlap=settings.chunk_overlap))
        index += 1
    return index


class TimedEmbedder:
    """Wraps the embedder to measure the time ingest itself spends embedding.

    On a shared machine the two separate timings drift with other load; ingest time minus its
    own embedding time is the ingest overhead measured in the same run, immune to that drift."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.name, self.dim, self.seconds = inner, inner.name, inner.dim, 0.0

    def embed(self, texts: Sequence[str]) -> Vectors:
        started = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=2000, help="approximate corpus size in chunks")
    parser.add_argument("--seed", type=int, default=20251121)
    parser.add_argument("--embedder", default=None, help="embedder name (default: the configured one)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="citeline-bench-") as tmp:
        tmp_path = Path(tmp)
        corpus, home = tmp_path / "corpus", tmp_path / "home"
        corpus.mkdir()
        settings = Settings(home=home, **({"embedder": args.embedder} if args.embedder else {}))
        pages = generate(corpus, args.chunks, settings, args.seed)
        embedder = get_embedder(settings.embedder, settings.embed_batch_size, settings.embed_threads)
        embedder.embed([paragraph(random.Random(1)) for _ in range(8)])  # load + warm up

        store = SQLiteStore(home / "index.sqlite3")
        started = time.perf_counter()
        timed = TimedEmbedder(embedder)
        report = ingest_paths([corpus], store=store, embedder=timed, settings=settings, owner="bench")
        ingest_s = time.perf_counter() - started
        if report.failed:
            print(f"ingest failed for {len(report.failed)} files: {report.failed[0]}", file=sys.stderr)
            return 1

        # Exactly the inputs ingest embedded: title and heading line, then the chunk text.
        conn = store._conn()  # a benchmark may read the table directly
        rows = conn.execute(
            "SELECT d.title, c.section, c.text FROM chunks c JOIN documents d"
            " ON d.owner = c.owner AND d.id = c.document_id WHERE c.owner = 'bench'"
        ).fetchall()
        texts = [_embedding_input(title, section, text) for title, section, text in rows]
        store.close()
        started = time.perf_counter()
        embedder.embed(texts)
        embed_s = time.perf_counter() - started

    ratio = ingest_s / embed_s
    result = {
        "pages": pages, "chunks": report.chunks, "embedder": settings.embedder,
        "ingest_s": round(ingest_s, 2), "embed_only_s": round(embed_s, 2), "ratio": round(ratio, 3),
        "target": 1.25, "chunks_per_s": round(report.chunks / ingest_s, 1),
        "embed_inside_ingest_s": round(timed.seconds, 2),
        "overhead_s": round(ingest_s - timed.seconds, 2),
        "same_run_ratio": round(ingest_s / timed.seconds, 3),
    }
    print(f"corpus: {pages} Markdown pages, {report.chunks} chunks (seed {args.seed}), "
          f"embedder {settings.embedder}")
    print(f"ingest total:   {ingest_s:8.2f} s  ({result['chunks_per_s']} chunks/s)")
    print(f"embedding only: {embed_s:8.2f} s")
    print(f"ratio:          {ratio:8.3f}  (target <= 1.25: {'OK' if ratio <= 1.25 else 'OVER'})")
    print(f"same-run check: {result['same_run_ratio']:8.3f}  (ingest / its own embedding time "
          f"{timed.seconds:.2f} s; non-embedding overhead {result['overhead_s']:.2f} s)")
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    (out / "ingest.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if ratio <= 1.25 else 1


if __name__ == "__main__":
    sys.exit(main())
