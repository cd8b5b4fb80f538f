"""The names a reference titles its entries by, and the names a question writes."""

from __future__ import annotations

from citeline.retrieval.names import asked_names, declared_name, name_forms, titled_name, titled_names


def test_a_title_that_is_a_name_or_a_name_and_what_it_does_names_its_section() -> None:
    assert titled_name("`cache-dir`") == "`cache-dir`"
    assert titled_name("[run] branch") == "[run] branch"
    assert titled_name("follow_imports") == "follow_imports"
    assert titled_name("`-e`/`--extend-css`: extend rustdoc's CSS") == "`-e`/`--extend-css`"
    assert titled_name("`--test` - run code examples as tests") == "`--test`"
    # Words are no name, nor are two names joined by words.
    assert titled_name("Automatic retries") is None
    assert titled_name("`#[doc(cfg)]` and `#[doc(auto_cfg)]`") is None


def test_the_names_an_entry_goes_by() -> None:
    assert name_forms("`-e`/`--extend-css`") == {"-e", "--extend-css"}
    assert name_forms("[report] precision") == {"precision"}
    assert name_forms(None) == frozenset()
    assert titled_names("Command-line arguments > `--test`: run code examples as tests") == {"--test"}
    assert titled_names("Guide > Running tests") == frozenset()


def test_the_names_a_question_writes() -> None:
    assert asked_names("What does the --test flag of rustdoc do?") == {"--test"}
    assert asked_names("What is the default of build.jobs, e.g. on CI?") == {"build.jobs"}  # "e.g." is no name
    assert asked_names("Does `max_age` apply, or session_cookie?") == {"max_age", "session_cookie"}
    assert asked_names("What does the disallowed-methods setting do?") == {"disallowed-methods"}
    assert asked_names("How do I run the tests?") == frozenset()


def test_a_signature_declares_the_name_it_is_the_entry_of() -> None:
    assert declared_name("toUpper :: Char -> Char") == "toUpper"  # Haddock
    assert declared_name("def addCallback(self, callback, *args, **kwargs):") == "addCallback"  # pydoctor
    assert declared_name("JSON_EXPORT int json_object_put (struct json_object * obj)") == "json_object_put"  # Doxygen
    assert declared_name("pub fn parse<T: Parse>(&self) -> Result<T>") == "parse"  # rustdoc
    assert declared_name("httpx.get(url, *, params=None)") == "httpx.get"  # Sphinx
    assert declared_name("g_hash_table_insert ()") == "g_hash_table_insert"  # gtk-doc
    # a name alone, or words, declares nothing
    assert declared_name("max_age") is None and declared_name("Default") is None
