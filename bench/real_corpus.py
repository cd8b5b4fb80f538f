"""Real text embedded once by the real model, cached for the dense benchmarks.

The synthetic vectors of bench/store.py are clustered on purpose; real sentence embeddings are
not shaped like that (anisotropic, many near-duplicates), and an ANN index's recall can differ
between the two. This builds a corpus of real English technical prose — the docstrings of the
Python standard library, then of the installed packages, in a fixed file order, cut into windows
of at most WINDOW_WORDS words and deduplicated — embeds it with citeline's own MiniLM embedder
(int8 ONNX; run it with `nice`, it shares the machine) and caches texts and vectors under
bench/cache/ (git-ignored). Queries are the first sentences of docstrings that did not make it
into the corpus: real text, never identical to a chunk.

Embedding 20,000 windows takes ~10-15 minutes on a 2-core machine; it is done once and reused.

    nice -n 10 .venv/bin/python bench/real_corpus.py --chunks 20000
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import BENCH_DIR

CACHE_DIR = BENCH_DIR / "cache"
WINDOW_WORDS = 100
MIN_WORDS = 12
QUERIES = 200
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@dataclass
class RealCorpus:
    """Real texts, their MiniLM vectors (unit rows), and real query texts with their vectors."""

    texts: list[str]
    vectors: npt.NDArray[np.float32]
    query_texts: list[str]
    queries: npt.NDArray[np.float32]


def _source_roots() -> list[Path]:
    stdlib = Path(sys.base_prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    packages = [Path(p) for p in sys.path if p.endswith("site-packages")]
    return [stdlib, *sorted(set(packages))]


def _docstrings() -> Iterator[str]:
    for root in _source_roots():
        for path in sorted(root.rglob("*.py")):
            if {"test", "tests", "site-packages"} & set(path.relative_to(root).parts[:-1]):
                continue
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    doc = ast.get_docstring(node)
                    if doc and len(doc.split()) >= MIN_WORDS:
                        yield " ".join(doc.split())


def collect(chunks: int, queries: int = QUERIES) -> tuple[list[str], list[str]]:
    """`chunks` distinct windows of real docstring text, then `queries` held-out first sentences."""
    texts: list[str] = []
    seen: set[str] = set()
    query_texts: list[str] = []
    for doc in _docstrings():
        if len(texts) < chunks:
            words = doc.split()
            for start in range(0, len(words), WINDOW_WORDS):
                window = " ".join(words[start : start + WINDOW_WORDS])
                if len(window.split()) >= MIN_WORDS and window not in seen and len(texts) < chunks:
                    seen.add(window)
                    texts.append(window)
            continue
        first = _SENTENCE.split(doc, maxsplit=1)[0]
        if 6 <= len(first.split()) <= 40 and first not in seen:
            seen.add(first)
            query_texts.append(first)
            if len(query_texts) >= queries:
                break
    if len(texts) < chunks:
        raise SystemExit(f"only {len(texts)} windows of real text found, {chunks} asked")
    return texts, query_texts


def _cache_path(chunks: int) -> Path:
    return CACHE_DIR / f"real-minilm-{chunks}.npz"


def load_or_build(chunks: int = 20_000, *, build: bool = True) -> RealCorpus | None:
    """The cached corpus of `chunks` real windows; embeds it first when missing and `build`."""
    path = _cache_path(chunks)
    if path.exists():
        data = np.load(path, allow_pickle=False)
        return RealCorpus(list(data["texts"]), data["vectors"], list(data["query_texts"]), data["queries"])
    if not build:
        return None
    from citeline.index.minilm import MiniLMOnnxEmbedder

    texts, query_texts = collect(chunks)
    embedder = MiniLMOnnxEmbedder(batch_size=16, threads=2)
    started = time.perf_counter()
    parts = []
    step = 1000
    for start in range(0, len(texts), step):
        parts.append(embedder.embed(texts[start : start + step]))
        done = start + len(parts[-1])
        rate = done / (time.perf_counter() - started)
        print(f"  embedded {done:,}/{len(texts):,} real chunks ({rate:.1f}/s)", flush=True)
    vectors = np.concatenate(parts).astype(np.float32)
    queries = embedder.embed(query_texts).astype(np.float32)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, texts=np.array(texts), vectors=vectors, query_texts=np.array(query_texts), queries=queries,
             digest=np.array(hashlib.sha256("\n".join(texts).encode()).hexdigest()))
    tmp.replace(path)
    print(f"cached {len(texts):,} real chunks in {path} ({time.perf_counter() - started:.0f} s)", flush=True)
    return RealCorpus(texts, vectors, query_texts, queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=20_000)
    args = parser.parse_args()
    corpus = load_or_build(args.chunks)
    assert corpus is not None
    print(f"{len(corpus.texts):,} chunks, {len(corpus.query_texts)} queries, vectors {corpus.vectors.shape}")


if __name__ == "__main__":
    main()
