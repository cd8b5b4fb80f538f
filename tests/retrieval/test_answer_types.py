"""What kind of value a question asks for, and whether a sentence holds one."""

from citeline.retrieval.answer_types import (
    AnswerType,
    asked_attribute,
    asks_for_command,
    asks_for_shaped_value,
    asks_for_value,
    asks_how_to,
    expected_types,
    holds,
    kind_asked,
    new_values,
    states_default,
    states_value,
)


def test_value_questions_and_the_values_that_answer_them() -> None:
    duration = expected_types("How long does the session cookie last by default?")
    assert AnswerType.DURATION in duration
    assert holds(duration, "Defaults to 2 weeks.")
    # "by default" alone does not answer "how long"
    assert not holds(duration, "The cookie is signed by default.")
    assert holds(expected_types("How many retries are made?"), "Requests are retried 3 times.")
    assert holds(expected_types("Which environment variable sets the cache dir?"), "Set `UV_CACHE_DIR` to move it.")
    assert holds(expected_types("When was the bridge built?"), "It was opened in 1939.")
    # A dotted name has a word on each side: an abbreviation or a version number names nothing.
    name = expected_types("Which attribute holds the client's address?")
    assert holds(name, "It is exposed as request.client.")
    assert not holds(name, "Use the native store (e.g., for a proxy) on Python 3.14.")
    # A word joined by underscores is an identifier with its code markup or without it.
    options = expected_types("Which environment options clean that up?")
    assert holds(options, "If an application configures Jinja to trim_blocks, the first newline is removed.")
    assert not holds(options, "Whitespace is returned unchanged in the default configuration.")


def test_a_kind_word_asks_for_its_kind_only_where_it_heads_what_is_asked() -> None:
    assert AnswerType.NUMBER in expected_types("Which port does the dev server use?")
    assert AnswerType.NUMBER in expected_types("Which httpx version first introduced the argument?")
    assert AnswerType.NUMBER in expected_types("What version of Python is needed?")
    # A plugin is asked for, not a version; "limits" is what the command does.
    assert AnswerType.NUMBER not in expected_types("Which version source plugin does Hatch fall back to?")
    assert AnswerType.NUMBER not in expected_types("What command limits the checkout to those directories?")


def test_a_digit_inside_a_name_is_not_a_number() -> None:
    how_many = expected_types("By default how many columns can a table have?")
    # The digit of "sqlite3_limit" or "Jinja2" is part of a name, not a count.
    assert not holds(how_many, "The maximum can be lowered using the sqlite3_limit(db, size) interface.")
    assert not holds(how_many, "Jinja2 templates are rendered by default.")
    assert holds(how_many, "The default setting for SQLITE_MAX_COLUMN is 2000.")
    assert holds(how_many, "It is retried three times.")
    # Nor is the section of a manual page cited after its name; a number in brackets of its own still is.
    assert not holds(how_many, "Store unreachable objects in a cruft pack (see git-repack(1)) instead.")
    assert holds(how_many, "The process exits with status (1) on failure.")
    # One letter then digits is itself a value: a paper size, a schema version.
    assert holds(expected_types("Which paper size is the default?"), "The default will most often be a4.")


def test_a_version_counts_nothing() -> None:
    how_many = expected_types("How many times will Click retry a prompt when the input fails validation?")
    assert how_many == (AnswerType.COUNT,)
    assert not holds(how_many, "In Click 1.0, you can only raise the UsageError but starting with Click 2.0 "
                               "you can also raise the BadParameter.")
    assert not holds(how_many, "Changed in version 8.0: the prompt is shown again.")
    assert not holds(how_many, "uv 0.4.2 retries downloads.")
    assert holds(how_many, "Since Click 2.0 it retries 3 times.")
    assert holds(how_many, "About 1.5 million people live along it.")
    # Asked for a version, a version is the value.
    version = expected_types("Which version of Click added the BadParameter exception?")
    assert holds(version, "starting with Click 2.0 you can also raise the BadParameter.")


def test_a_value_with_a_shape_is_asked_by_numbers_durations_and_dates_not_by_versions_or_names() -> None:
    for question in ("What port does blackd listen on by default?", "How long does a PIN stay valid?",
                     "How many attempts are allowed?", "When was the bridge built?"):
        assert asks_for_shaped_value(expected_types(question), question), question
    # A version may be a name ("editable", "latest"); a name or an explanation has no shape to look for.
    for question in ("Which wheel version should I pick for live development?", "Which option sets the port?",
                     "Why does the cache grow?"):
        assert not asks_for_shaped_value(expected_types(question), question), question


def test_how_often_and_a_named_unit_of_time_ask_for_an_interval() -> None:
    for question in ("How often does the background job fire?", "How often, in seconds, does the reloader poll?",
                     "What is the read timeout in milliseconds?"):
        assert expected_types(question) == (AnswerType.DURATION,), question
        assert asks_for_shaped_value(expected_types(question), question), question
    interval = expected_types("How often does the background job fire?")
    for said in ("The job runs hourly.", "It checks once a day.", "Tasks run every other week.", "Polls every 2 s."):
        assert holds(interval, said), said
    assert not holds(interval, "The stat backend checks the mtime of all files in a regular interval.")
    # Asked what decides it, the question wants a setting, not an interval.
    assert expected_types("How do I change how often it polls?") == (AnswerType.NAME,)
    # A time after which something happens is no unit to give a value in.
    assert AnswerType.DURATION not in expected_types("What does the server do in seconds after a restart?")


def test_an_exit_code_and_the_largest_value_allowed_are_numbers() -> None:
    assert expected_types("What exit code does black --check return when files would change?") == (AnswerType.NUMBER,)
    for question in ("What's the highest value git describe accepts for --candidates?",
                     "What is the largest value I can pass to --line-length?"):
        assert expected_types(question) == (AnswerType.NUMBER, AnswerType.MAXIMUM), question
    code = expected_types("Which exit code means that no tests were collected?")
    assert holds(code, "Exit code 5: no tests were collected.")
    assert not holds(code, "`pytest` exits with an error when no tests were collected.")
    # An error code a type checker prints is a name ("[override]"), not a number.
    assert AnswerType.NUMBER not in expected_types("Which error code goes in the ignore comment?")


def test_a_bound_asked_for_is_a_number_stated_as_a_bound() -> None:
    most = expected_types("What is the largest value I can pass to --line-length?")
    for question in ("How many linked worktrees can a single repository have at most?",
                     "Is there a limit on how many footnotes one document can have?",
                     "What's the largest number of workers it allows?", "What's its size limit?", "Max line length?",
                     "Does Black have a maximum line length?"):
        assert AnswerType.MAXIMUM in expected_types(question), question
    least = expected_types("What is the minimum Python version it supports?")
    assert AnswerType.MINIMUM in least and asks_for_shaped_value(least, "the minimum Python version")
    # A name holding the word is no bound asked: its value is asked like any other.
    for question in ("What are the default values of max_connections and max_keepalive_connections?",
                     "What's the default value of --soft-error-limit?", "What's the max-age of the cookie?",
                     "What command limits the checkout to those directories?",
                     # nor is a superlative of a thing, or a name holding the word
                     "What is the largest city the Rhine runs through?", "When was the Last Glacial Maximum?",
                     # nor a bound describing the thing another "what" asks about
                     "Classification is contingent on bounds of the minimum time required by what?",
                     # nor a bound that describes something to do
                     "How can I make uv resolve the lowest compatible versions of my direct dependencies?"):
        assert not {AnswerType.MAXIMUM, AnswerType.MINIMUM} & set(expected_types(question)), question
    assert holds(most, "Request bodies are limited to 5 MiB by default.")
    assert holds(most, "The maximum number of columns in a table is 2000.")
    assert holds(most, "There is no limit on the length of a name.")
    assert holds(most, "Signature: `request.form(max_files=1000, max_fields=1000)`")  # a setting named for it
    # Any number does not answer "the largest value": it must be stated as one.
    assert not holds(most, "Remember that people find it harder to work with line lengths exceeding 100 characters.")
    assert not holds(most, "A repository can have zero or one or more worktrees attached to it.")
    assert holds(least, "Python 3.8 or later is required.") and holds(least, "Jinja supports Python 3.7 and newer.")
    assert not holds(least, "Python 3.8 was released in 2019.")
    assert kind_asked(most) == "a maximum"


def test_a_time_before_the_present_and_a_decade_are_dates() -> None:
    when = expected_types("When did the last glacial start?")
    for text in ("The last glacial ran from ~74,000 (BP = Before Present).", "It began about 13,000 BP.",
                 "Europe warmed from 22,000 years ago onward.", "Hervé served in the 1050s."):
        assert holds(when, text), text
    assert not holds(when, "The glacial left a valley behind.")


def test_software_dates_a_change_by_the_release_that_made_it() -> None:
    # "When was BracketSpan added?" is answered by "BracketSpan is new in 12.0": a release, not a day.
    when = expected_types("When was BracketSpan added?")
    for text in ("BracketSpan is new in 12.0.", "Added in version 2.3.", "Deprecated since version 3.1: use X.",
                 "The flag was removed in v1.4.2."):
        assert holds(when, text), text
    # A number that is no release stays no date, nor is a version that dates nothing.
    for text in ("The delta is 3.5 million years old.", "It speaks version 2 of the protocol.",
                 "Since 1.2 the option is on."):
        assert not holds(when, text), text


def test_a_count_given_by_what_it_follows_is_a_count_and_a_mention_of_the_number_is_not() -> None:
    how_many = expected_types("How many parallel workers does Black use by default?")
    assert AnswerType.COUNT in how_many
    for text in ("Defaults to the number of CPUs in the system.", "The pool size is equal to the number of cores.",
                 "It starts one worker per core."):
        assert holds(how_many, text), text
    for text in ("You can limit the number of workers with `--workers`.", "The number of workers can be changed."):
        assert not holds(how_many, text), text


def test_which_of_two_sources_wins_asks_for_the_one_that_takes_precedence() -> None:
    for question in ("If the same setting is given both in a uv.toml file and in an environment variable, which one wins?",
                     "I have a pytest.ini and a pyproject.toml table. Which one does pytest read?",
                     "Headers set on the client and on the request: which of them takes precedence?"):
        asked = expected_types(question)
        assert asked == (AnswerType.PRECEDENCE,), question
        assert holds(asked, "Settings provided via environment variables take precedence over persistent configuration.")
        assert holds(asked, "For all other parameters, the request-level value takes priority.")
        assert not holds(asked, "uv also supports persistent configuration in a uv.toml file.")
    # Choosing between two things the docs compare is not a question of precedence.
    assert AnswerType.PRECEDENCE not in expected_types("Which one do the docs recommend for new projects?")
    assert AnswerType.PRECEDENCE not in expected_types("Which one should I use?")
    # Which one is used when none is chosen is a default.
    assert expected_types("There are two backends. Which one is used by default?") == (AnswerType.DEFAULT,)


def test_what_happens_when_nothing_is_chosen_asks_for_the_default() -> None:
    for question in ("If I don't pass --app at all, which module names will the flask command try?",
                     "what compression level does git archive use if you dont give one",
                     "What's the log level I'll see if I never configure logging?",
                     "When I flash a message without giving a category, what category does it get?",
                     "When I create an FTS5 table without naming a tokenizer, which tokenizer does it use?",
                     "What are the out-of-the-box thresholds that make git gc --auto kick in?",
                     "Which tokenizer is used out of the box?",
                     "How often does PostgreSQL run an automatic checkpoint if I leave checkpoint_timeout alone?",
                     "Which port does it use if you leave the port setting empty?"):
        assert AnswerType.DEFAULT in expected_types(question), question
    assert holds(expected_types("which level if you dont give one"), "The level defaults to -6.")
    # A condition on something the asker does is not a choice left out.
    assert AnswerType.DEFAULT not in expected_types("If I pass both, what happens?")
    assert AnswerType.DEFAULT not in expected_types("If I don't commit, can I still switch branches?")
    assert AnswerType.DEFAULT not in expected_types("If I leave the office, does the server keep running?")


def test_a_misspelt_cue_word_still_says_what_is_asked() -> None:
    # Typed in haste, "defualt" and "tiemout" still ask for a default and a duration.
    assert expected_types("whats the defualt creation factor range-diff uses?") == (AnswerType.DEFAULT,)
    assert AnswerType.DURATION in expected_types("What is the deafult tiemout?")
    assert asked_attribute("what is the maxmimum lenght of a branch name?") == ("branch",)
    # A word that is English as written is meant as written: "internal" is no misspelt "interval".
    assert expected_types("What is the internal flag for?") == ()
    assert expected_types("What does the lenient parser do?") == ()


def test_how_long_as_the_thing_to_change_asks_for_a_setting() -> None:
    asked = expected_types("How do I change how long a job may run before it is cancelled?")
    assert asked == (AnswerType.NAME,)
    assert holds(asked, "`HARBOR_JOB_TIMEOUT` - Seconds a job may run before the worker cancels it.")
    assert not holds(asked, "A job may run for a while before it is cancelled.")
    assert not {AnswerType.NUMBER, AnswerType.COUNT} & set(expected_types("How can I limit how many connections are opened?"))
    # Asked for the duration itself, it is still a duration.
    assert AnswerType.DURATION in expected_types("How long may a job run before it is cancelled?")


def test_how_long_is_a_thing_asks_for_a_length_or_a_duration() -> None:
    length = expected_types("How long is the Rhine?")
    assert AnswerType.MEASURE in length and AnswerType.DURATION in length
    assert holds(length, "It is about 1,230 km (760 mi) long.")
    assert holds(expected_types("How long is the default timeout?"), "The timeout is 5 seconds.")
    width = expected_types("How wide is the glacial valley?")
    assert width == (AnswerType.MEASURE,)
    # Its adjective is not its measure: the width is a number with a unit.
    assert not holds(width, "It flows through a wide glacial alpine valley.")
    assert holds(width, "The plain is up to 40 km wide.")
    assert holds(expected_types("What is the length of the bridge?"), "The bridge spans 600 metres.")
    assert AnswerType.MEASURE not in expected_types("How long does the cookie last?")


def test_explanations_ask_for_no_value() -> None:
    assert expected_types("What does that timeout actually mean?") == ()
    assert holds((), "Anything holds when no value is asked.")


def test_how_to_questions() -> None:
    assert asks_how_to("How do I run a task after the response has been sent?")
    assert asks_how_to("how to talk to the docker daemon over a unix socket")
    assert not asks_how_to("What is the default timeout?")
    # After a scene-setting clause, and "what do I run / which … am I supposed to use".
    assert asks_how_to("In a TestClient test, how can I check which template was rendered?")
    assert asks_how_to("nested for loops over table rows - how can the inner loop get at the outer loop's index?")
    assert asks_how_to("After uv sync on Windows, what do I run to activate the environment?")
    assert asks_how_to("which activate script am i supposed to use")
    # Asked for a command line or an option: the example that runs it is the answer.
    assert asks_how_to("Which command shows the version of uv itself?")
    assert asks_how_to("what's the hatch version invocation?")
    assert asks_how_to("Which flask run options turn off the reloader?")
    assert not asks_how_to("Which option is the default?")
    # Asked what a named flag or command does, the answer is what it does, not one to use.
    assert not asks_how_to("What does the --test flag of rustdoc do?")
    assert not asks_for_command("What does the `uv run` command do?")
    # Typed as into a search box, an imperative asks how to do it; a statement does not.
    assert asks_how_to("disable ssl verification") and asks_how_to("Set a timeout on the client")
    assert not asks_how_to("Install options are what?")
    # A few words asking for no kind of value search for a feature: a reader wants to see it used.
    assert asks_how_to("use of proxies") and asks_how_to("check response served http/2")
    assert not asks_how_to("default timeout httpx")  # asks for a value
    assert not asks_how_to("The client retries. I want to know why it waits between tries")  # sentences


def test_command_questions() -> None:
    assert asks_for_command("What command runs that script in that environment?")
    assert asks_for_command("what's the hatch version invocation?")
    assert asks_for_command("After uv sync on Windows, what do I run to activate the environment?")
    assert not asks_for_command("Which option turns off the reloader?")  # an option, not a command line
    assert not asks_for_command("How do I set a timeout?")


def test_when_asks_for_a_date_only_about_the_past() -> None:
    assert AnswerType.DATE in expected_types("When was the bridge built?")
    # A condition, not a date: evidence without a year must not count against it.
    assert AnswerType.DATE not in expected_types("When does the code after yield run?")
    assert AnswerType.DATE not in expected_types("When I add a Git dependency, does uv fetch LFS objects by default?")


def test_a_year_of_the_first_millennium_is_a_date_when_marked_as_one() -> None:
    when = expected_types("When was the duchy founded?")
    assert holds(when, "The duchy, which began in 911 as a fiefdom, was established by treaty.")
    assert holds(when, "After the death of Augustus in AD 14 the frontier moved.")
    assert holds(when, "It is first named in the 1st century BC.")
    assert holds(when, "The camp was founded 12 BC on the left bank.")
    # A count after "in" is no year.
    assert not holds(when, "They arrived in 300 ships.")
    assert not holds(when, "The river is about 300 km long.")


def test_new_values_are_the_concrete_values_the_question_lacks() -> None:
    question = "Which environment variable sets the `--index-url`?"
    text = "Set `UV_INDEX_URL` (or pass `--index-url`) before calling uv.sync(), e.g. in CI."
    assert new_values(text, question) == ["UV_INDEX_URL", "uv.sync"]
    assert new_values("The installer respects the index URL.", question) == []


def test_yes_no_and_why_questions_ask_for_no_value() -> None:
    assert asks_for_value("Which command shows the version of uv itself?")
    assert asks_for_value("Where does uv put tool environments?")
    assert not asks_for_value("Does uv fetch LFS objects by default?")
    assert not asks_for_value("When I add a Git dependency, does uv fetch LFS objects?")
    assert not asks_for_value("Why does the guide add a sys_platform marker?")


def test_a_directory_or_place_in_software_is_a_path() -> None:
    assert expected_types("In which directory are the binaries installed?") == (AnswerType.NAME,)
    assert holds(expected_types("Where does uv put tool environments?"), "They live in `~/.local/share/uv/tools`.")
    assert holds(expected_types("Where does the Rhine begin?"), "It begins in the Swiss canton of Graubünden.")


def test_the_thing_whose_value_is_asked() -> None:
    assert asked_attribute("How many threads does Waitress use by default?") == ("thread",)
    assert asked_attribute("What is the default timeout for requests?") == ("timeout",)
    # Words naming the kind of value are not what it is the value of: a sentence giving a year or
    # an option rarely repeats "year" or "option". The subject is what it is asked of.
    assert asked_attribute("Which keyring backend does Hatch use?") == ("keyr",)
    assert asked_attribute("What year was the bridge built?") == ("bridge",)
    assert asked_attribute("Which option does the server take?") == ("server",)
    assert asked_attribute("How long does the cookie last?") == ()
    # How many are asked for is no more the thing than "one" is: "which two flags" asks for flags.
    assert asked_attribute("Which two options does the server take?") == ("server",)
    assert asked_attribute("Which two flags does pip take?") == ("pip",)


def test_the_thing_a_measure_or_value_is_asked_of() -> None:
    # "How long is X?" asks the measure of the subject that ends the question.
    assert asked_attribute("How long is the Upper Rhine Plain?") == ("upper", "rhine", "plain")
    assert asked_attribute("How wide are the Jura Mountains?") == ("jura", "mountain")
    assert asked_attribute("how wide are the jura mountains") == ("jura", "mountain")  # typed without "?"
    # "the length of X", "the default value of X": the thing follows "of", up to the clause's end.
    assert asked_attribute("What is the length of the Old Rhine Bridge at Constance?") == ("old", "rhine", "bridge")
    assert asked_attribute("What is the default value of R_PDFVIEWER, i.e. which viewer?") == ("r_pdfviewer",)
    assert asked_attribute("What is the default value of max_redirects in httpx?") == ("max_redirects",)
    # A name written with dots or slashes is the thing whole, as a plain name is.
    assert asked_attribute("What is the default value of build.jobs?") == ("build.jobs",)
    assert asked_attribute("What port does app.run use?") == ("app.run",)
    # A name has no shape in prose to look for, so "the name of X" names no thing to check.
    assert asked_attribute("What is the name of the longest bridge in Germany?") == ()


def test_the_subject_is_the_thing_when_only_the_kind_of_value_is_named() -> None:
    # "what directory does X point to": the subject up to its verb.
    assert asked_attribute("On Linux, what directory does R_LIBS_USER point to by default?") == (
        "r_libs_user",)  # a name is asked whole, not as its parts found apart
    assert asked_attribute("What port does the dev server use by default?") == ("dev", "server")
    assert asked_attribute("What year was the Old Rhine Bridge shortened?") == ("old", "rhine", "bridge")
    # After a form of "be", only a subject with an article: "is read" has none.
    assert asked_attribute("Which variable is read for the password?") == ()
    assert asked_attribute("What river is larger than the Rhine?") == ()
    assert asked_attribute("What is the region called that is the largest conurbation?") == ()
    # A possessive before the thing is not part of it.
    assert asked_attribute("What is uv's default timeout for HTTP requests?") == ("timeout",)
    # The subject ends at its verb whatever preposition follows the verb: in "how many arguments can a
    # function have before too_many_arguments fires" the name after "before" is no part of it.
    assert asked_attribute("How many options can a server take before clippy warns?") == ("server",)


def test_a_value_is_stated_where_its_thing_is_named() -> None:
    asked = expected_types("How many threads does Waitress use by default?")
    attribute = asked_attribute("How many threads does Waitress use by default?")
    assert states_value(asked, attribute, "Waitress runs four threads unless told otherwise.")
    # The thing named without a number, or a number without the thing, states nothing.
    assert not states_value(asked, attribute, "Waitress is a pure-Python server with threads.")
    assert not states_value(asked, attribute, "Waitress listens on port 8080.")
    # The thing may be named just before the value (the sentence before, the section title); the
    # value itself must be in the sentence quoted.
    assert states_value(asked, attribute, "It defaults to 4.", "Waitress serves requests from threads.")
    assert not states_value(asked, attribute, "Waitress serves requests from threads.", "It defaults to 4.")
    # Asked for a default and nothing more specific, a sentence must say what it is: naming the thing
    # beside the word "default" is no answer.
    scope = expected_types("What scope does a fixture get by default?")
    assert states_value(scope, ("scope",), "`function`: the default scope, the fixture is destroyed at the end.")
    assert states_value(scope, ("scope",), 'The scope is one of "function" (default), "class" or "module".')
    assert not states_value(scope, ("scope",), "The scope has a default value (print it to see it).")


def test_the_kind_asked_in_words() -> None:
    # "How long is …?" takes a duration or a length: the decline names both.
    assert kind_asked(expected_types("How long is Lake Constance?")) == "a duration or a measure"
    # A specific kind over "a default"; "a default" alone when nothing else is asked.
    assert kind_asked(expected_types("How many threads does it use by default?")) == "a number"
    assert kind_asked(expected_types("What is the default for this?")) == "a default"
    assert kind_asked(()) == "a value"


def test_the_thing_is_found_past_asides_superlatives_and_relative_clauses() -> None:
    # An aside between commas qualifies the kind of value; the thing still follows "of".
    assert asked_attribute("What is the maximum length, in characters, of a table name?") == ("table",)
    # A superlative names the kind of value as "maximum" does.
    assert asked_attribute("What's the largest main branch of the river?") == ("main", "branch")
    # A relative clause with its own subject ends the thing: "… clauses I can chain".
    assert asked_attribute("What's the maximum number of conflict clauses I can chain?") == ("conflict", "claus")
    # "How long can X get?" asks a measure of X.
    assert asked_attribute("How long can a generated test ID get before it is cut?") == ("generat", "test", "id")
    # The thing before the word naming the kind of value, when no verb follows it closely.
    assert asked_attribute("What's the maximum request body size the server accepts?") == ("request", "body")


def test_a_sentence_saying_what_the_default_is() -> None:
    asked = expected_types("Which outcomes are listed by default?")
    assert asked == (AnswerType.DEFAULT,)
    assert states_default(asked, "It defaults to `fE` to list failures and errors.")
    assert states_default(asked, "The unicode61 tokenizer. This is the default.")
    assert states_default(asked, "Default directory is `.pytest_cache`.")
    # A reference's notation says it too.
    for notation in ("default: `normal`", "Set the maximum number of types to try (default: `64`).",
                     "(integer, default 99) Controls which directories are packages.", "timeout (default=5)",
                     'One of "function" (default), "class" or "module".', "`function`: the default scope.",
                     "Default Value: `true`", "Default value: 25"):
        assert states_default(asked, notation), notation
    # Mentioning a default is not saying what it is.
    assert not states_default(asked, "The default page cache that is built in honours the request.")
    assert not states_default(asked, "See the [defaults] section: it lists more.")
    lifetime = expected_types("What is the default lifetime of a permanent session?")
    assert states_default(lifetime, "The default is 31 days.")
    assert not states_default(lifetime, "If set to `True` the session lives for `permanent_session_lifetime` seconds.")
    # Asked for a specific kind of default, the sentence must hold that kind of value.
    count = expected_types("By default how many columns can a table have?")
    assert states_default(count, "The default setting for SQLITE_MAX_COLUMN is 2000.")
    assert not states_default(count, "The default is documented below.")
    # Nothing is said to answer a question that asks for no default.
    assert not states_default(expected_types("Which tokenizer does FTS5 use?"), "This is the default.")


def test_a_signature_gives_its_parameters_defaults_but_a_call_in_a_sentence_does_not() -> None:
    asked = expected_types("What prefix does the memcached cache put in front of its keys by default?")
    for signature in ("class jinja2.MemcachedBytecodeCache(client, prefix='jinja2/bytecode/', timeout=None)",
                      "truncate(s: str, length: int = 255, end: str = '...') \u2192 str", "def fetch(url, retries=3) -> bytes"):
        assert states_default(asked, signature), signature
        assert states_value(asked, ("prefix",), signature) == ("prefix" in signature)
    for example in ("Use `Client(timeout=10.0)` to set it.", "httpx.Client(timeout=10.0) sets the timeout.",
                    "class jinja2.BytecodeCache(client, prefix)"):
        assert not states_default(asked, example), example
