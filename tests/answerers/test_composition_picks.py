"""Which units make the answer: points the lead model all but rules out stay out, what a point
introduces must be in the answer too, and a code example belongs to what the sentences say."""

from __future__ import annotations

import numpy as np
import pytest

from citeline.answerers.composition import close_contender, confident, lead_text
from citeline.answerers.layout import (
    closed,
    code_language,
    exempt_from_budget,
    fit_to_budget,
    holds_asked,
    is_command_line,
    needs_its_example,
    shows_the_prose,
    tabs_named,
    untied,
)
from citeline.answerers.ranking import Ranking
from citeline.retrieval.answer_types import expected_types
from citeline.retrieval.units import Unit


def _units() -> list[Unit]:
    texts = [
        ("sentence", "The client sends the default headers with every request."),
        ("sentence", "For example, to set headers on every request:"),
        ("code", "client = Client(headers={'x-app': 'demo'})"),
        ("sentence", "Headers passed on one request are merged with the client's:"),
        ("code", "client.get('/', headers={'x-one': '1'})"),
        ("sentence", "Pass them with the `headers` argument:"),
        ("code", "Client(headers=...)"),
    ]
    return [Unit(1, kind, text, 0, len(text), block) for block, (kind, text) in enumerate(texts)]


def test_a_point_that_only_introduces_an_example_not_shown_is_left_out() -> None:
    chosen, _ = fit_to_budget(_units(), [0, 1, 3, 5], part_picks=[])
    # "For example, to set headers on every request:" promises code the answer does not show, and
    # says nothing itself; a point naming a value (`headers`) still says something.
    assert chosen == [0, 5]


def test_a_point_stating_something_before_it_hands_over_to_an_example_stays() -> None:
    units = _units()
    text = "For headers and cookies, the values are combined together. For example:"
    units[3] = Unit(1, "list_item", text, 0, len(text), 3)
    chosen, _ = fit_to_budget(units, [0, 1, 3, 5], part_picks=[])
    # Its first sentence is the answer to "what happens to headers set in both places?"; closed, the
    # point reads "… the values are combined together." (the bare "For example, …:" still goes).
    assert chosen == [0, 3, 5]
    assert closed(text) == "For headers and cookies, the values are combined together."
    # So does a statement before a clause handing over: "…, so the flow … would look like this:".
    order = "Middleware is evaluated from top-to-bottom, so the flow of execution would look like this:"
    units[3] = Unit(1, "sentence", order, 0, len(order), 3)
    chosen, _ = fit_to_budget(units, [0, 1, 3, 5], part_picks=[])
    assert chosen == [0, 3, 5]
    assert closed(order) == "Middleware is evaluated from top-to-bottom."
    assert not needs_its_example(order, "In what order is middleware evaluated?")
    assert needs_its_example("If you want to get rid of R completely, simply run:", "How do I remove R?")


def test_the_introduction_of_the_example_shown_stays() -> None:
    chosen, _ = fit_to_budget(_units(), [0, 1, 3, 5], part_picks=[], code=2)
    assert chosen == [0, 1, 5]


def test_a_lead_that_introduces_is_never_left_out() -> None:
    chosen, _ = fit_to_budget(_units(), [1, 0], part_picks=[])
    assert chosen == [1, 0]


def test_a_point_the_lead_model_all_but_rules_out_is_left_out_however_relevant() -> None:
    units = [Unit(1, "sentence", text, 0, len(text), block) for block, text in enumerate([
        "`max_age` - Defaults to 2 weeks.",
        "User session management for Starlette sessions and cookies.",
        "If set to `None` then the cookie lasts as long as the browser session.",
    ])]
    # Relevance alone would quote all three; the model gives the second 3% of the lead's share.
    ranking = Ranking(units, np.array([0.6, 0.8, 0.55]), [], [], lead=0, preference=np.array([0.62, 0.02, 0.3]),
                      shares=True)
    assert confident(ranking) == [0, 2]
    # With the hand-written rules (preference is then relevance), the relevance floor alone decides.
    relevance = np.array([0.6, 0.8, 0.55])
    assert confident(Ranking(units, relevance, [], [], preference=relevance, lead=0)) == [0, 1, 2]


def test_points_are_the_lead_models_next_likeliest_sentences_not_the_most_relevant() -> None:
    texts = ["Sessions expire after two weeks.", "The default is 31 days.", "Cookies carry a signed payload.",
             "Set the lifetime with a timedelta."]
    units = [Unit(1, "sentence", text, 0, len(text), n) for n, text in enumerate(texts)]
    relevance = np.array([0.8, 0.4, 0.7, 0.4])
    # The model's second and third choices are points however little they share with the question;
    # the relevant sentence it gives a tenth of the lead's share is not.
    unsure = Ranking(units, relevance, [], [], lead=0, preference=np.array([0.5, 0.3, 0.05, 0.15]), shares=True)
    assert confident(unsure) == [0, 1, 3]
    # A sentence repeating one picked takes no point's place: the next likeliest comes in.
    repeated = [*units[:2], Unit(1, "sentence", "The default is 31 days!", 0, 23, 2), units[3]]
    again = Ranking(repeated, relevance, [], [], lead=0, preference=np.array([0.5, 0.3, 0.2, 0.15]), shares=True)
    assert confident(again) == [0, 1, 3]
    # A lead the model is sure of stands alone.
    sure = Ranking(units, relevance, [], [], lead=0, preference=np.array([0.9, 0.05, 0.03, 0.02]), shares=True)
    assert confident(sure) == [0]


def test_with_the_rules_a_close_runner_up_is_a_point_even_when_less_relevant() -> None:
    units = [Unit(1, "sentence", f"Sentence number {n} says something else.", 0, 40, n) for n in range(4)]
    relevance = np.array([0.8, 0.4, 0.7, 0.4])
    # The runner-up by the rules' scores (1) is below the relevance floor (0.75 x 0.8) but, with 0.3
    # against the lead's 0.5, the likeliest answer if the lead is wrong; the next below the floor (3)
    # stays out, one above it (2) comes in.
    close = Ranking(units, relevance, [], [], lead=0, preference=np.array([0.5, 0.3, 0.12, 0.2]))
    assert confident(close) == [0, 1, 2]
    # A distant second (0.2 against 0.6) has to be relevant like any other point.
    distant = Ranking(units, relevance, [], [], lead=0, preference=np.array([0.6, 0.2, 0.12, 0.08]))
    assert confident(distant) == [0, 2]


def test_a_code_example_from_elsewhere_is_shown_only_when_it_uses_a_value_the_answer_names() -> None:
    lead = Unit(1, "sentence", "Set `default_encoding` to a callable to detect the charset.", 0, 60, 0)
    same_passage = Unit(1, "code", "print(response.text)", 61, 80, 1)
    uses_the_value = Unit(3, "code", "client = httpx.Client(default_encoding=autodetect)", 0, 50, 0)
    something_else = Unit(2, "code", "client = httpx.Client(headers={'x-app': 'demo'})", 0, 50, 0)
    assert shows_the_prose(same_passage, [lead])
    assert shows_the_prose(uses_the_value, [lead])
    assert not shows_the_prose(something_else, [lead])


def test_a_point_holds_the_asked_value_only_with_a_name_the_question_lacks() -> None:
    question = "I defined an index in pyproject.toml. Which environment variable gives uv its username?"
    asked = expected_types(question)
    assert holds_asked(asked, "From there, set `UV_INDEX_INTERNAL_PROXY_USERNAME` to the username.", question)
    assert not holds_asked(asked, "Credentials never go into the plaintext `pyproject.toml` file.", question)
    assert not holds_asked(asked, "Credentials can be given in environment variables.", question)
    when = "When was the bridge built?"
    assert holds_asked(expected_types(when), "The bridge was finished in 1847.", when)
    assert not holds_asked((), "The bridge was finished in 1847.", "Why was the bridge built?")


def test_a_point_exempt_from_the_word_budget_is_kept_past_it() -> None:
    long = "From there, set `UV_INDEX_INTERNAL_PROXY_USERNAME` " + "and more words " * 20 + "to name it."
    units = [Unit(1, "sentence", "A private registry asks for a login " + "first " * 20 + "of all.", 0, 1, 0),
             Unit(1, "sentence", "Credentials go in environment variables.", 0, 1, 1),
             Unit(1, "sentence", long, 0, 1, 2)]
    assert fit_to_budget(units, [0, 1, 2], part_picks=[])[0] == [0, 1]
    assert fit_to_budget(units, [0, 1, 2], part_picks=[2])[0] == [0, 1, 2]
    # Asked which variable, the point naming one is the one exempt, not the shorter one before it.
    question = "Which environment variable gives uv the username?"
    exempt = exempt_from_budget(units, [0, 1, 2], [], expected_types(question), question)
    assert exempt == [2]
    assert fit_to_budget(units, [0, 1, 2], part_picks=exempt)[0] == [0, 1, 2]
    assert exempt_from_budget(units, [0, 1, 2], [], (), "Why does it ask for a login?") == []


def test_a_point_the_lead_model_all_but_ties_with_the_lead_is_kept_past_the_budget() -> None:
    lead = "Other builds " + "were once offered for older systems and " * 6 + "are kept for compatibility."
    runner_up = "Current releases " + "are built and tested " * 5 + "for 64-bit systems only."
    units = [Unit(1, "sentence", lead, 0, 1, 0), Unit(2, "sentence", runner_up, 0, 1, 0),
             Unit(2, "sentence", "Builds are signed.", 0, 1, 1)]
    relevance = np.array([0.6, 0.5, 0.4])
    unsure = Ranking(units, relevance, [], [], lead=0, preference=np.array([0.45, 0.35, 0.2]), shares=True)
    picked = confident(unsure)
    assert picked == [0, 1, 2]
    # The budget alone keeps the short, less likely point and drops the runner-up.
    assert fit_to_budget(units, picked, part_picks=[])[0] == [0, 2]
    contender = close_contender(unsure, picked)
    assert contender == 1
    assert fit_to_budget(units, picked, part_picks=[contender])[0][:2] == [0, 1]
    # A runner-up well behind the lead is a point like any other.
    sure = Ranking(units, relevance, [], [], lead=0, preference=np.array([0.7, 0.2, 0.1]), shares=True)
    assert close_contender(sure, confident(sure)) is None


@pytest.mark.parametrize(("said", "shown"), [
    ("To disable this behavior, use the `--private` flag like so:", "To disable this behavior, use the `--private` flag."),
    ("To install a Python distribution, use the `python install` command. For example:",
     "To install a Python distribution, use the `python install` command."),
    ("You can override this with the `lock-filename` option:", "You can override this with the `lock-filename` option."),
    ("For example:", "For example:"),  # nothing of its own to say: left as it is (such a point is not chosen)
    ("Timeouts default to five seconds.", "Timeouts default to five seconds."),
])
def test_an_introduction_whose_example_is_not_shown_ends_as_a_statement(said: str, shown: str) -> None:
    assert closed(said) == shown


def test_the_list_the_lead_was_taken_from_is_not_a_point() -> None:
    texts = [("sentence", "Here is how each segment changes version `1.0.0`:"), ("list_item", "`major`: `2.0.0`"),
             ("list_item", "`minor`: `1.1.0`"), ("list_item", "`dev`: `1.0.0.dev0`"),
             ("sentence", "Segments can be chained with a comma.")]
    units = [Unit(1, kind, text, 0, len(text), block) for block, (kind, text) in enumerate(texts)]
    # Asked what bumping `dev` gives, the lead is the item; its list's other items answer nothing asked.
    chosen, items = fit_to_budget(units, [3, 0, 4], part_picks=[])
    assert chosen == [3, 4] and items[3] == [] and items[4] == []
    # The same introduction under a lead from elsewhere brings its items.
    chosen, items = fit_to_budget(units, [4, 0], part_picks=[])
    assert chosen == [4, 0] and items[0] == [1, 2, 3]


@pytest.mark.parametrize(("said", "shown"), [
    ("However, this can be explicitly enabled.", "This can be explicitly enabled."),
    ("Alternatively, `--resolution lowest-direct` uses the lowest direct versions.",
     "`--resolution lowest-direct` uses the lowest direct versions."),
    ("However, uv keeps them.", "uv keeps them."),  # a name keeps its case
    # A list item going on from a lead-in the reader does not see starts as a sentence.
    ("you can enable a context switcher plugin, or", "You can enable a context switcher plugin, or"),
    ("for example, the font could not be loaded.", "For example, the font could not be loaded."),
    ("pytest keeps them.", "pytest keeps them."),
    # Untied, an English word opens the sentence; a short one may be a name in lower case.
    ("Moreover, entries older than 3 temporary directories will be removed.",
     "Entries older than 3 temporary directories will be removed."),
    ("Also, pip keeps them.", "pip keeps them."),
    ("Instead, use the `--frozen` flag.", "Instead, use the `--frozen` flag."),  # a tie that means something stays
    ("However the cache is kept.", "However the cache is kept."),
    ("As described in the previous section, you can disable the warning.", "You can disable the warning."),
    ("As mentioned above, the cache is kept.", "The cache is kept."),
    ("As described in PEP 440, versions are compared.", "As described in PEP 440, versions are compared."),
    # A list item's number places it in a list the reader does not see; a number that is content stays.
    ("2. sqlar.c — This extension adds the sqlar_compress() function.", "sqlar.c — This extension adds the sqlar_compress() function."),
    ("7) However, the name is changed.", "The name is changed."),
    ("3 retries are made.", "3 retries are made."),
    ("1.5 seconds is the default.", "1.5 seconds is the default."),
    # A closing pointer to elsewhere in the source points at nothing in an answer; a pointer alone stays.
    ("Can be set to `'Lax'` (recommended) or `'Strict'`. See security-cookie.", "Can be set to `'Lax'` (recommended) or `'Strict'`."),
    ("Defaults to `false`. See git-am(1). [1]", "Defaults to `false`. [1]"),
    ("It lives in `$XDG_CONFIG_HOME/git/credentials`. See also [FILES].", "It lives in `$XDG_CONFIG_HOME/git/credentials`."),
    ("See the signoff option in git-commit(1) for more information.", "See the signoff option in git-commit(1) for more information."),
    ("Ready to deploy? See deploying/index.", "Ready to deploy? See deploying/index."),
    # A target holding a full stop (a URL) is not taken for the end of a pointer: the line stays whole.
    ("The guide covers it. See https://example.com/guide.html.", "The guide covers it. See https://example.com/guide.html."),
])
def test_a_line_drops_the_word_tying_it_to_a_sentence_not_shown(said: str, shown: str) -> None:
    assert untied(said) == shown


@pytest.mark.parametrize(("sentence", "says_nothing"), [
    ("If you want to get rid of R more completely using a Terminal, simply run:", True),
    ("For one-time activation of argcomplete for `pytest` only, use:", True),  # `pytest` is asked
    ("Defining `packages` for the `wheel` target is equivalent to the following:", False),  # names values
    ("To see live logs, pass `--log-cli-level` like:", False),
    ("Run the `init-db` command:", False),
    ("Change the project section of the configuration file:", False),  # a whole statement
    ("If you want to get rid of R, simply run it.", False),
])
def test_a_sentence_that_leaves_its_object_to_the_example(sentence: str, says_nothing: bool) -> None:
    assert needs_its_example(sentence, "How do I set up completion for pytest?") is says_nothing


def test_asked_for_a_command_the_sentence_introducing_it_is_quoted_so_it_is_shown() -> None:
    units = [
        Unit(1, "sentence", "Use the `UV_INSTALL_DIR` environment variable to configure the installation directory.",
             0, 80, 0),
        Unit(2, "sentence", "Install uv with our standalone installers or your package manager of choice.", 0, 77, 0),
        Unit(3, "sentence", "Install uv with our official standalone installer:", 0, 51, 0),
        Unit(3, "code", "$ curl -LsSf https://astral.sh/uv/install.sh | sh", 52, 100, 1, "macOS and Linux"),
    ]
    preference = np.array([0.6, 0.15, 0.07, 0.0])
    plain = Ranking(units, np.array([0.65, 0.66, 0.62, 0.6]), [], [], lead=0, preference=preference, code=3,
                    shares=True)
    # The block's passage has no point: the command would not be shown.
    assert confident(plain) == [0, 1]
    asked = Ranking(units, plain.overall, [], [], lead=0, preference=preference, code=3, command_intro=2, shares=True)
    # Right after the lead, ahead of a point saying much the same that would otherwise crowd it out.
    assert confident(asked) == [0, 2, 1]
    chosen, _ = fit_to_budget(units, [0, 2, 1], [2], code=3)
    assert chosen == [0, 2]
    # Labelled by its tab, the block is still read as a command line (its first line is a prompt).
    assert is_command_line(units[3]) and code_language(units[3]) == ""
    assert code_language(Unit(3, "code", "x = 1", 0, 5, 1, "python")) == "python"
    assert code_language(Unit(3, "code", "x = 1", 0, 5, 1, "example.py")) == ""  # a file's name
    # A block whose language was kept apart from its tab's title has it whatever the title.
    windows = Unit(3, "code", "PS> .venv\\Scripts\\activate", 0, 26, 1, "Windows", language="pwsh-session")
    assert code_language(windows) == "pwsh-session" and is_command_line(windows)
    # mdBook's books write a shell session as "terminal".
    assert is_command_line(Unit(3, "code", "cargo clippy -- -W clippy::lint_name", 0, 35, 1, language="terminal"))


@pytest.mark.parametrize(("question", "named"), [
    ("How do I activate it in the fish shell?", [1]),  # "shell" is in two titles: only "fish" tells them apart
    ("how do i activate it on my mac", [2]),  # "mac" begins "macOS"
    ("How do I activate it on Linux?", [2]),
    ("How do I activate it from Python?", []),  # a language is not a tab title
    ("How do I activate it?", []),
    ("How do I set it in hatch.toml?", [4]),
    ("How do I set it for Hatch?", []),  # a file's name is one word
])
def test_a_tab_is_named_by_a_word_only_its_title_has(question: str, named: list[int]) -> None:
    blocks = [("Bash shell", "console"), ("Fish shell", "console"), ("macOS and Linux", "console"),
              ("python", "python"), ("hatch.toml", "toml"), ("pyproject.toml", "toml")]
    units = [Unit(1, "code", "install", 0, 7, block, label, language=language)
             for block, (label, language) in enumerate(blocks)]
    assert tabs_named(question, units, range(len(units))) == named


def test_a_lead_taken_from_a_later_sentence_of_an_item_or_row_is_named_by_what_it_describes() -> None:
    # A row's label is its table's header: the name its value belongs to is its first cell.
    row = "loop.depth0: Indicates how deep in a recursive loop the rendering currently is. Starts at level 0"
    asked = expected_types("What number does loop.depth0 start counting from?")
    lead = lead_text(Unit(1, "table_row", row, 0, len(row), 0, "Variable | Description"), asked)
    assert lead == "loop.depth0 - Starts at level 0"
    item = "`max_age` - Session expiry. Defaults to 2 weeks."
    lasting = expected_types("How long does the session last by default?")
    assert lead_text(Unit(1, "list_item", item, 0, len(item), 0, "`max_age`"), lasting) == (
        "`max_age` - Defaults to 2 weeks.")
    # A row of three or more columns gives each cell under its column's name: it names its first cell's value.
    wide = "Variable: `HARBOR_PREFETCH`; Meaning: Jobs a worker reserves ahead of time. The default is 1."
    defaulted = expected_types("What is the default prefetch of a worker?")
    assert lead_text(Unit(1, "table_row", wide, 0, len(wide), 0, "Variable | Meaning"),
                                         defaulted) == "`HARBOR_PREFETCH` - The default is 1."
    # Asked for a default, the sentence saying what it is leads, not an earlier one holding a number word.
    packs = ("gc.autoPackLimit - When there are more than this many packs, `git gc --auto` consolidates them into "
             "one larger pack. The default value is 50. Setting this to 0 disables it.")
    threshold = expected_types("How many packs make git gc --auto kick in by default?")
    assert lead_text(Unit(1, "list_item", packs, 0, len(packs), 0, "gc.autoPackLimit"),
                                         threshold) == "gc.autoPackLimit - The default value is 50."
    # Asked for no default, the first sentence holding the number still leads with the whole item.
    counted = expected_types("How many packs does git gc --auto consolidate them into?")
    assert lead_text(Unit(1, "list_item", packs, 0, len(packs), 0, "gc.autoPackLimit"),
                                         counted) == packs
