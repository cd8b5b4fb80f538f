"""Ingest benchmark: is ingestion bounded by embedding, and how does it compare to LlamaIndex?

Target: total ingest time <= 1.25 x the time of embedding the same chunks alone (embedding is the
work that cannot be avoided; everything else must stay small beside it). LlamaIndex's
`IngestionPipeline` with the same embedder on the same corpus is the peer (target: faster).

Generates a deterministic (seeded) Markdown corpus that looks like product documentation —
front matter, headings, prose, bullet lists, fenced code and tables — sized to about `--chunks`
chunks (counted with citeline's own chunker), then, in alternating order per round:

* citeline: `ingest_paths` into a fresh SQLite index with the default settings (parse worker
  included), the embedder wrapped to also time the embedding done inside ingest;
* embed-only: exactly the embedding inputs ingest used, embedded alone by the same embedder;
* LlamaIndex: `SimpleDirectoryReader` -> `IngestionPipeline([MarkdownNodeParser(),
  SentenceSplitter(200 words, overlap 40), embed])` into a `SimpleVectorStore`, where the embed
  step is citeline's own ONNX embedder behind LlamaIndex's `BaseEmbedding` (same model, same
  batch size), so the difference is the pipeline, not the model.

    .venv/bin/python bench/ingest.py                 # 150 chunks, 2 rounds, real ONNX embedder
    .venv/bin/python bench/ingest.py --chunks 60 --rounds 1 --no-llamaindex

The model is loaded and warmed up before any timing, so every figure is steady-state work.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import TimedEmbedder

from citeline.config import Settings
from citeline.documents.chunking import chunk_document
from citeline.documents.markdown_loader import MarkdownLoader
from citeline.index.embedder import Embedder, get_embedder
from citeline.index.ingest import embedding_input, ingest_paths
from citeline.index.sqlite import SQLiteStore

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
        total += len(chunk_document(document, doc_id="x", doc_hash="x", chunk_tokens=settings.index.chunk_tokens,
                                    overlap=settings.index.chunk_overlap))
        index += 1
    return index


def llamaindex_embedding(inner: Embedder, batch_size: int) -> Any:
    """citeline's embedder as a LlamaIndex `BaseEmbedding`: the same model on both sides."""
    from llama_index.core.bridge.pydantic import PrivateAttr
    from llama_index.core.embeddings import BaseEmbedding

    class CitelineEmbedding(BaseEmbedding):
        _inner: Any = PrivateAttr()

        def __init__(self, embedder: Embedder, **kwargs: Any) -> None:
            super().__init__(model_name=embedder.name, **kwargs)
            self._inner = embedder

        def _get_query_embedding(self, query: str) -> list[float]:
            return [float(x) for x in self._inner.embed([query])[0]]

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return [float(x) for x in self._inner.embed([text])[0]]

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return self._inner.embed(texts).tolist()  # type: ignore[no-any-return]

    return CitelineEmbedding(inner, embed_batch_size=batch_size)


def run_llamaindex(corpus: Path, embedder: Embedder, settings: Settings) -> tuple[float, float, int]:
    """(seconds, of which embedding, nodes) for LlamaIndex's ingestion of the corpus."""
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.ingestion import IngestionPipeline
    from llama_index.core.node_parser import MarkdownNodeParser, SentenceSplitter
    from llama_index.core.vector_stores import SimpleVectorStore

    timed = TimedEmbedder(embedder)
    started = time.perf_counter()
    documents = SimpleDirectoryReader(str(corpus), required_exts=[".md"]).load_data()
    pipeline = IngestionPipeline(
        transformations=[
            MarkdownNodeParser(),
            # Sizes in words, like citeline's chunker (200 words, 40 overlap); a whitespace
            # tokenizer also keeps LlamaIndex from fetching a tiktoken table at run time.
            SentenceSplitter(chunk_size=settings.index.chunk_tokens, chunk_overlap=settings.index.chunk_overlap,
                             tokenizer=str.split),
            llamaindex_embedding(timed, settings.index.embed_batch_size),  # type: ignore[arg-type]
        ],
        vector_store=SimpleVectorStore(),
        disable_cache=True,
    )
    nodes = pipeline.run(documents=documents)
    return time.perf_counter() - started, timed.seconds, len(nodes)


def run_citeline(corpus: Path, home: Path, embedder: Embedder, settings: Settings) -> dict[str, Any]:
    store = SQLiteStore(home / "index.sqlite3")
    timed = TimedEmbedder(embedder)
    started = time.perf_counter()
    report = ingest_paths([corpus], store=store, embedder=timed, settings=settings, owner="bench")
    seconds = time.perf_counter() - started
    if report.failed:
        raise SystemExit(f"ingest failed for {len(report.failed)} files: {report.failed[0]}")
    conn = store._conn()  # a benchmark may read the table directly
    rows = conn.execute(
        "SELECT d.title, c.section, c.text FROM chunks c JOIN documents d"
        " ON d.owner = c.owner AND d.id = c.document_id WHERE c.owner = 'bench' ORDER BY c.rowid"
    ).fetchall()
    store.close()
    texts = [embedding_input(title, section, text) for title, section, text in rows]
    return {"seconds": seconds, "embed_inside": timed.seconds, "chunks": report.chunks, "texts": texts}


def measure(chunks: int = 150, seed: int = 20251121, rounds: int = 2, llamaindex: bool = True,
            embedder_name: str | None = None, keep_corpus: Path | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="citeline-bench-") as tmp:
        tmp_path = Path(tmp)
        corpus = keep_corpus or tmp_path / "corpus"
        corpus.mkdir(parents=True, exist_ok=True)
        settings = Settings(home=tmp_path / "home", **({"embedder": embedder_name} if embedder_name else {}))
        pages = generate(corpus, chunks, settings, seed)
        index = settings.index
        embedder = get_embedder(index.embedder, index.embed_batch_size, index.embed_threads)
        embedder.embed([paragraph(random.Random(1)) for _ in range(8)])  # load + warm up
        samples: dict[str, list[float]] = {"citeline": [], "embed_only": [], "llamaindex": [],
                                           "citeline_embed_inside": [], "llamaindex_embed_inside": []}
        texts: list[str] = []
        nodes, chunk_count = 0, 0
        for r in range(rounds):
            order = ["citeline", "embed_only", "llamaindex"]
            if r % 2:
                order.reverse()
            if not llamaindex:
                order.remove("llamaindex")
            for name in order:
                if name == "citeline":
                    out = run_citeline(corpus, tmp_path / f"home{r}", embedder, settings)
                    samples["citeline"].append(out["seconds"])
                    samples["citeline_embed_inside"].append(out["embed_inside"])
                    texts, chunk_count = out["texts"], out["chunks"]
                elif name == "embed_only":
                    if not texts:  # first round in reverse order: learn the inputs first
                        texts = run_citeline(corpus, tmp_path / "probe", embedder, settings)["texts"]
                    started = time.perf_counter()
                    embedder.embed(texts)
                    samples["embed_only"].append(time.perf_counter() - started)
                else:
                    seconds, inside, nodes = run_llamaindex(corpus, embedder, settings)
                    samples["llamaindex"].append(seconds)
                    samples["llamaindex_embed_inside"].append(inside)
    med = {k: statistics.median(v) for k, v in samples.items() if v}
    result: dict[str, Any] = {
        "pages": pages, "chunks": chunk_count, "seed": seed, "rounds": rounds, "embedder": settings.index.embedder,
        "embed_batch_size": settings.index.embed_batch_size, "samples_s": samples,
        "citeline_s": round(med["citeline"], 3), "embed_only_s": round(med["embed_only"], 3),
        "ratio_vs_embed_only": round(med["citeline"] / med["embed_only"], 3),
        "citeline_overhead_s": round(med["citeline"] - med["citeline_embed_inside"], 3),
        "same_run_ratio": round(statistics.median(
            [a / b for a, b in zip(samples["citeline"], samples["citeline_embed_inside"], strict=True)]), 3),
    }
    if llamaindex:
        result.update({
            "llamaindex_s": round(med["llamaindex"], 3), "llamaindex_nodes": nodes,
            "llamaindex_overhead_s": round(med["llamaindex"] - med["llamaindex_embed_inside"], 3),
            "ratio_vs_llamaindex": round(med["citeline"] / med["llamaindex"], 3),
            "llamaindex_splitter": "MarkdownNodeParser + SentenceSplitter(chunk_size=200, chunk_overlap=40, "
                                   "word tokenizer)",
        })
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=150, help="approximate corpus size in chunks")
    parser.add_argument("--seed", type=int, default=20251121)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-llamaindex", action="store_true")
    parser.add_argument("--embedder", default=None, help="embedder name (default: the configured one)")
    args = parser.parse_args()
    result = measure(args.chunks, args.seed, args.rounds, not args.no_llamaindex, args.embedder)
    print(json.dumps({k: v for k, v in result.items() if k != "samples_s"}, indent=2))
    return 0 if result["ratio_vs_embed_only"] <= 1.25 else 1


if __name__ == "__main__":
    sys.exit(main())
