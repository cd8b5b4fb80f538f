"""The `openai:MODEL` embedder against a real OpenAI-compatible server on loopback.

The server (tests/embedding_server.py) runs the bundled MiniLM model, so the vectors that come
back can be compared with the local embedder's. Retries are checked against a server that really
answers 429/500 or drops connections; the backoff's waits are recorded by an injected sleep
instead of being slept.
"""

from __future__ import annotations

import json
import random
import subprocess
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from tests.servers import free_port, start_embedding_server, stop

from citeline.config import Settings
from citeline.errors import ConfigurationError, RetrievalError
from citeline.index.embedder import embed_queries, embedder_for, get_embedder, identity_of
from citeline.index.remote import RemoteEmbedder, model_token_limit

MODEL = "all-MiniLM-L6-v2"
TEXTS = [f"sentence {i}: the {'proxy' if i % 2 else 'timeout'} setting number {i} is described here"
         for i in range(7)]

ServerFactory = Callable[..., str]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A well-behaved server shared by the tests that need no failures."""
    url, process = start_embedding_server(tmp_path_factory.mktemp("srv") / "server.log")
    yield url
    stop([process])


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[ServerFactory]:
    """Start a server with failure modes for one test."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(*args: str) -> str:
        url, process = start_embedding_server(tmp_path / f"server-{len(processes)}.log", *args)
        processes.append(process)
        return url

    yield start
    stop(processes)


def stats(url: str) -> dict[str, int]:
    with urllib.request.urlopen(url.removesuffix("/v1") + "/stats", timeout=5) as response:
        result: dict[str, int] = json.loads(response.read())
        return result


def client(url: str, waits: list[float] | None = None, **options: object) -> RemoteEmbedder:
    sleep = waits.append if waits is not None else (lambda _: None)
    return RemoteEmbedder(MODEL, base_url=url, sleep=sleep, rng=random.Random(1), **options)  # type: ignore[arg-type]


def test_vectors_match_the_local_model_in_input_order_across_concurrent_batches(server: str) -> None:
    remote = client(server, batch_size=2, concurrency=3)
    before = stats(server)["requests"]
    vectors = remote.embed(TEXTS)
    local = get_embedder("minilm-onnx").embed(TEXTS)
    assert vectors.shape == (7, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Row i is text i's vector even though four batches ran at once.
    assert np.min(np.sum(vectors * local, axis=1)) > 0.9999
    assert stats(server)["requests"] - before == 4 == remote.stats.requests
    assert identity_of(remote).provider == "openai" and identity_of(remote).dim == 384


def test_the_dimension_is_learnt_from_the_server_and_shortened_vectors_can_be_asked_for(server: str) -> None:
    assert client(server).dim == 384
    short = client(server, dimensions=128)
    vectors = short.embed(TEXTS[:3])
    assert vectors.shape == (3, 128) and short.identity.dim == 128
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_query_and_passage_prefixes_are_sent(server: str) -> None:
    remote = client(server, query_prefix="query: ", passage_prefix="passage: ")
    local = get_embedder("minilm-onnx")
    query = embed_queries(remote, ["what is the timeout"])[0]
    passage = remote.embed(["the timeout is five seconds"])[0]
    assert query @ local.embed(["query: what is the timeout"])[0] > 0.9999
    assert passage @ local.embed(["passage: the timeout is five seconds"])[0] > 0.9999
    assert query @ local.embed(["what is the timeout"])[0] < 0.999


def test_429_with_retry_after_is_retried_after_the_time_the_server_asks(start_server: ServerFactory) -> None:
    url = start_server("--fail", "3", "--fail-status", "429", "--retry-after", "7")
    waits: list[float] = []
    vectors = client(url, waits).embed(TEXTS[:2])
    assert vectors.shape == (2, 384)
    assert waits == [7.0, 7.0, 7.0]
    assert stats(url)["failures_sent"] == 3 and stats(url)["requests"] == 4


def test_5xx_is_retried_with_exponential_backoff_and_jitter(start_server: ServerFactory) -> None:
    url = start_server("--fail", "4", "--fail-status", "503")
    waits: list[float] = []
    remote = client(url, waits)
    remote.embed(TEXTS[:1])
    assert len(waits) == 4 and remote.stats.retries == 4
    for attempt, wait in enumerate(waits):
        full = 0.5 * 2**attempt
        assert full / 2 <= wait <= full, (attempt, wait)


def test_a_server_that_keeps_failing_ends_in_a_clear_error(start_server: ServerFactory) -> None:
    url = start_server("--fail", "100", "--fail-status", "500")
    waits: list[float] = []
    with pytest.raises(RetrievalError) as error:
        client(url, waits, retries=2).embed(TEXTS[:1])
    assert "failed 3 time(s) in a row: HTTP 500: server busy" in str(error.value)
    assert "run the command again" in str(error.value)
    assert len(waits) == 2 and stats(url)["requests"] == 3


def test_dropped_connections_are_retried(start_server: ServerFactory) -> None:
    url = start_server("--drop", "2")
    waits: list[float] = []
    assert client(url, waits).embed(TEXTS[:2]).shape == (2, 384)
    assert len(waits) == 2 and stats(url)["dropped"] == 2


def test_no_server_listening_is_a_connection_error_after_retries() -> None:
    waits: list[float] = []
    with pytest.raises(RetrievalError, match="cannot connect"):
        client(f"http://127.0.0.1:{free_port()}/v1", waits, retries=3).embed(["x"])
    assert len(waits) == 3


def test_a_hung_request_times_out_and_is_retried(start_server: ServerFactory) -> None:
    url = start_server("--stall", "1", "--stall-s", "10")
    waits: list[float] = []
    remote = client(url, waits, timeout_s=2)  # room for a slow answer on a loaded machine
    assert remote.embed(TEXTS[:1]).shape == (1, 384)
    assert len(waits) == 1 and stats(url)["stalled"] == 1


def test_a_wrong_key_is_a_configuration_error_that_never_shows_the_key(start_server: ServerFactory) -> None:
    url = start_server("--api-key", "right-key")
    with pytest.raises(ConfigurationError) as error:
        client(url, api_key="sk-secret-wrong-key").embed(["x"])
    assert "HTTP 401" in str(error.value) and "CITELINE_EMBED_API_KEY" in str(error.value)
    assert "sk-secret-wrong-key" not in str(error.value)
    assert client(url, api_key="right-key").embed(["x"]).shape == (1, 384)


def test_an_unknown_model_says_what_to_check(server: str) -> None:
    with pytest.raises(ConfigurationError, match="no model `nope`"):
        RemoteEmbedder("nope", base_url=server, sleep=lambda _: None).embed(["x"])


def test_over_long_inputs_are_cut_to_the_models_limit(start_server: ServerFactory) -> None:
    url = start_server("--max-tokens", "258")  # MiniLM's 256 word pieces plus [CLS] and [SEP]
    long_text = " ".join(f"word{i} means something different in paragraph {i}." for i in range(400))
    assert model_token_limit(MODEL) == 256
    uncut = client(url, max_input_tokens=100_000)
    with pytest.raises(RetrievalError, match=r"HTTP 400.*longer than the maximum"):
        uncut.embed([long_text])
    remote = client(url)  # the model's known limit
    vectors = remote.embed([long_text, "short"])
    assert vectors.shape == (2, 384) and remote.stats.truncated == 1
    assert 100 < stats(url)["last_longest_tokens"] <= 258


def test_settings_build_the_client_and_keep_the_key_out_of_their_text(server: str) -> None:
    settings = Settings(embedder=f"openai:{MODEL}", embed_url=server, embed_api_key="sk-hidden-123",
                        embed_concurrency=2, embed_remote_batch_size=3)
    embedder = embedder_for(settings)
    assert isinstance(embedder, RemoteEmbedder)
    assert (embedder.base_url, embedder.concurrency, embedder.batch_size) == (server, 2, 3)
    assert embedder_for(settings) is embedder  # one client per configuration
    assert "sk-hidden-123" not in repr(settings) and "sk-hidden-123" not in settings.model_dump_json()
    assert embedder.embed(["hello"]).shape == (1, 384)


def test_an_unknown_family_names_the_known_ones() -> None:
    with pytest.raises(ConfigurationError, match="openai"):
        embedder_for(Settings(embedder="nosuch:model"))
