"""A sentence speaking of the opposite of what a question asks."""

import pytest

from citeline.retrieval.opposites import opposed, unmet_negation


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
    # Asked what is not so, a sentence stating it without negation answers the question without its "not".
    ("What is not an example of a measurement within a complexity class?",
     "An example of a measurement within a complexity class is computation time.", ("not an example", "An example of a")),
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


@pytest.mark.parametrize(("question", "sentence", "expected"), [
    ("What is not an example of a measurement within a complexity class?",
     "An example of a measurement within a complexity class is computation time.", ("not an example", "An example of a")),
    # What the negation negates, found in another form of the word and past words that only qualify it.
    ("What class is most commonly not ascribed to the graph isomorphism problem?",
     "The graph isomorphism problem is commonly ascribed to NP-intermediate.", ("not ascribed", "commonly ascribed to NP-intermediate")),
    ("Which bridge does not cross the river?", "The Emmerich Rhine Bridge crosses the 400 m wide river.",
     ("not cross", "Bridge crosses the 400")),
    ("Who never defined the class?", "The class was defined by Cook.", ("never defined", "was defined by Cook")),
])
def test_a_sentence_stating_what_the_question_negates(question: str, sentence: str, expected: tuple[str, str]) -> None:
    assert unmet_negation(question, sentence) == expected


@pytest.mark.parametrize(("question", "sentence"), [
    # The sentence says what is not so, or so only in part: it may answer in its own words.
    ("What is not an example of a measurement?", "Computation time is not the only example of a measurement."),
    ("Which files are not included in the sdist?", "The sdist excludes files matched by .gitignore and includes the rest."),
    ("Which platforms are not supported?", "Windows is unsupported; Linux and macOS are supported."),
    ("Which options are not inherited?", "Only the `dependencies` option is inherited."),
    # A negation in a condition or after a comma asks nothing negated.
    ("What's the default log level I'll see if I never configure logging?", "The default log level is WARNING."),
    ("Which command, not counting plugins, installs a package?", "The install command installs a package."),
    # Not a wh-question: yes or no is asked.
    ("Does the bridge not cross the river?", "The bridge crosses the river."),
    # The sentence does not speak of what is negated.
    ("What is not an example of a measurement?", "Computation time is a resource."),
])
def test_no_unmet_negation(question: str, sentence: str) -> None:
    assert unmet_negation(question, sentence) is None
