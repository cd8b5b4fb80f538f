"""`embedder = "openai:MODEL"`: vectors from any OpenAI-compatible `/v1/embeddings` server.

vLLM, Hugging Face TEI, llama.cpp's server, Ollama, LM Studio and OpenAI itself all speak the
same request (`{"model", "input": [...]}`) and answer `{"data": [{"index", "embedding"}]}`. GPU
servers embed thousands of texts a second where the bundled CPU model does ~30, so this is how a
large corpus is ingested in minutes.

What the client does so an ingest of 100k chunks survives a real server:
- batches (`embed_remote_batch_size` texts per request) with several requests in flight
  (`embed_concurrency`), results put back in input order;
- retries after 429, 5xx and connection errors or timeouts, with exponential backoff and jitter,
  waiting as long as the server's `Retry-After` asks (capped); other errors stop at once with
  the server's message and the fix;
- cuts inputs that are longer than the model accepts, before they are sent (servers answer
  400 for them, failing the whole batch);
- L2-normalises every vector (not every server does) and checks the dimension.

The API key is sent only as the Authorization header and never appears in a message or log.
Sleeping and the clock are injected so tests check the backoff without waiting for it.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import httpx
import numpy as np

from citeline.config import Settings
from citeline.errors import ConfigurationError, RetrievalError
from citeline.index.embedder import EmbedderIdentity, Vectors, register_embedder_family
from citeline.retry import retry_after_seconds
from citeline.text import truncate_tokens

OPENAI_URL = "https://api.openai.com/v1"
# Input limits of common embedding models, in the model's own tokens (first prefix that matches).
_MODEL_LIMITS: tuple[tuple[str, int], ...] = (
    ("text-embedding-3", 8191), ("text-embedding-ada", 8191), ("nomic-embed", 8192), ("bge-m3", 8192),
    ("jina-embeddings", 8192), ("gte-qwen", 8192), ("qwen3-embedding", 8192), ("all-minilm", 256),
    ("multilingual-e5", 512), ("e5-", 512), ("bge-", 512), ("gte-", 512), ("mxbai-embed", 512),
    ("snowflake-arctic-embed", 512), ("paraphrase-multilingual", 128),
)
_UNKNOWN_MODEL_LIMIT = 512
# Inputs are cut by counting cl100k tokens: exact for OpenAI's models. Other models' WordPiece or
# SentencePiece vocabularies cut English prose into up to ~1.3x as many tokens, so their limit
# is spent at three quarters to stay under it.
_FOREIGN_TOKENIZER_SHARE = 0.75
_BACKOFF_BASE_S = 0.5
_BACKOFF_CAP_S = 20.0
_RETRY_AFTER_CAP_S = 120.0  # a server asking for an hour would stall an ingest silently
_RETRYABLE = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


def model_token_limit(model: str) -> int:
    """The input limit (tokens) of a model known by name, else a limit safe for BERT-sized models."""
    lowered = model.lower().rsplit("/", 1)[-1]
    for prefix, limit in _MODEL_LIMITS:
        if lowered.startswith(prefix):
            return limit
    return _UNKNOWN_MODEL_LIMIT


@dataclass
class RemoteStats:
    """What the client did, for benchmarks and tests: requests sent, retries, waits, cut inputs."""

    requests: int = 0
    retries: int = 0
    waited_s: list[float] = field(default_factory=list)
    truncated: int = 0


class RemoteEmbedder:
    """A client of an OpenAI-compatible embeddings endpoint, selected by `embedder = "openai:MODEL"`."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = OPENAI_URL,
        api_key: str | None = None,
        dimensions: int | None = None,
        batch_size: int = 64,
        concurrency: int = 4,
        timeout_s: float = 60.0,
        retries: int = 5,
        max_input_tokens: int | None = None,
        query_prefix: str = "",
        passage_prefix: str = "",
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ConfigurationError(
                f"the embeddings server URL `{base_url}` is not an http(s) URL",
                hint="set CITELINE_EMBED_URL to e.g. `http://localhost:8080/v1`",
            )
        self.model = model
        self.name = f"openai:{model}"
        self.base_url = base_url.rstrip("/")
        self.dimensions = dimensions
        self.batch_size = batch_size
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.retries = retries
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        limit = max_input_tokens or model_token_limit(model)
        exact = model.lower().startswith("text-embedding-")
        self.max_input_tokens = limit if exact or max_input_tokens else int(limit * _FOREIGN_TOKENIZER_SHARE)
        # Ingest hands over this many texts at once, so every connection has requests to send.
        self.texts_per_call = batch_size * concurrency * 2
        self.stats = RemoteStats()
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._dim: int | None = dimensions
        self._lock = threading.Lock()
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=self.base_url, headers=headers, timeout=timeout_s, transport=transport,
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
        )
        self._pool: ThreadPoolExecutor | None = None

    # --- identity ------------------------------------------------------------------------
    @property
    def dim(self) -> int:
        """The vector size: the `dimensions` setting, or learnt from the server (one short request)."""
        if self._dim is None:
            self._embed(["dimension probe"], "")
        assert self._dim is not None
        return self._dim

    @property
    def identity(self) -> EmbedderIdentity:
        """Provider `openai` (the protocol), the model as the server names it, the dimension."""
        return EmbedderIdentity("openai", self.model, self.dim, self.name)

    # --- embedding -----------------------------------------------------------------------
    def embed(self, texts: Sequence[str]) -> Vectors:
        """Passages (documents), with `embed_passage_prefix` before each."""
        return self._embed(texts, self.passage_prefix)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Search queries, with `embed_query_prefix` before each."""
        return self._embed(texts, self.query_prefix)

    def _embed(self, texts: Sequence[str], prefix: str) -> Vectors:
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        inputs = [self._fit(prefix + text) for text in texts]
        batches = [inputs[start : start + self.batch_size] for start in range(0, len(inputs), self.batch_size)]
        if len(batches) == 1 or self.concurrency == 1:
            parts = [self._request(batch) for batch in batches]
        else:
            with self._lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="citeline-embed")
                pool = self._pool
            parts = list(pool.map(self._request, batches))
        vectors = np.concatenate(parts, axis=0)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        normalised: Vectors = (vectors / np.clip(norms, 1e-12, None)).astype(np.float32)
        return normalised

    def _fit(self, text: str) -> str:
        """The text cut to the model's input limit (a token is at least one byte: short texts
        are never tokenised)."""
        if len(text.encode("utf-8")) <= self.max_input_tokens:
            return text
        cut, truncated = truncate_tokens(text, self.max_input_tokens)
        if truncated:
            with self._lock:
                self.stats.truncated += 1
        return cut

    def _request(self, batch: list[str]) -> Vectors:
        payload: dict[str, Any] = {"model": self.model, "input": batch, "encoding_format": "float"}
        if self.dimensions is not None:
            payload["dimensions"] = self.dimensions
        attempt = 0
        while True:
            wait: float | None = None
            with self._lock:
                self.stats.requests += 1
            try:
                response = self._client.post("/embeddings", json=payload)
            except httpx.TimeoutException:
                failure = f"no answer within {self.timeout_s:g} s"
            except httpx.TransportError as exc:
                failure = f"cannot connect ({exc.__class__.__name__})"
            else:
                if response.status_code == 200:
                    return self._vectors(response, len(batch))
                if response.status_code not in _RETRYABLE:
                    raise self._refused(response)
                failure = f"HTTP {response.status_code}{_server_message(response)}"
                wait = retry_after_seconds(response.headers, cap=_RETRY_AFTER_CAP_S)
            if attempt >= self.retries:
                raise RetrievalError(
                    f"the embeddings server at {self.base_url} failed {attempt + 1} time(s) in a row: {failure}",
                    hint="check that the server is running and not overloaded (lower CITELINE_EMBED_CONCURRENCY), "
                    "then run the command again: what was already written is kept",
                )
            delay = wait if wait is not None else min(_BACKOFF_CAP_S, _BACKOFF_BASE_S * 2**attempt) * (
                0.5 + 0.5 * self._rng.random()
            )
            with self._lock:
                self.stats.retries += 1
                self.stats.waited_s.append(delay)
            self._sleep(delay)
            attempt += 1

    def _vectors(self, response: httpx.Response, count: int) -> Vectors:
        try:
            items = sorted(response.json()["data"], key=lambda item: int(item["index"]))
            vectors = np.asarray([item["embedding"] for item in items], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:
            raise RetrievalError(
                f"the embeddings server at {self.base_url} answered something that is not an embeddings "
                f"response ({exc.__class__.__name__})",
                hint="check that CITELINE_EMBED_URL points at an OpenAI-compatible /v1 API",
            ) from None
        if vectors.ndim != 2 or len(vectors) != count:
            raise RetrievalError(
                f"the embeddings server at {self.base_url} returned {len(vectors)} vectors for {count} inputs",
                hint="the server is not OpenAI-compatible for batched input; try CITELINE_EMBED_REMOTE_BATCH_SIZE=1",
            )
        with self._lock:
            if self._dim is None:
                self._dim = int(vectors.shape[1])
        if vectors.shape[1] != self._dim:
            raise RetrievalError(
                f"the embeddings server returned {vectors.shape[1]}-dimensional vectors, expected {self._dim}",
                hint="the server ignores `dimensions` for this model: unset CITELINE_EMBED_DIMENSIONS",
            )
        return vectors

    def _refused(self, response: httpx.Response) -> Exception:
        status = response.status_code
        said = _server_message(response)
        if status in (401, 403):
            return ConfigurationError(
                f"the embeddings server at {self.base_url} refused the API key (HTTP {status}){said}",
                hint="set CITELINE_EMBED_API_KEY (or OPENAI_API_KEY) to a key this server accepts",
            )
        if status == 404:
            return ConfigurationError(
                f"the embeddings server at {self.base_url} has no /embeddings endpoint or no model "
                f"`{self.model}` (HTTP 404){said}",
                hint="check CITELINE_EMBED_URL (it ends in /v1) and the model name in `embedder = \"openai:MODEL\"`",
            )
        return RetrievalError(
            f"the embeddings server at {self.base_url} rejected a request (HTTP {status}){said}",
            hint="if an input was too long, set CITELINE_EMBED_MAX_INPUT_TOKENS to the model's limit; if the "
            "batch was too large, lower CITELINE_EMBED_REMOTE_BATCH_SIZE",
        )

    def close(self) -> None:
        """Close the connections and the request threads."""
        if self._pool is not None:
            self._pool.shutdown(wait=False)
        self._client.close()


def _server_message(response: httpx.Response) -> str:
    """`: <the server's error message>` (short), or nothing."""
    try:
        body = response.json()
        message = body.get("error", body) if isinstance(body, dict) else body
        if isinstance(message, dict):
            message = message.get("message", message)
        text = str(message)
    except ValueError:
        text = response.text
    text = " ".join(text.split())[:300]
    return f": {text}" if text else ""


def from_settings(model: str, settings: Settings) -> RemoteEmbedder:
    """The client the `embed_*` settings describe (falling back to the `openai_*` ones)."""
    index, answerer = settings.index, settings.answerer
    key = index.embed_api_key.get_secret_value() if index.embed_api_key else answerer.openai_api_key
    return RemoteEmbedder(
        model,
        base_url=index.embed_url or answerer.openai_base_url or OPENAI_URL,
        api_key=key or None,
        dimensions=index.embed_dimensions,
        batch_size=index.embed_remote_batch_size,
        concurrency=index.embed_concurrency,
        timeout_s=index.embed_timeout_s,
        retries=index.embed_retries,
        max_input_tokens=index.embed_max_input_tokens,
        query_prefix=index.embed_query_prefix,
        passage_prefix=index.embed_passage_prefix,
    )


register_embedder_family("openai", from_settings)
