"""How an extractive answer is laid out from the units it picked: which of them fit the word budget
(a point that only repeats another is left out; a sentence introducing a list brings its items),
the lead paragraph (a lead that leans on the sentence before it, or is completed by the one after,
keeps that sentence), an introduction whose example is not shown closed as a statement, a line
freed of the word tying it to a source sentence not shown ("However, …") and of a closing pointer
elsewhere in the source ("See security-cookie."), and which code block belongs under the sentences
quoted.

Everything here works on the evidence's units and indexes into them; choosing the units is
`extractive.ExtractiveAnswerer`'s work.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from citeline.documents.models import ADMONITION_KINDS
from citeline.index.store import Passage
from citeline.retrieval.answer_types import AnswerType, AnswerTypes, holds, new_values
from citeline.retrieval.evidence import english_word, everyday, present, vocabulary
from citeline.retrieval.units import Unit, listed_entry, text_sentences
from citeline.text import STOPWORDS, collapse_ws, content_terms, fold

MAX_POINTS = 3  # supporting points after the lead
WORD_BUDGET = 60  # words outside code a composed answer aims to stay under
_SAME = 0.7  # content-term overlap above which two units say the same thing
_LEAD_WORDS = 45  # a lead and the sentence that completes it stay within this many words


# A sentence that starts like this only restates or completes the one before it ("The pool holds
# 40 tokens. This means that only 40 threads can run at the same time."): the two are one thought.
_CONTINUES = re.compile(
    r"^(?:in\s+other\s+words|that\s+is|this\s+means|that\s+means|which\s+means|as\s+a\s+result|"
    r"therefore|consequently|otherwise|thus|hence|as\s+such|in\s+that\s+case|in\s+practice|in\s+practical\s+terms)\b",
    re.IGNORECASE)
# A sentence opening on the condition the one before it sets ("If not, requests wait forever.") goes
# on from it too. Such a sentence still leads alone when the lead model picks it: it is the sentence
# stating what happens (st-010's "In this case you should use `raise_server_exceptions=False`").
_ON_THAT_CONDITION = re.compile(
    r"^(?:if\s+(?:not|so)|in\s+(?:this|either|both|such\s+a)\s+cases?|without\s+(?:it|this|that))\b", re.IGNORECASE)


def unit_text(unit: Unit) -> str:
    """A unit as quoted in an answer: prose on one line, a code display inside a sentence as a code
    span, an option's entry in a help listing as "name - description"; code as it stands."""
    if unit.is_code:
        return unit.text
    entry = listed_entry(unit)
    if entry is not None:
        return f"{entry[0]} - {collapse_ws(entry[1])}"
    pieces, at = [], unit.start
    for start, end in unit.inline_code:
        code = _PROMPT.sub("", unit.text[start - unit.start : end - unit.start].strip())
        pieces += [unit.text[at - unit.start : start - unit.start], f" `{code}` "]
        at = end
    rest = unit.text[at - unit.start :]
    # A sentence that ends with its display ends there: with a full stop.
    return collapse_ws("".join(pieces) + rest) + ("." if unit.inline_code and not rest.strip() else "")


_PROMPT = re.compile(r"^(?:\$|>|R>)\s+")  # a shell or R prompt before a command: not what a reader types


# "… the following dependencies are optional:", "… in one of the following directories."
INTRODUCES = re.compile(r":\s*$|\b(?:the\s+following|as\s+follows)(?:\s+[\w-]+){0,3}\s*[.:]?\s*$", re.IGNORECASE)


# A sentence opening with a pronoun or demonstrative as its subject is about what an earlier one names;
# "It is expected that …", "It is here that …" and "That is, …" point at nothing before them.
_LEANS_BACK = re.compile(
    r"(?:it\b(?!\s+(?:is|was|has\s+been|will\s+be|would\s+be|can\s+be|may\s+be)\s+(?:\S+\s+){0,3}?(?:that|to)\b)"
    r"|(?:its|this|these|they|their|that|those|such)\b(?!\s+is\s*,))", re.IGNORECASE)


def exempt_from_budget(units: Sequence[Unit], picked: Sequence[int], part_picks: Sequence[int],
                       answer_type: AnswerTypes, question: str) -> list[int]:
    """The picked units the word budget may not cut: each part's answer and, when a kind of value is
    asked, the likeliest point holding one (a long sentence naming the asked variable is the
    answer; a short one about the topic is not)."""
    holding = next((i for i in picked[1:] if i not in part_picks and holds_asked(answer_type, units[i].text, question)),
                   None)
    return [*part_picks, *([holding] if holding is not None else [])]


def holds_asked(answer_type: AnswerTypes, text: str, question: str) -> bool:
    """Whether `text` holds a value of the asked kind; a name (a variable, a flag) must be one the
    question does not already hold: "set it in `pyproject.toml`" does not name the asked variable."""
    if not answer_type or not holds(answer_type, text):
        return False
    return AnswerType.NAME not in answer_type or bool(new_values(text, question))


def shows_the_prose(block: Unit, prose: Sequence[Unit]) -> bool:
    """Whether a code example belongs under the answer's sentences: it comes from a passage they
    quote, or it uses a value they name (`default_encoding` in the sentence, `default_encoding=` in
    the block). A block from elsewhere that uses none shows how to do something else."""
    if any(unit.number == block.number for unit in prose):
        return True
    named = {value.strip() for unit in prose for value in new_values(unit.text, "")}
    return any(len(value) >= 3 and value in block.text for value in named)


_SHELLS = frozenset({"console", "terminal", "shell", "sh", "bash", "zsh", "fish", "powershell", "pwsh", "ps1",
                     "bat", "cmd", "shell-session", "shellsession", "pwsh-session", "ps1con", "doscon"})


_CONFIG_LINE = re.compile(r"^\s*(?:\[[^\]]+\]|[\w.\-\"']+\s*[=:](?!:))")  # "[table]", "key = value", "key: value"


# A fence's language is one word ("console", "python", "Dockerfile"); a block's label may instead be the
# title of the tab or file it sits in ("macOS and Linux", "example.py") or a note's kind.
_LANGUAGE = re.compile(r"[\w+#-]{1,20}")


def code_language(block: Unit) -> str:
    """The language a code block is written in, or "" when it has none: its own, else (from an index
    written before languages were kept apart) its label when that is not a title, a file name or a note's kind."""
    label = block.language or block.label or ""
    return label if _LANGUAGE.fullmatch(label) and label.casefold() not in ADMONITION_KINDS else ""


def is_command_line(block: Unit) -> bool:
    """Whether a code block is a command line to run: written for a shell, or its first line is
    a prompt or a command rather than a configuration entry or code."""
    language = code_language(block).casefold()
    if language in _SHELLS:
        return True
    if language:
        return False
    first = next((line for line in block.text.splitlines() if line.strip()), "")
    return first.lstrip().startswith(("$ ", "> ")) or not _CONFIG_LINE.match(first)


def tabs_named(question: str, units: Sequence[Unit], blocks: Sequence[int], *, alternatives: bool = False) -> list[int]:
    """Of one passage's code `blocks`, those under a tab the question names ("on Windows" and a
    "Windows" tab; "Mac" and a "macOS and Linux" one): a word of the tab's title that no other
    tab's title has is a word of the question, or begins with one of three letters or more. A file
    name is one word ("hatch.toml" is not named by "Hatch"). A block's language ("python",
    "console") is not a tab title: asked in Python, every block is. With `alternatives`, only when
    the blocks have several titles (tabs of one thing for different readers, not one titled example)."""
    titled = [i for i in blocks if units[i].label and units[i].label != units[i].language]
    labels = {units[i].label or "" for i in titled}
    if alternatives and len(labels) < 2:
        return []
    # A tab's text is all its blocks' ("Bash" shows two commands); a title names them all.
    texts = {label: " ".join(units[i].text for i in titled if units[i].label == label) for label in labels}
    named = _named_titles(question, texts)
    return [i for i in titled if units[i].label in named]


def _named_titles(question: str, texts: dict[str, str]) -> set[str]:
    """Of sibling tabs (each title with its text), those the question names: by a word of its title
    that the other titles lack (the same word, or a word of three letters or more it begins: "Mac" for
    "macOS"), or by a name the question holds — a word that is not English ("zsh", "pwsh") — found
    in that tab's text alone ("zsh_source" under "Z shell": a title can spell out what a question
    abbreviates)."""
    asked = _name_words(question)
    names = {word for word in asked if word.isalpha() and len(word) >= 3 and not english_word(word)}
    title_words = {title: _name_words(title) for title in texts}
    tokens = {title: set(_TOKEN.findall(fold(text))) for title, text in texts.items()}
    named = set()
    for title in texts:
        others = [other for other in texts if other != title]
        own_title = title_words[title] - set().union(*(title_words[o] for o in others))
        own_tokens = tokens[title] - set().union(*(tokens[o] for o in others))
        if (any(word == own or (word.isalpha() and len(own) >= 3 and word.startswith(own))
                for word in own_title for own in asked)
                or any(token.startswith(name) for token in own_tokens for name in names)):
            named.add(title)
    return named


def outside_named_tabs(question: str, units: Sequence[Unit], evidence: Sequence[Passage]) -> set[int]:
    """Prose under a sibling of a tab the question names (see `_named_titles`): asked "I use zsh.
    How do I …?", the steps under a page's "Bash" and "fish" tabs beside its "Z shell" one answer
    someone else's question. Nothing is left out when no tab, or every tab, of a group is named. Code
    stays: which block to show is `tabs_named`'s choice, and it tells alternatives by their siblings."""
    outside: set[int] = set()
    for number, passage in enumerate(evidence, 1):
        for group in _tab_groups(passage):
            texts = {title: " ".join(passage.text[passage.blocks[b].start : passage.blocks[b].end] for b in blocks)
                     for title, blocks in group.items()}
            named = _named_titles(question, texts)
            if named and len(named) < len(group):
                off = {b for title, blocks in group.items() if title not in named for b in blocks}
                outside.update(i for i, u in enumerate(units)
                               if u.number == number and u.block in off and not u.is_code)
    return outside


_TOKEN = re.compile(r"[a-z0-9]+")  # the pieces of a tab's text a name is looked for in ("zsh" of "zsh_source")


def _tab_groups(passage: Passage) -> list[dict[str, list[int]]]:
    """A passage's groups of sibling tabs, each title with the indexes of its blocks (the tab's prose
    and code): a group runs over consecutive blocks labelled with a tab title of the passage."""
    titles = {block.label for block in passage.blocks if block.kind == "tab" and block.label}
    groups: list[dict[str, list[int]]] = []
    current: dict[str, list[int]] = {}
    for index, block in enumerate(passage.blocks):
        if block.label in titles and block.kind in ("tab", "code"):
            current.setdefault(block.label, []).append(index)
            continue
        if len(current) >= 2:
            groups.append(current)
        current = {}
    if len(current) >= 2:
        groups.append(current)
    return groups


def _name_words(text: str | None) -> set[str]:
    """The content words of a tab's title or a question, casefolded; a file or dotted name is one word."""
    return {word for word in (w.casefold() for w in re.findall(r"\w(?:[\w.+-]*\w)?", text or ""))
            if word not in STOPWORDS}


def code_intro(units: Sequence[Unit], code: int | None) -> int | None:
    """The prose unit right before the code example shown (`code`), which introduces it."""
    return next((i for i in range(code - 1, -1, -1) if not units[i].is_code), None) if code is not None else None


_FOR_EXAMPLE = r"for\s+(?:example|instance)|e\.g\."
# What a sentence says before the colon that hands over to an example: "… the `--private` flag like so:".
_HANDS_OVER = re.compile(rf"(?:(?:^|,?\s+)(?:like\s+(?:so|this)|as\s+follows|{_FOR_EXAMPLE}|such\s+as))?\s*:\s*$",
                         re.IGNORECASE)
# A sentence whose whole content is the example it hands over to: "For example, to set headers on every request:".
_ONLY_HANDS_OVER = re.compile(rf"\s*(?:{_FOR_EXAMPLE})\b.*:\s*$", re.IGNORECASE | re.DOTALL)


# Last words that leave their object to the example after the colon ("… simply run:", "… is
# equivalent to the following:"), besides the function words STOPWORDS already holds ("use:", "with:").
_OBJECT_VERBS = frozenset(("run", "type", "enter", "execute", "call", "try", "write", "add", "invoke",
                           "define", "following"))


def needs_its_example(text: str, question: str) -> bool:
    """Whether a sentence leaves its object to the example after its colon and names no value of its
    own ("If you want to get rid of R completely, simply run:", "… is equivalent to the following:"):
    without the example shown it says nothing ("… simply run."). One naming a value the question
    does not ("To see live logs, pass `--log-cli-level` like:"), or stating something before a clause
    that hands over ("Middleware is evaluated from top-to-bottom, so the flow … would look like
    this:"), still tells something."""
    words = re.findall(r"[\w'-]+", text.rstrip()[:-1]) if text.rstrip().endswith(":") else []
    return (bool(words) and (words[-1].casefold() in STOPWORDS or words[-1].casefold() in _OBJECT_VERBS)
            and not new_values(text, question) and _statement_before_handing_clause(text) is None)


# "…, so the flow of execution in our example application would look like this:": a clause after a
# statement that only hands over to what follows.
_HANDING_CLAUSE = re.compile(r",\s+(?:so|and|which\s+means)\s+[^,;:]*?(?:like\s+(?:so|this)|as\s+follows|"
                             r"the\s+following)\s*:\s*$", re.IGNORECASE)


def only_introduces(text: str) -> bool:
    """Whether a sentence only introduces what follows it (ends with a colon, "… the following
    directories."), saying nothing before a clause that hands over."""
    return bool(INTRODUCES.search(text)) and _statement_before_handing_clause(text) is None


def _statement_before_handing_clause(text: str) -> str | None:
    """The statement a sentence makes before a clause handing over to what follows (see
    `_HANDING_CLAUSE`), when it is one of three words or more; else None."""
    match = _HANDING_CLAUSE.search(text)
    if match is None or len(text[:match.start()].split()) < 3:
        return None
    return text[:match.start()].rstrip()


# A label and one code span, nothing else: "Signature: `send_push_promise(path)`", "Default: `'http'`".
_LABELLED_CODE = re.compile(r"\s*[A-Za-z][\w ]{0,30}:\s*`[^`]+`\s*\.?\s*$")


def only_labels_code(text: str) -> bool:
    """Whether a sentence is only a label and a code span ("Signature: `send_push_promise(path)`"):
    a value for a question asking for one, nothing said for one asking what happens or why."""
    return bool(_LABELLED_CODE.match(text))


def _without_hand_over(text: str) -> str:
    """The text without the words handing over to what follows its colon ("… like so:", "For example:",
    "…, so the flow … would look like this:")."""
    return _statement_before_handing_clause(text) or _HANDS_OVER.sub("", text).rstrip()


def states_before_handing_over(text: str) -> bool:
    """Whether a unit ending in a colon makes a whole statement before it hands over ("For headers
    and cookies, the values are combined together. For example:"): closed, it still says that."""
    if _statement_before_handing_clause(text) is not None:
        return True
    statement = _without_hand_over(text)
    return statement != text.rstrip() and statement[-1:] in (".", "!", "?")


def only_hands_over(text: str) -> bool:
    """Whether a sentence says nothing but "here is an example" ("For example, to set headers on
    every request:"): without its example shown, it is no point and no lead."""
    return bool(_ONLY_HANDS_OVER.match(text))


# Words that tie a sentence to the one before it in its source ("However, …", "Alternatively, …") or
# to a part of it the reader does not see ("As described in the previous section, …"): quoted on its
# own, the tie points at nothing and the sentence is complete without it. Ties that carry meaning of
# their own ("Instead, …", "Otherwise, …", "Therefore, …") stay.
_TIED = re.compile(r"(?:however|alternatively|additionally|also|furthermore|moreover|finally|besides|"
                   r"nevertheless|nonetheless|in\s+addition|that\s+said"
                   r"|as\s+(?:described|mentioned|noted|shown|explained|discussed|seen|stated)\s+(?:above|below|earlier|"
                   r"before|previously|(?:in|on)\s+the\s+(?:previous|preceding|next|following|last)\s+"
                   r"(?:section|chapter|page|example|paragraph|step)))"
                   r",\s+(?=\S)", re.IGNORECASE)


# A list item's number ("2. sqlar.c — …", "7) Change …"): its place in a list the reader does not see.
_ORDINAL = re.compile(r"^\d{1,3}[.)]\s+(?=\S)")


# A closing pointer to another part of the source ("… or `'Strict'`. See security-cookie.", "See also
# [FILES]."): the reader has only the answer, where it points at nothing. Only after a statement of its
# own (a full stop), and before the citation that may follow it.
_POINTER = re.compile(r"(?<=\.)\s+(?:see(?:\s+also)?|refer\s+to)\s[^.!?]*[.!?](?=\s*(?:\[\d+\])?\s*$)", re.IGNORECASE)


def untied(text: str) -> str:
    """A sentence without what ties it to its place in the source: the word tying it to the previous
    sentence ("However, this can be enabled." → "This can be enabled."; a name keeps its case:
    "However, uv …" → "uv …"), its number in a list ("2. sqlar.c — …" → "sqlar.c — …") or a closing
    pointer elsewhere in the source ("… (recommended) or `'Strict'`. See security-cookie.").
    One opening with a lower-case word that is no name ("you can …", "for example, …") gets its capital."""
    text = _POINTER.sub("", _ORDINAL.sub("", text, count=1), count=1)
    tie = _TIED.match(text)
    rest = text if tie is None else text[tie.end():]
    # A list item going on from its lead-in ("you can enable …") starts a line of its own.
    first = re.match(r"[a-z]+\b", rest)
    if first and first.group() in STOPWORDS:
        return rest[0].upper() + rest[1:]
    # Its tie dropped, a sentence opens with what was its second word: "Moreover, entries older than
    # …" → "Entries older than …". A short word may be a name kept in lower case ("uv", "pip").
    word = re.match(r"[a-z]+(?=\s)", rest) if tie is not None else None
    if word and (everyday(word.group()) or (len(word.group()) >= 4 and english_word(word.group()))):
        return rest[0].upper() + rest[1:]
    return rest


def closed(text: str) -> str:
    """A sentence ending in a colon whose list or example is not shown, ended as a statement:
    "To disable this behavior, use the `--private` flag like so:" → "… use the `--private` flag."."""
    if not text.rstrip().endswith(":"):
        return text
    statement = _without_hand_over(text)
    if not statement or statement[-1] in ".!?":
        return statement or text
    return f"{statement}."


def fit_to_budget(units: Sequence[Unit], picked: Sequence[int], part_picks: Sequence[int],
                  code: int | None = None) -> tuple[list[int], dict[int, list[int]]]:
    """The picked prose units that make the answer (lead first), and under each the list items it
    introduces.

    A unit saying what an earlier one says is left out, and points stop at MAX_POINTS or the word
    budget (a part of a multi-part question is answered even past it). A sentence that introduces
    a list ("There are two event hooks:") brings the items after it, as many as the budget allows
    but at least one: the items carry the answer, and a reader should not be left at a colon. A
    point that introduces anything else ("For example, to set headers on every request:") and
    names no value of its own is left out unless what it introduces is the code example shown or it
    makes a statement before handing over ("… are combined together. For example:"), as is
    one introducing the list the lead is an item of (asked what bumping `dev` gives, the lead
    "`dev`: `1.0.0.dev0`" answers; the eight other segments after "Here are the supported segments:"
    do not). A list item that is no sentence comes under the sentence introducing its list
    (`lead_in`), which is chosen with it unless the lead is of that list (the lead's paragraph then
    quotes the lead-in)."""
    chosen: list[int] = []
    items: dict[int, list[int]] = {}
    words = 0
    shown_intro = code_intro(units, code)
    for index in dict.fromkeys(i for i in picked if not units[i].is_code):
        text = unit_text(units[index])
        if any(index in under for under in items.values()) or any(says_same(text, unit_text(units[j])) for j in chosen):
            continue
        size = len(text.split())
        if chosen and (len(chosen) > MAX_POINTS or (words + size > WORD_BUDGET and index not in part_picks)):
            continue
        introduces = bool(INTRODUCES.search(text))
        listed = introduced_items(units, index) if introduces else []
        if chosen and chosen[0] in listed:
            continue  # the list the lead was taken from: the lead is its answer, the rest of it is not
        lead_sentence = lead_in(units, index) if chosen else None
        if lead_sentence is not None and lead_sentence != chosen[0] and chosen[0] not in introduced_items(units, lead_sentence):
            # An item that is no sentence is shown under the sentence it completes, as the list shows it.
            if lead_sentence not in chosen:
                size += len(unit_text(units[lead_sentence]).split())
                if len(chosen) > MAX_POINTS or (words + size > WORD_BUDGET and index not in part_picks):
                    continue
                chosen.append(lead_sentence)
                items[lead_sentence] = []
            items[lead_sentence].append(index)
            words += size
            continue
        # Items of this list already chosen as points of their own are shown under it with the rest,
        # in the list's order: a table's rows are one list, not points around a list ("`H`: request
        # headers" beside "It accepts a string of characters …:" and its other rows).
        for item in listed:
            if item in chosen[1:] and not items.get(item):
                chosen.remove(item)
                items.pop(item, None)
                words -= len(unit_text(units[item]).split())
        under: list[int] = []
        for item in listed:
            item_size = len(unit_text(units[item]).split())
            if item in chosen:
                continue
            if under and words + size + item_size > WORD_BUDGET:
                break
            under.append(item)
            size += item_size
        if (chosen and introduces and not under and not new_values(text, "") and index != shown_intro
                and not states_before_handing_over(text)):
            continue  # "For example, to set headers on every request:" without its example says nothing
        chosen.append(index)
        items[index] = under
        words += size
    return chosen, items


def lead_paragraph(units: Sequence[Unit], lead: int, lead_text: str, answer_type: AnswerTypes,
                   shown: Callable[[Unit], str] = unit_text) -> tuple[str, set[int]]:
    """The answer's first paragraph and the units it quotes besides the lead (`shown`: how a unit
    reads when it opens the paragraph in the lead's place).

    One thought stays one paragraph, even when a part of it scored as a point: a lead that draws a
    consequence ("As such, we gate on `sys_platform` …") comes after its premise (the reason a
    why-question asks for) unless it holds the very value asked for, as does a lead whose subject
    is a pronoun ("This allows views to be defined with `async def`" after the sentence naming the
    extra to install), and a sentence that completes the lead ("This means that …") follows it. A
    lead that is a list item but no sentence comes after the sentence introducing its list, with the
    list's other items when all of them make one sentence with it (`list_sentence`)."""
    paragraph = f"{lead_text} [{units[lead].number}]"
    introduced_by = lead_in(units, lead)
    if introduced_by is not None:  # an item that is no sentence says nothing without the one it completes
        opening = f"{unit_text(units[introduced_by])} [{units[introduced_by].number}]"
        whole = list_sentence(units, introduced_by)
        if lead in whole:
            # The items are one sentence with the lead-in ("There are two approaches: manually escaping
            # each variable; or automatically escaping everything by default."): quoting one of them
            # would break it, and "two approaches" followed by one misleads. The name the lead was shown
            # under opens the thought, as for a premise.
            named = _shown_under(units[lead], lead_text)
            listed = " ".join(_ORDINAL.sub("", _in_list_sentence(units, i, whole), count=1) for i in whole)
            return f"{named}{opening} {listed} [{units[lead].number}]", {introduced_by, *whole}
        item = _ORDINAL.sub("", paragraph, count=1)  # "… two approaches: [1] automatically …", not "… [1] 2. automatically …"
        return f"{opening} {item}", {introduced_by}
    holds_value = bool(answer_type) and holds(answer_type, units[lead].text)
    if not holds_value and one_thought(units, lead - 1) and leans_back(units[lead].text):
        premise = units[lead - 1]
        # The name the lead is shown under ("`broken_intra_doc_links` - This lint detects …") now
        # opens the thought: the premise speaks of the same thing ("This lint warns by default.").
        named = _shown_under(units[lead], paragraph)
        # Else the premise opens the answer as a lead would: an API entry's first sentence under the
        # name it describes ("jinja2.DictLoader - Loads a template from a Python dict …" before "This
        # loader is useful for unittesting"), or the reader never learns which thing both speak of.
        opening = unit_text(premise) if named else shown(premise)
        return f"{named}{opening} [{premise.number}] {paragraph.removeprefix(named)}", {lead - 1}
    follow = completion(units, lead)
    if follow is not None:
        return f"{paragraph} {unit_text(units[follow])} [{units[follow].number}]", {follow}
    return paragraph, set()


def _shown_under(unit: Unit, text: str) -> str:
    """The "name - " prefix `text` shows `unit` under (the name of the thing it describes), or ""."""
    described = unit.described
    return f"{described} - " if described and text.startswith(f"{described} - ") else ""


def introduced_items(units: Sequence[Unit], index: int) -> list[int]:
    """The list items or table rows right after unit `index` in its passage (what it introduces)."""
    found: list[int] = []
    block = units[index].block
    for after in range(index + 1, len(units)):
        unit = units[after]
        if unit.number != units[index].number or unit.kind not in ("list_item", "table_row") or unit.block != block + 1:
            break
        found.append(after)
        block = unit.block
    return found


# An item going on to the next one in the same sentence: "manually escaping each variable; or".
_RUNS_ON_TO_NEXT_ITEM = re.compile(r"[;,]\s*(?:and|or)?\s*$")
_LIST_SENTENCE_ITEMS = 4  # a longer list is no sentence a reader takes in at once
_LIST_SENTENCE_WORDS = 45  # the items' words: with the lead-in, the lead stays within the answer's 60-word budget


def list_sentence(units: Sequence[Unit], intro: int) -> list[int]:
    """The items introduced by sentence `intro` when, with it, they make one sentence: every item but
    the last goes on to the next ("…; or", "…,") and the last does not; short enough to read whole.
    Else none."""
    items = introduced_items(units, intro)
    if not 2 <= len(items) <= _LIST_SENTENCE_ITEMS:
        return []
    texts = [_in_list_sentence(units, i, items) for i in items]
    if not all(_RUNS_ON_TO_NEXT_ITEM.search(text) for text in texts[:-1]) or _RUNS_ON_TO_NEXT_ITEM.search(texts[-1]):
        return []
    if sum(len(text.split()) for text in texts) > _LIST_SENTENCE_WORDS:
        return []
    return items


def _in_list_sentence(units: Sequence[Unit], item: int, items: Sequence[int]) -> str:
    """What item `item` of `items` says in the sentence they make with their lead-in: the last one
    ends it with its first sentence ("… or another tool can call `switch_context` to set the context
    explicitly."); what it goes on to say is another sentence ("The pytest plugin … uses this …")."""
    text = unit_text(units[item]).strip()
    return text_sentences(text)[0] if item == items[-1] and text else text


# Text ending like a statement (or handing over to more) is a sentence of its own.
_STATEMENT_END = re.compile(r"[.!?:;][\"')\]`*_]*\s*$")


def is_fragment(text: str) -> bool:
    """Whether text ends unlike a sentence ("Makes stubtest's output more concise, one line per
    error"): a list item or a description that completes something the reader must be shown."""
    return not _STATEMENT_END.search(text)


# A description that is a noun phrase though it ends in a full stop: "The server's hostname, which is
# used to confirm the hostname supplied by the SSL certificate." (under the heading `"sni_hostname"`). Its
# head — the words after the article, before a relative clause or the full stop — holds no verb that
# states anything ("The default is 5." does). Verbs are told only by the auxiliaries: "The client sends
# requests." passes too, which costs little, as only a line under a section titled by a name is ever
# shown under that name, and then it is about that thing.
# The phrase may go on with a clause describing the thing, set off by a comma or not ("The directory
# where Black should store its cache.").
_NOUN_PHRASE = re.compile(r"(?:The|A|An)\s+(?P<head>[^,;:.!?]{1,60}?)(?:,\s*(?:which|that|used|where|as)\b"
                          r"|\s+(?:which|that|where|whose|in\s+which|to\s+which)\s|\.\s*$)")
_STATING_VERB = re.compile(r"\b(?:is|are|was|were|be|been|has|have|had|can|could|will|would|may|might|must|should|"
                           r"shall|does|do|did)\b|n't\b", re.IGNORECASE)
_NOUN_PHRASE_WORDS = 5


# A switch described by the question it settles ("Whether to expire the session when the user closes
# their browser.", "Whether the report includes contexts."): the thing it switches is not named.
_WHETHER = re.compile(r"Whether\s+(?:to|or\s+not|the|a|an|this|it)\b")


def is_description(text: str) -> bool:
    """Whether text is a noun phrase describing a thing it does not name ("The server's hostname, which
    is used to …"), or the question a switch settles ("Whether to …"): a sentence by its full stop, it
    says what it is about only under that thing's name."""
    text = text.strip()
    if _WHETHER.match(text):
        return True
    match = _NOUN_PHRASE.match(text)
    return (match is not None and len(match["head"].split()) <= _NOUN_PHRASE_WORDS
            and not _STATING_VERB.search(match["head"]))


# An item opening with a lower-case word goes on from the sentence before its list ("There are two
# approaches:" — "automatically escaping everything by default."), unless that word is a name.
_LOWER_CASE_OPENING = re.compile(r"[a-z]+\b(?![.(/_-])")


def lead_in(units: Sequence[Unit], index: int) -> int | None:
    """The sentence introducing the list that unit `index` is an item of, when the item is no
    sentence but completes that one ("Starlette uses a thread pool in several scenarios to avoid
    blocking the event loop:" — "When running synchronous background tasks with `BackgroundTask`");
    else None. An item opening with a lower-case word goes on from that sentence as well. An item led
    by a name says what it is about and needs no lead-in."""
    item = units[index]
    opening = _LOWER_CASE_OPENING.match(_ORDINAL.sub("", item.text, count=1))
    if item.kind != "list_item" or item.label or not (is_fragment(item.text) or (opening and english_word(opening.group()))):
        return None
    first = index
    while (first > 0 and units[first - 1].kind == "list_item" and units[first - 1].number == item.number
           and units[first].block - units[first - 1].block in (0, 1)):
        first -= 1
    before = first - 1
    if (before < 0 or units[before].kind != "sentence" or units[before].number != item.number
            or units[before].block != units[first].block - 1 or not units[before].text.rstrip().endswith(":")):
        return None
    return before


def one_thought(units: Sequence[Unit], first: int) -> bool:
    """Whether units `first` and `first + 1` are sentences of one paragraph, short enough together
    to be quoted as one."""
    if first < 0 or first + 1 >= len(units):
        return False
    one, two = units[first], units[first + 1]
    return (one.kind == two.kind == "sentence" and one.number == two.number and one.block == two.block
            and len(one.text.split()) + len(two.text.split()) <= _LEAD_WORDS)


def leans_back(text: str) -> bool:
    """Whether a sentence says nothing without the one before it: it restates or completes it
    ("This means that …", see `_CONTINUES`) or its subject is a pronoun ("This allows views …")."""
    text = text.lstrip()
    return bool(_CONTINUES.match(text) or _LEANS_BACK.match(text))


# "If the script exits with this code, …" after "The special exit code 125 should be used when …":
# a sentence naming "this/these/those/such" thing the sentence before it names speaks of that one.
_THIS_THING = re.compile(r"\b(?:this|these|those|such)\s+([a-z][\w-]{2,})", re.IGNORECASE)


def refers_back(text: str, before: str) -> bool:
    """Whether a sentence says nothing without the one before it: it leans back (see `leans_back`),
    opens on the condition that one sets ("If not, …"), or speaks of "this code" where the sentence
    before names the code."""
    if leans_back(text) or _ON_THAT_CONDITION.match(text.lstrip()):
        return True
    said_before = vocabulary(before)
    return any(thing.casefold() not in STOPWORDS and present(fold(thing), said_before)
               for thing in _THIS_THING.findall(text))


def premise(units: Sequence[Unit], index: int, shown: set[int]) -> int | None:
    """The sentence a point leans on ("It replaces the `Flask.run` method in most cases." — what
    does?), to be quoted before it, when the answer does not show it already and the two are one
    short thought; else None."""
    before = index - 1
    if before in shown or not one_thought(units, before) or not refers_back(units[index].text, units[before].text):
        return None
    return before


def completion(units: Sequence[Unit], index: int) -> int | None:
    """The sentence right after sentence `index` in its paragraph when it completes that one's thought
    (see `_CONTINUES`, `_ON_THAT_CONDITION`) and the two stay short, else None."""
    if not one_thought(units, index):
        return None
    text = units[index + 1].text.lstrip()
    return index + 1 if _CONTINUES.match(text) or _ON_THAT_CONDITION.match(text) else None


def says_same(a: str, b: str) -> bool:
    """Whether two units say the same thing (one's content terms nearly all in the other)."""
    first, second = set(content_terms(a)), set(content_terms(b))
    if not first or not second:
        return a.strip() == b.strip()
    return len(first & second) / min(len(first), len(second)) >= _SAME
