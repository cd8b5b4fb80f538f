"""What a question asks: its asking sentence, without what the asker rules out."""

import pytest

from citeline.retrieval.evidence import key_terms
from citeline.retrieval.focus import as_asked, question_focus, without_pleasantries


def test_scene_setting_sentences_are_left_out() -> None:
    focus = question_focus("I activated another virtual environment, but uv sync keeps using .venv. "
                           "How do I make uv use the active environment?")
    assert focus.text == "How do I make uv use the active environment?"
    assert focus.differs_from("I activated another virtual environment, but uv sync keeps using .venv. "
                              "How do I make uv use the active environment?")


def test_a_scene_setting_clause_before_the_question_word_is_left_out() -> None:
    focus = question_focus("After users who are not logged in are redirected to my login view, "
                           "how does that view know which page they were trying to reach?")
    assert focus.text == "how does that view know which page they were trying to reach?"
    # Not when too little would be left to ask about, nor when the clause is the question.
    kept = "If I set headers on the client and on a request, what happens?"
    assert question_focus(kept).text == kept
    assert question_focus("When was the bridge built?").text == "When was the bridge built?"


def test_a_question_word_after_a_preposition_still_starts_the_question() -> None:
    # "in what order", "for which version", "at what size": the scene before them is no more asked.
    focus = question_focus("If I queue several functions with BackgroundTasks, in what order do they run?")
    assert focus.text == "in what order do they run?"
    sized = question_focus("When a file is uploaded, at what size does it move to disk?")
    assert sized.text == "at what size does it move to disk?"
    # A preposition before anything but a question word is still the scene's.
    kept = "If I pass several classes, in order, does it matter?"
    assert question_focus(kept).text == kept


def test_a_name_starting_with_a_dot_keeps_its_space() -> None:
    # Taking out the space a removed clause leaves before punctuation must not glue "in" to ".pytest_cache".
    question = "How many days do entries in .pytest_cache stay before pytest expires them?"
    assert question_focus(question).text == question
    assert question_focus("How long do entries in .pytest_cache stay rather than forever?").text == (
        "How long do entries in .pytest_cache stay?")


def test_what_the_asker_rules_out_is_excluded() -> None:
    focus = question_focus("How do I run my tests on trio instead of asyncio?")
    assert focus.text == "How do I run my tests on trio?"
    assert "asyncio" in focus.excluded and "trio" not in focus.excluded
    kept = {k.term for k in focus.keep(key_terms("How do I run my tests on trio instead of asyncio?"))}
    assert "trio" in kept and "asyncio" not in kept
    # "Besides X, what else": the answer is often listed with X, so nothing is ruled out.
    besides = question_focus("Besides Germany and Switzerland, where else is Lake Constance?")
    assert besides.text == "Besides Germany and Switzerland, where else is Lake Constance?"
    assert not besides.excluded


def test_a_plain_question_is_its_own_focus() -> None:
    focus = question_focus("What is the default timeout?")
    assert focus.text == "What is the default timeout?" and not focus.excluded
    assert not focus.differs_from("What is the default timeout?")
    # Every asking sentence stays: each is something to answer.
    two = question_focus("Is HTTP/2 on by default? How do I turn it on?")
    assert two.text == "Is HTTP/2 on by default? How do I turn it on?"


def test_a_clause_that_is_the_whole_question_is_kept() -> None:
    focus = question_focus("Anything rather than asyncio?")
    assert focus.text == "Anything rather than asyncio?" and not focus.excluded


def test_an_abbreviation_or_a_dotted_name_does_not_end_the_asking_sentence() -> None:
    # "i.e." and "_ssl.c" are not sentence ends: cutting there left a fragment as the focus,
    # and "How do I …" (a how-to question, answered with code) was lost.
    question = "How do I make Config look up DEBUG as APP_DEBUG, i.e. namespace my settings under a prefix?"
    assert question_focus(question).text == question
    error = "Why does `_ssl.c:1091: The handshake operation timed out` happen through my proxy?"
    assert question_focus(error).text == error


def test_a_misspelt_contrast_still_rules_out_what_follows() -> None:
    for typed in ("instaed of", "insted of", "rahter than"):
        focus = question_focus(f"How do I run my tests on trio {typed} asyncio?")
        assert "asyncio" in focus.excluded, typed
        assert focus.text == "How do I run my tests on trio?", typed


@pytest.mark.parametrize(("typed", "asked"), [
    ("Hi! What exactly does `response.elapsed` measure? Thanks!", "What exactly does `response.elapsed` measure?"),
    ("hi, how do i set a timeout", "how do i set a timeout"),
    ("Hi how do I disable ssl verification", "how do I disable ssl verification"),
    ("Good morning team. I use httpx. How do I retry? Cheers", "I use httpx. How do I retry?"),
    ("Dear maintainers, why is it slow? Thank you so much!!", "why is it slow?"),
    ("What is the default? Any help would be appreciated!", "What is the default?"),
    ("how do I retry, thank you", "how do I retry"),
    ("how do i add query args Any help would be appreciated!", "how do i add query args"),
    ("how do i get help please", "how do i get help please"),
    ("Thanks! And how do I set it per request?", "And how do I set it per request?"),
    ("Great, thank you. What about its pool timeout?", "What about its pool timeout?"),
    ("Thank you for the quick reply! How do I set it per request?", "How do I set it per request?"),
    ("how do I set a timeout thanks in advance", "how do I set a timeout"),
    # The asker's framing is not asked either.
    ("Quick question: how do I set a timeout?", "how do I set a timeout?"),
    ("Hi all, newbie here. How do I set a timeout? TIA", "How do I set a timeout?"),
    ("Sorry if this is a dumb question, but how do I set a timeout?", "how do I set a timeout?"),
    ("Can someone tell me what the default timeout is?", "what the default timeout is?"),
    ("Does anyone know how to set a timeout?", "how to set a timeout?"),
    ("I was wondering what the default timeout is.", "what the default timeout is."),
    ("I'd like to know which index uv uses", "which index uv uses"),
    ("Can I tell uv which index to use?", "Can I tell uv which index to use?"),
    # Not pleasantries: a greeting word that starts a name, thanks that are what is asked about.
    ("Hello world example: how do I run it?", "Hello world example: how do I run it?"),
    ("Where are the thanks listed?", "Where are the thanks listed?"),
    ("Thanks!", "Thanks!"),
])
def test_greetings_and_thanks_are_not_what_is_asked(typed: str, asked: str) -> None:
    assert without_pleasantries(typed) == asked


def test_framing_typed_with_a_typographic_apostrophe_is_still_framing() -> None:
    # Quotes are made plain before the framing is looked for: "I’d" is "I'd".
    assert as_asked("I\u2019d like to know what\u2019s the default timeout") == "what's the default timeout"
    assert question_focus("I\u2019m wondering how to set a timeout? Thanks!").text == "how to set a timeout?"


def test_a_question_typed_in_haste_has_the_same_focus() -> None:
    careful = question_focus("My custom auth needs the request body. How do I read request.content in auth_flow?")
    assert careful.text == "How do I read request.content in auth_flow?"
    # In lower case, without its "?", and with a typographic apostrophe, the same sentence is asked.
    hasty = question_focus("my custom auth needs the request body. how do i read request.content in auth_flow")
    assert hasty.text == "how do i read request.content in auth_flow"
    scene_last = question_focus("how do i read the body in auth_flow. my auth signs every request for the API")
    assert scene_last.text == "how do i read the body in auth_flow."
    assert question_focus("What\u2019s the default timeout?").text == "What's the default timeout?"
    # Without its "?", a question opening with its scene still leaves the scene out.
    scene_first = question_focus("after users are redirected to my login view, how does that view know which page "
                                 "they were trying to reach")
    assert scene_first.text == "how does that view know which page they were trying to reach"
