"""Key terms: what of a question its evidence must contain, and how a decline names what is missing."""

from __future__ import annotations

import pytest

from citeline.documents.models import ChunkBlock
from citeline.index.store import Passage
from citeline.retrieval.evidence import Coverage, KeyTerm, credit, everyday, key_terms, present, vocabulary


def _terms(question: str) -> dict[str, KeyTerm]:
    return {k.term: k for k in key_terms(question)}


def test_contractions_and_latin_abbreviations_are_phrasing_not_terms() -> None:
    found = _terms("Why aren’t protected pages hidden, i.e. why don't they 404, e.g. for guests?")
    assert not {"aren", "don", "i.e", "e.g"} & set(found)
    assert {"protect", "hidden", "404", "guest"} <= set(found)


def test_a_capitalised_abbreviation_names_something_and_stays() -> None:
    assert "u.s" in _terms("Which U.S. states border the river?")


def test_a_question_in_capitals_has_the_terms_it_has_in_lower_case() -> None:
    # An acronym stands out from the words around it; typed with caps lock on, "HOW" and "THE" do not.
    shouted = _terms("HOW DO I SET A TIMEOUT ON THE CLIENT?")
    assert set(shouted) == set(_terms("How do I set a timeout on the client?")) == {"timeout", "client"}
    assert _terms("Why does HTTPX ignore HTTP_PROXY?")["httpx"].weight == 2.0  # not shouted: an acronym
    assert _terms("WHY DOES HTTPX IGNORE HTTP_PROXY?")["http_proxy"].weight == 2.0  # still an identifier


def test_a_stemmed_term_keeps_the_word_the_question_used() -> None:
    found = _terms("Where does uv writes its logs when taking snapshots?")
    assert found["writ"].shown == "writes" and found["tak"].shown == "taking"
    assert found["snapshot"].shown == "snapshots"


def test_an_inflected_ordinary_word_weighs_as_ordinary() -> None:
    # The tokenizer's vocabulary lists "crawl" but not "crawls": the asker's phrasing, not a rare name.
    found = _terms("R.app crawls whenever its window is hidden")
    assert found["crawl"].weight == found["window"].weight < found["r.app"].weight


def test_a_word_capitalised_inside_a_sentence_is_a_name() -> None:
    # "Decimal" is an English word, but written so inside a sentence it names the type.
    assert _terms("How do I parse numbers as Decimal instead of float?")["decimal"].weight == 1.5
    assert _terms("How do I parse numbers as decimal instead of float?")["decimal"].weight == 0.6
    # A capital that starts a sentence says nothing: after a full stop, a colon or a quote, or first.
    for question in ("Decimal numbers: how are they parsed?", "It fails. Decimal numbers are lost.",
                     "Why do numbers parse as: Decimal?", 'Why is "Decimal" not the default?'):
        assert _terms(question)["decimal"].weight == 0.6, question
    # Typed with caps lock on, no word is a name for its capital.
    assert _terms("HOW DO I PARSE NUMBERS AS DECIMAL?")["decimal"].weight == 0.6


def test_a_two_letter_acronym_counts_together_with_the_name_beside_it() -> None:
    # "VS" alone is too short to be told from "vs." (versus): "VS Code" is found only as the pair.
    found = _terms("How do I get syntax highlighting for template files in VS Code?")
    assert found["vs-code"].shown == "VS Code" and found["vs-code"].weight == 2.0
    for text in ("Open the folder in VS Code.", "Install the vscode extension."):
        assert present("vs-code", vocabulary(text)), text
    assert not present("vs-code", vocabulary("Compare sync vs async code."))
    # The name beside it is a name, not the capital that starts the sentence ("In DB Browser …").
    assert {term for term in _terms("In DB Browser for SQLite, how do I edit a cell?") if "-" in term} == {"db-browser"}
    assert not any("-" in term for term in _terms("Is it OK to run IT jobs every night?"))
    # Named as what the asker would do without, it is optional as a word would be.
    assert _terms("How do I debug a failing test without VS Code?")["vs-code"].optional
    assert not _terms("How do I debug a failing test in VS Code?")["vs-code"].optional


def test_an_identifier_in_the_askers_example_is_marked_as_one() -> None:
    found = _terms("How many levels can ** stand for in a pattern like logs/**/debug.txt?")
    assert found["debug.txt"].optional and not found["level"].optional
    assert _terms("How do I read a field such as $.address.city, in a query?")["address.city"].optional
    assert _terms("Can templates call things like `{{ mylist.append(1) }}`?")["mylist.append"].optional
    # "like" that is no example, and a plain word named as one (the tool asked about), are not marked.
    assert not _terms("I'd like to set HTTP_PROXY per client")["http_proxy"].optional
    assert not _terms("How do I run mutation testing (e.g. mutmut)?")["mutmut"].optional


def test_what_the_asker_would_do_without_is_optional() -> None:
    found = _terms("How do I get the numbers 1 to 100 as rows without creating a helper table?")
    assert found["helper"].optional and not found["number"].optional and not found["rows"].optional
    assert _terms("How do I point publish at TestPyPI rather than the real index?")["index"].optional
    assert _terms("Can I verify against my own CA instead of certifi?")["certifi"].optional
    assert _terms("how do i run my tests on trio instaed of asyncio?")["asyncio"].optional  # typed in haste
    # The clause ends with its own: the next sentence or clause is asked about again.
    later = _terms("It fails without any warning. How do I make the extractor complain?")
    assert later["warn"].optional and not later["extractor"].optional
    # A word also written outside the clause is asked about; an option named "--without-pip" is no clause.
    assert not _terms("How do I rename a column in a table without recreating the table?")["table"].optional
    assert not _terms("What does --without-pip leave out?")["without-pip"].optional


def test_only_optional_terms_no_passage_holds_are_left_out_of_what_is_held() -> None:
    keys = key_terms("How do I list the integers 1 to 100 without a helper table or a recursive CTE?")
    text = "The recursive CTE below lists the integers."
    coverage = Coverage([Passage("c", "d", "series.md", "series.md", 0, text, None, None, 0, len(text))])
    held = {k.term for k in coverage.held(keys)}
    assert "cte" in held and "integer" in held  # held by the passage, optional or not
    assert {k.term for k in keys} - held == {"helper", "table"}  # optional, held by none


def test_the_names_in_code_the_asker_quotes_are_their_own() -> None:
    # A template tag or a snippet of more than one word is the asker's code: its variables, words and
    # literals are theirs, and a capital in it ("None") is no name.
    tag = _terms("{{ user.profile.nickname|default('anon') }} still fails when profile is missing")
    assert tag["user.profile.nickname"].optional and tag["anon"].optional and not tag["profile"].optional
    snippet = _terms("Now every `def f(x: int = None)` is flagged")
    assert snippet["none"].optional and snippet["none"].weight == 0.6
    # A single name in backticks, or a name also written outside the code, is what is asked about.
    assert not _terms("Where can I keep values on `app.state`?")["app.state"].optional
    assert not _terms("Is there a currency filter for {{ price|currency }}?")["currency"].optional


def test_a_slip_in_an_ordinary_word_weighs_as_ordinary() -> None:
    # "enviroment", "defualt" and "comands" are ordinary words mistyped, not rare names the docs must contain.
    found = _terms("Do the comands change the enviroment or the defualt window?")
    assert {found[t].weight for t in ("comand", "enviroment", "defualt")} == {found["window"].weight} == {0.6}
    # A name keeps its capitals and its weight, however close to a word it is ("Sanke", "snake") ...
    assert _terms("Where does the Sanke flow?")["sanke"].weight == 1.5
    # ... and a short word a letter away from another is not taken for a slip ("tracer" is no "tracker").
    assert _terms("Which tracer does it use?")["tracer"].weight == 1.5


def test_a_passage_is_judged_with_the_titles_of_its_tabs_and_notes() -> None:
    # The "Windows" tab's commands say "PS>", never "Windows": a reader sees the title, so does coverage.
    text = "To activate the environment, run its script:\n$ source .venv/bin/activate\nPS> .venv\\Scripts\\activate"
    steps = text.index("$"), text.index("PS>")
    passage = Passage("c", "d", "projects.md", "projects.md", 0, text, "Running commands", None, 0, len(text),
                      blocks=(ChunkBlock("paragraph", 0, steps[0] - 1),
                              ChunkBlock("code", steps[0], steps[1] - 1, "console", language="console"),
                              ChunkBlock("code", steps[1], len(text), "Windows", language="pwsh-session")))
    assert Coverage([passage]).credit("windows", 0) == 1.0
    # A code block labelled only by its language has no title: "console" is not said by the passage.
    assert Coverage([passage]).credit("console", 0) == 0.0


def test_an_entry_titled_by_a_hyphenated_name_speaks_of_its_words() -> None:
    # Clippy titles each setting `cognitive-complexity-threshold`: the entry is about the threshold.
    text = "The maximum cognitive complexity a function can have.\n\nDefault Value: `25`\n\nDo not keep-alive it."
    entry = Passage("c", "d", "lints.md", "lints.md", 0, text, "Lint Configuration > `cognitive-complexity-threshold`",
                    None, 0, len(text))
    words = Passage("c", "d", "lints.md", "lints.md", 1, text, "Lint Configuration > Cognitive-complexity limits",
                    None, 0, len(text))
    coverage = Coverage([entry, words])
    assert coverage.credit("threshold", 0) == 1.0
    assert coverage.credit("threshold", 1) == 0.0  # another title says nothing of a threshold
    assert coverage.credit("alive", 0) == 0.0  # nor does a hyphenated word of the text


def test_a_page_or_heading_named_by_a_hyphenated_word_speaks_of_its_words() -> None:
    # Git's manual page "git-archive(1)" is about git archive; its zip section never says either word.
    text = "-<digit> - Specify compression level. Default is `-6` if not given. Not a keep-alive."
    page = Passage("c", "d", "git-archive(1)", "git-archive.html", 0, text, "Backend-extra options > zip", None, 0, len(text))
    coverage = Coverage([page])
    assert coverage.credit("git", 0) == coverage.credit("archive", 0) == 1.0  # the page's name
    assert coverage.credit("backend", 0) == 1.0  # its section's
    assert coverage.credit("alive", 0) == 0.0  # the text's own hyphenated words stay whole


def test_a_release_series_is_covered_by_any_version_in_it() -> None:
    notes = vocabulary("New in version 3.0.0: Replaces contextfilter. Changed in version 2.11.")
    assert present("3.x", notes) and present("2.11.x", notes)
    assert not present("4.x", notes) and not present("2.1.x", notes)


def test_a_hyphenated_compound_matches_its_closed_and_open_spellings_but_not_its_parts() -> None:
    assert present("e-mail", vocabulary("Send a welcome email after signing up."))
    assert present("email", vocabulary("Send a welcome e-mail after signing up."))
    assert present("built-in", vocabulary("Retries are builtin."))
    assert not present("rate-limit", vocabulary("The rate of requests has no limit."))
    # ... nor its open spelling, the words side by side
    assert present("tab-completion", vocabulary("Hatch offers tab completion for zsh."))
    assert present("rate-limits", vocabulary("Each client gets its own rate limit."))
    # an ordinary word however it is spelled: a missing "e-mail" weighs what a missing "email" would
    assert _terms("Who gets the e-mail?")["e-mail"].weight == _terms("Who gets the email?")["email"].weight


def test_a_compound_built_on_a_participle_is_covered_by_its_words_apart() -> None:
    certificates = vocabulary("TLS certificates ensure that connections are not intercepted.")
    assert credit("tls-intercepting", certificates) == pytest.approx(0.8)
    assert credit("gpg-signed", vocabulary("Tags can be signed with a GPG key.")) == pytest.approx(0.8)
    # A compound of plain words names something its words apart do not; nor is a part enough.
    assert credit("rate-limit", vocabulary("The rate of requests has no limit.")) == 0.0
    assert credit("tls-intercepting", vocabulary("TLS certificates are verified.")) == 0.0


def test_a_clipped_word_and_the_word_it_clips_cover_each_other() -> None:
    assert present("dev", vocabulary("Run the Development Server"))
    assert present("envs", vocabulary("Detached environments skip installing the project."))
    assert present("configuration", vocabulary("Put it in a config file."))
    # a clipping is not any prefix: "devices" is not "development", "environ" not "environment"
    assert not present("dev", vocabulary("Supported devices"))
    assert not present("env", vocabulary("Read os.environ directly."))
    # "neither … nor" is phrasing, like "either … or"
    assert "neither" not in _terms("Neither inherits nor installs")


def test_in_order_to_says_what_for_and_covers_no_order() -> None:
    # Asked "in what order are middleware evaluated?", the TrustedHost passage ("… in order to guard
    # against …") was opened before the one saying "evaluated from top-to-bottom".
    order = _terms("In what order are they evaluated?")["order"]
    assert not present(order.term, vocabulary("Enforces a Host header, in order to guard against attacks."))
    assert present(order.term, vocabulary("Middleware runs in the order it is listed."))
    assert "order" not in _terms("What do I set in order for retries to happen?")
    assert "order" in _terms("Which orders table holds the order?")


def test_a_word_is_covered_by_a_word_derived_from_the_same_root() -> None:
    vocab = vocabulary("mypy will never recursively discover files; responses are compressed before a deployment")
    for asked in ("Which folders does it skip when it recurses?", "Is recursion supported?",
                  "Does it support compression?", "Where do I deploy it?"):
        word = next(k for k in key_terms(asked) if k.word.startswith(("recurs", "compress", "deploy")))
        assert present(word.term, vocab), asked
    # A word of another sense is no derivation: an option is not optional.
    assert not present("option", vocabulary("an optional dependency"))
    assert not present("recurs", vocabulary("the discovery recurrence"))


def test_a_dotted_name_is_covered_by_its_parts_but_not_an_underscored_or_numbered_one() -> None:
    vocab = vocabulary("The session cookie has a max age. The client sends a post. HTTP is spoken here.")
    (dotted,) = key_terms("What does `client.post` return?")[:1]
    assert credit(dotted.term, vocab) == 0.8
    # a setting that does not exist is spelled from words that do
    (setting,) = [k for k in key_terms("What is the default of SESSION_COOKIE_MAX_AGE?") if "_" in k.term]
    assert credit(setting.term, vocab) == 0.0
    (version,) = [k for k in key_terms("Does the server speak HTTP/2?") if "/" in k.term]
    assert credit(version.term, vocab) == 0.0
    assert credit(setting.term, vocabulary("Set SESSION_COOKIE_MAX_AGE to change it.")) == 1.0


def test_names_joined_by_a_slash_are_covered_by_each_found_whole_but_a_version_is_not() -> None:
    vocab = vocabulary("Catch either failed requests, or 4xx and 5xx responses, over HTTP 2 or 1.1.")
    (codes,) = [k for k in key_terms("Which exception covers 4xx/5xx responses?") if "/" in k.term]
    assert credit(codes.term, vocab) == 0.8
    assert credit(codes.term, vocabulary("Catch 4xx responses.")) == 0.0  # one of the two is no cover
    (version,) = [k for k in key_terms("Does the server speak HTTP/2?") if "/" in k.term]
    assert credit(version.term, vocab) == 0.0  # "HTTP" and a "2" elsewhere are not HTTP/2


def test_a_term_no_passage_has_weighs_what_the_found_ones_do_per_unit_of_its_own_weight() -> None:
    passages = [Passage(str(n), "d", "sessions.md", "sessions.md", n, text, None, None, 0, len(text)) for n, text in
                enumerate(["The session cookie is signed.", "Sessions expire after two weeks.", "Routing basics."])]
    coverage = Coverage(passages)
    keys = [KeyTerm("session", 0.6), KeyTerm("cooki", 0.6), KeyTerm("grabbing", 0.6)]
    plain, capped = coverage.weights(keys), coverage.capped_weights(keys)
    # By inverse frequency alone the absent word weighs the most there is...
    assert plain["grabbing"] > max(plain["session"], plain["cooki"])
    # ... capped, it weighs their mean, and a passage covering them covers two thirds of the question.
    assert capped["grabbing"] == pytest.approx((plain["session"] + plain["cooki"]) / 2)
    assert capped["session"] == plain["session"]
    assert round(coverage.best(keys, capped)[0], 3) == round(2 / 3, 3) > coverage.best(keys)[0]


def test_an_acronym_is_not_covered_by_the_one_it_extends() -> None:
    (https,) = key_terms("Does blackd support HTTPS?")[1:]
    assert credit(https.term, vocabulary("blackd is a small HTTP server.")) == 0.0
    assert credit(https.term, vocabulary("Serve it over HTTPS with your own certificate.")) == 1.0
    (hooks,) = [k for k in key_terms("Which hooks run first?") if k.word == "hooks"]
    assert credit(hooks.term, vocabulary("Each hook runs in order.")) == 1.0


def test_a_links_scheme_is_no_word_of_the_text_or_the_question() -> None:
    (https,) = key_terms("Does blackd support HTTPS?")[1:]
    linked = vocabulary("blackd is a small HTTP server (source: https://github.com/psf/black).")
    assert credit(https.term, linked) == 0.0 and {"github", "black"} <= linked
    # An address the asker pastes asks about the address, not about HTTPS.
    assert "https" not in {k.term for k in key_terms("Why does a GET to https://api.example.com/v1 time out?")}


def test_everyday_words_are_told_apart_by_how_common_they_are() -> None:
    assert all(everyday(word) for word in ("though", "nothing", "given", "Put"))
    assert not any(everyday(word) for word in ("cron", "grabbing", "kilobytes", "gevent", "scheduled"))
