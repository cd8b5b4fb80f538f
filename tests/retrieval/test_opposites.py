"""A sentence speaking of the opposite of what a question asks."""

import pytest

from citeline.retrieval.opposites import opposed


@pytest.mark.parametrize(("question", "sentence", "expected"), [
    ("What is the name of the shortest suspension bridge in Germany?",
     "The Emmerich Rhine Bridge, the longest suspension bridge in Germany, crosses the river.", ("shortest", "longest")),
    ("What is the minimum number of connections?", "The maximum number of connections is 100.", ("minimum", "maximum")),
    ("Where does the southern branch flow?", "The northern branch flows into the sea.", ("southern", "northern")),
    # A compass point excludes every other one, not only its opposite.
    ("What is the delta delimited in the South by?",
     "The delta is delimited in the West by the Old Rhine and in the East by a canal.", ("south", "east")),
    ("How high did the sea level rise during the ice ages?", "In six Ice Ages sea level dropped 120 m.",
     ("rise", "dropped")),
    # A compass point the question names too is no contradiction; the one it does not name is.
    ("What is the bend called where the direction of the river changes from East to North?",
     "At Basel is the Rhine knee, a bend where the direction of the river changes from West to North.",
     ("east", "west")),
    ("What is the last major city on the river?", "Basel is the first major city on the river.", ("last", "first")),
    # A comparative or superlative is its plain word's opposite too, on either side.
    ("What water falls into the depths due to the greater density of warmer water?",
     "The water falls into the depths because of the greater density of cold water.", ("warmer", "cold")),
    ("Where does the warm water go?", "The colder water sinks to the bottom.", ("warm", "colder")),
    ("Which is the driest month?", "July is the wettest month.", ("driest", "wettest")),
])
def test_the_opposite_of_an_asked_word(question: str, sentence: str, expected: tuple[str, str]) -> None:
    assert opposed(question, sentence) == expected


@pytest.mark.parametrize(("question", "sentence"), [
    # The sentence holds the asked word too: it may well answer.
    ("What is the longest bridge?", "The longest bridge is long, the shortest is short."),
    # A longer form of the asked word is the same word ("warm" / "warmer").
    ("Where does the warm water go?", "The cold water does not mix with the warmer water."),
    ("Which branch is wider?", "The wide branch is the Waal."),
    # A word that only ends like a comparative is not one ("water", "power").
    ("Where does the water go?", "The power station stands by the lake."),
    # A question naming both sides asks about both.
    ("Where does the cold water meet the warm water?", "The cold water flows near the surface."),
    # Words of events in time are not opposites to decline on: "after yield" is explained with "before".
    ("When does the code after yield run?", "Code before yield runs at startup, the rest at shutdown."),
    # A word without an opposite is no contradiction.
    ("What input does the parser take?", "Put the file in the folder."),
    # Asked how to undo or avoid something, the answer says how it is done by default.
    ("How do I uninstall uv?", "To install uv, run the standalone installer; it also updates your shell."),
    ("Is there a setting to keep non-ASCII test ids unescaped?", "Non-ASCII strings in test ids are escaped by default."),
])
def test_no_contradiction(question: str, sentence: str) -> None:
    assert opposed(question, sentence) is None
