import numpy as np

from citeline.index.embedder import EmbedsTokens, TokenStates, get_embedder
from citeline.retrieval.alignment import alignment


def _states(*texts: str) -> list[TokenStates]:
    model = get_embedder("minilm-onnx")
    assert isinstance(model, EmbedsTokens)
    return model.embed_with_tokens(list(texts))[1]


def test_the_sentence_that_says_it_in_other_words_aligns_best() -> None:
    question, *sentences = _states(
        "Which environment variable turns off loading the dotenv files?",
        "If python-dotenv is installed, running the command sets variables from the dotenv files.",
        "You can tell the tool not to load dotenv files by setting the SKIP_DOTENV environment variable.",
        "The reloader restarts the server when code changes.",
    )
    scores = alignment(question, sentences)
    assert scores.shape == (3,)
    assert scores[1] > scores[0] > scores[2]


def test_words_every_candidate_shares_weigh_less_than_rare_ones() -> None:
    # Both sentences hold "flask"; only one holds "port": the rare word decides.
    question, with_port, without = _states("flask port", "flask uses port 5000", "flask is a framework")
    assert alignment(question, [with_port, without])[0] > alignment(question, [with_port, without])[1]


def test_sentences_without_states_score_zero_and_nothing_asked_scores_nothing() -> None:
    question, sentence = _states("How long does the session cookie last?", "Session cookies last two weeks.")
    scores = alignment(question, [None, sentence, None])
    assert scores[0] == scores[2] == 0.0 and scores[1] > 0.5
    only_stopwords = _states("what is it?")[0]
    assert np.all(alignment(only_stopwords, [sentence]) == 0.0)
