import numpy as np
import pytest

from citeline.errors import ConfigurationError
from citeline.index import minilm as embedder_module
from citeline.index.embedder import EmbedsTokens, get_embedder


def test_minilm_vectors_are_unit_length_and_semantic() -> None:
    model = get_embedder("minilm-onnx")
    vectors = model.embed(["How do I set a request timeout?", "Timeouts default to five seconds.",
                           "Bananas are rich in potassium."])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3


def test_batching_does_not_change_results() -> None:
    model = get_embedder("minilm-onnx")
    texts = [f"sentence number {i} about {'timeouts' if i % 2 else 'proxies'}" for i in range(7)]
    together = model.embed(texts)
    alone = np.stack([model.embed([t])[0] for t in texts])
    assert np.allclose(together, alone, atol=1e-4)


def test_token_states_come_from_the_same_pass_as_the_vectors() -> None:
    model = get_embedder("minilm-onnx")
    assert isinstance(model, EmbedsTokens)
    texts = ["Turn off the reloader with --no-reload.", "Short one.", "A third, rather longer, sentence about proxies."]
    vectors, states = model.embed_with_tokens(texts)
    assert np.allclose(vectors, model.embed(texts), atol=1e-5)
    # In the texts' order, word pieces without [CLS]/[SEP]/padding, one unit-length row each.
    assert [s.pieces[0] for s in states] == ["turn", "short", "a"]
    assert states[1].pieces == ("short", "one", ".")
    for state in states:
        assert state.vectors.shape == (len(state.pieces), 384)
        assert np.allclose(np.linalg.norm(state.vectors, axis=1), 1.0, atol=1e-4)


def test_tampered_model_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedder_module, "MINILM_ONNX_SHA256", "0" * 64)
    model = embedder_module.MiniLMOnnxEmbedder()  # the model loads (and is checked) on first use
    with pytest.raises(ConfigurationError, match="sha256"):
        model.embed(["a question"])


def test_unknown_embedder_names_the_choices() -> None:
    with pytest.raises(ConfigurationError, match="minilm-onnx"):
        get_embedder("nope")
