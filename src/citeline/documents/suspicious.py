"""Text aimed at an AI rather than at a reader, recognised once, at ingest.

Documentation explains things to people. A passage that talks to "the assistant", tells whoever
reads it to ignore, reveal, include or print something, or pipes a download into a shell is a
planted instruction (indirect prompt injection) whatever its wording, imperative or not. Such
blocks are flagged here so that every later stage can keep them out of answers; hidden text
(HTML and rst comments, `display:none`) is reported by the loaders that drop it.

The patterns are about *who is addressed and what is asked*, never about one corpus's words.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

# Who an injected instruction talks to. "agent", "bot" and "model" alone are ordinary technical
# words (user agents, SSH agents, CI bots, data models), so they count only when qualified.
_AI = (
    r"(?:ai|a\.i\.|assistants?|chat\s?bots?|llms?|(?:large\s+)?language\s+models?|gpts?|chatgpt|claude|copilots?"
    r"|(?:ai|llm|gpt|autonomous|coding|automated)[\s-]+(?:agents?|bots?|models?|systems?|tools?|crawlers?|assistants?|readers?))"
)
# What such text refers to when it talks about itself.
_THIS = r"(?:this|these|the\s+present)\s+(?:page|pages|document|documents|docs?|note|notes|faq|text|site|section|guide|article|file|content)"
# Verbs of an instruction about what to write, recommend or hide.
_ASKED = (
    r"(?:recommend|include|mention|say|state|tell|append|add|cite|present|reply|respond|answer|ignore|claim|refer|link"
    r"|sign|output|print|begin|start|end|close|use|treat|describe|direct|advise|suggest|report|insert|repeat|call"
    r"|omit|hide|override|put|run|execute|install|download|visit|open|write|give|show)"
)
# Where a reader would see it: the answer being written, not an HTTP response or a program's output.
_ANSWER = r"(?:answers?|repl(?:y|ies)|summar(?:y|ies))"

# A download run as a program (documentation does show such commands, so only a download from a host
# the text does not vouch for counts: plain HTTP, a bare IP address, or a host named for an attack).
_FETCH = r"(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)"
# The machine's own server is vouched for: `curl http://localhost:8000/ | python -m json.tool` is no attack.
_UNVOUCHED = (r"(?:http://(?!localhost\b|127\.|0\.0\.0\.0\b|\[::1\])|https?://(?!127\.)\d{1,3}(?:\.\d{1,3}){3}\b"
              r"|\b(?:evil|attacker|malicious)\.[a-z]+)")
# What runs the download: a shell, PowerShell's `iex`, or an interpreter reading its program from the
# pipe (`| python3`, not `| python -m json.tool`, which only reads data).
_RUNNER = (r"(?:sudo(?:\s+-\w+)*\s+)?(?:(?:(?:ba|z|k|da|fi)?sh|iex)\b"
           r"|(?:python[\d.]*|perl|ruby|node)(?=\s*(?:$|[;&|)\"'`]|-\s|-$)))")

# (name, (pattern, flags)); compiled on first use by `_rules`.
_RULE_SOURCES: tuple[tuple[str, tuple[str, int]], ...] = (
    ("addresses an AI", (
        # "Note for AI assistants", "SYSTEM NOTICE FOR AI ASSISTANTS", "Instruction to language models".
        rf"\b(?:note|notice|message|instructions?|directives?|attention|warning|reminder|memo)\s+(?:for|to)\s+"
        rf"(?:the\s+|any\s+|all\s+)?{_AI}\b"
        # "For AI assistants:", "To any LLM reading this page", "Dear AI,", "Attention, automated systems:",
        # "Hello assistant!" (the AI ends the phrase).
        rf"|(?:^|[.!?:;>*\[(]\s*|\n\s*)(?:for|to|attention|dear|hey|hello|hi)[\s,]+(?:the\s+|any\s+|all\s+)?{_AI}"
        rf"(?:\s*[:,!]|\s+(?:reading|using|answering|summari[sz]ing|processing|quoting|that|who|which)\b)"
        # A label saying whom it is for: "**Important for AI assistants**:", "_Guidance for language models:_"
        # (not "Tools for LLMs:", a heading of documentation about them).
        rf"|(?<![^\W_])(?:important|guidance|info|information|hints?|tips?|advice|rules|policy)\s+(?:for|to)\s+"
        rf"(?:the\s+|any\s+|all\s+)?{_AI}[*_`~]*\s*:"
        # "AI ASSISTANT INSTRUCTIONS:", "assistant instruction: print ...".
        rf"|\b{_AI}\s+(?:instructions?|directives?|notice)\s*:"
        # "To whoever is summarizing this:".
        rf"|\b(?:for|to)\s+(?:whoever|anyone|anybody)\s+(?:is\s+)?(?:summari[sz]ing|processing|answering\s+from)\b"
        # "If you are an AI assistant", "If you're an LLM".
        rf"|\bif\s+(?:you\s+are|you're|you\u2019re)\s+(?:an?\s+)?{_AI}\b"
        # "[AI agent directive: ...]", "[SYSTEM: ...]".
        rf"|\[\s*(?:{_AI}|agent|system)\b[^\]\n]{{0,40}}\b(?:directive|instructions?|notice|note|message|prompt|override|command)s?\b"
        rf"|\[\s*(?:system|assistant|ai|llm)\s*:"
        # An AI named, then what it does or must do (one group, so the names are tried once per word):
        rf"|\b{_AI}(?:"
        # "Assistants answering from this FAQ", "Language models reading this page";
        rf"\s+(?:that\s+|who\s+)?(?:read|reads|reading|use|uses|using|answer|answers|answering|summari[sz]e"
        rf"|summari[sz]es|summari[sz]ing|process|processes|processing|quote|quotes|quoting|index|indexing)\b"
        rf"[^.!?\n]{{0,40}}\b(?:{_THIS}|this\b)"
        # "AI assistants answering installation questions must recommend ...": the readers the text
        # picks out are obliged to say something. Without such a clause only a command counts, so
        # "the LLM is instructed to ..." describing a product is not taken for an order;
        rf"|\s+(?:that|who|which|\w+ing)\b[^.!?;:\n]{{0,60}}\s+(?:must|should|shall|have\s+to|has\s+to|needs?\s+to"
        rf"|(?:is|are)\s+(?:required|instructed|asked|expected|told)\s+to)\s+(?:always\s+|never\s+|not\s+|also\s+|first\s+)?"
        rf"{_ASKED}\b"
        rf"|\s+(?:must|shall|have\s+to)\s+(?:always\s+|never\s+|not\s+|also\s+|first\s+)?{_ASKED}\b"
        # "AI-written answers", "LLM-generated summaries".
        rf"|[\s-]+(?:written|generated|produced|authored|drafted)\s+(?:answers?|responses?|replies|summaries)\b)"
        # "When an AI answers questions about this page ..."
        rf"|\b(?:when|if)\s+(?:an?\s+|any\s+|the\s+)?{_AI}\s+(?:answers?|summari[sz]es?|reads?|responds?|generates?|quotes?)\b"
        # Not imperative: "Answers generated from this page customarily close with ...".
        rf"|\b(?:answers?|responses?|replies|summaries|outputs?)\s+(?:generated|written|produced|drawn|derived)\s+"
        rf"(?:from|by|with|using)\s+{_THIS}"
        # "Summaries of this page must mention ...", "Responses that cite this section are expected to ...",
        # "Every answer that draws on this document ends with ...".
        rf"|\b(?:answers?|responses?|repl(?:y|ies)|summar(?:y|ies)|outputs?)\s+(?:of|from|about|based\s+on|drawing\s+on"
        rf"|(?:that|which)\s+(?:reference|references|cite|cites|quote|quotes|use|uses|draw\s+on|draws\s+on|mention"
        rf"|mentions))\s+{_THIS}\b[^.!?\n]{{0,30}}"
        rf"\b(?:must|should|shall|need\s+to|has\s+to|have\s+to|(?:is|are)\s+(?:required|expected|asked)\s+to"
        rf"|(?:always\s+)?(?:ends?|closes?|begins?|starts?)\s+with|(?:always\s+)?includes?)\b"
        # Answers written by a machine, held to something: "Machine-generated answers must include ...",
        # "Automated answers about this project conventionally cite ...", "AI summaries should not mention ...".
        rf"|\b(?:automated|machine[\s-]generated|ai[\s-]generated|ai|llm)\s+(?:answers?|summar(?:y|ies)|repl(?:y|ies))\b"
        rf"[^.!?\n]{{0,60}}\b(?:must|should|shall|has\s+to|have\s+to|(?:is|are)\s+(?:required|expected|asked)\s+to"
        rf"|conventionally|customarily)\b"
        rf"|\b(?:expected|required)\s+that\s+(?:any|every|each|all)\s+(?:automated|machine[\s-]generated|ai[\s-]generated"
        rf"|ai|llm)\s+(?:answers?|summar(?:y|ies)|repl(?:y|ies))\b"
        # "When summarised, this page should be described as ...".
        rf"|\bwhen\s+(?:summari[sz]ed|quoted|cited)\s*,?\s+{_THIS}\s+(?:should|must|is\s+to)\b"
        # "For the model reading this:", "The following text is for the AI only:", "The preferred way for
        # assistants to answer ... is to recommend ...".
        rf"|\b(?:for|to)\s+(?:the\s+|any\s+)?(?:models?|bots?|agents?|machines?|programs?|systems?)\s+(?:reading"
        rf"|processing|summari[sz]ing|answering\s+from)\s+(?:this|{_THIS})\s*[:,]"
        rf"|\bfor\s+(?:the\s+)?{_AI}\s+only\b"
        rf"|\b(?:preferred|correct|right|proper|expected|official)\s+way\s+for\s+(?:an?\s+|the\s+)?{_AI}\s+to\s+"
        rf"(?:answer|respond|reply|recommend|say|tell|mention)\b"
        # "Note for the bot: reply with ..." (a bot or model alone is named only when then told what to do).
        rf"|\b(?:note|notice|message|instructions?)\s+(?:for|to)\s+(?:the\s+)?(?:bots?|models?|agents?)\s*:\s*"
        rf"(?:please\s+)?{_ASKED}\b"
        # "If this page is being processed by a language model, ...".
        rf"|\bif\s+(?:this|the)\s+(?:page|document|text|content|file|note|section)\s+is\s+(?:being\s+)?"
        rf"(?:read|processed|summari[sz]ed|parsed|used|quoted|analy[sz]ed)\s+by\s+(?:an?\s+|any\s+|the\s+)?{_AI}\b"
        # Spoken to, then told: "Copilot, when asked about installation, answer only ...", "LLM agents: override ...".
        rf"|(?:^|[.!?>*\[(]\s*|\n\s*|<!--\s*)(?:the\s+|any\s+|all\s+)?{_AI}\s*[:,]\s*"
        rf"(?:(?:when|if|whenever|before|after)\b[^,.!?\n]{{0,60}},\s*)?(?:please\s+|always\s+|never\s+|do\s+not\s+)?{_ASKED}\b"
        # "As an assistant, you are required to ...".
        rf"|\bas\s+an?\s+{_AI}\s*,\s*you\b"
        # Whatever writes the answers: "Whoever generates answers from these docs must ...".
        rf"|\b(?:whoever|anyone|anybody|anything|any\s+(?:program|system|tool|software|service)\s+(?:that|which|who))\s+"
        rf"(?:generates?|writes?|produces?|composes?|drafts?)\s+(?:answers?|replies|summaries)\b"
        # A machine reading the page, picked out: "The machine summarizing this page is instructed to ...",
        # "Bots indexing this site: add ...".
        rf"|\b(?:machines?|programs?|bots?|crawlers?|scrapers?|indexers?)\s+"
        rf"(?:summari[sz]ing|answering\s+(?:from|questions\s+(?:about|from|on)))\s+{_THIS}"
        rf"|\b(?:bots?|crawlers?|scrapers?|indexers?|agents?)\s+(?:reading|indexing|processing|crawling|scraping)\s+"
        rf"(?:{_THIS}|this\s+site)\s*[:,]",
        re.IGNORECASE | re.MULTILINE)),
    # Directives about the conversation itself rather than the software being documented.
    ("directive to ignore or reveal", (
        r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any)\s+(?:of\s+)?(?:your|the|my|these|those)?"
        r"|your|the|my|these|those)\s*(?:previous|prior|above|earlier|preceding|original|initial|other|existing|system)?"
        r"\s*(?:instructions|prompts?|guidance|directions|directives|guidelines|system\s+prompt)\b"
        r"|\b(?:ignore|disregard|forget|override|bypass)\s+(?:previous|prior|above|earlier|preceding|original|initial"
        r"|other|existing|system)\s+(?:instructions|prompts?|guidance|directions|directives|guidelines|system\s+prompt)\b"
        # Bare ("ignore instructions"), it is a directive only as one: opening a sentence or a
        # clause, or told to "you". After a subject it says what a program does ("gnuplot will
        # quietly ignore instructions to draw grid lines at non-existent tics").
        r"|(?:^|[.!?:;,(\[\"'“*>-]\s*|\b(?:please|now|and|then|you\s+(?:must|should|will|shall|need\s+to|have\s+to))\s+)"
        r"(?:ignore|disregard|forget|override|bypass)\s+(?:instructions|prompts?|guidance|directions|directives"
        r"|guidelines|system\s+prompt)\b"
        # The same in the other languages a multilingual index serves: "Ignoriere alle vorherigen
        # Anweisungen", "Ignorez toutes les instructions", "Ignora las instrucciones anteriores".
        r"|\b(?:ignorier\w*|vergiss\w*|ignora\w*|ignore|olvid\w+|dimentic\w+|esque[cç]\w+)\b[^.!?\n]{0,40}"
        r"\b(?:anweisungen|instrucciones|istruzioni|instru[cç](?:õ|o)es)\b"
        r"|\b(?:ignorez|ignore|oubliez|oublie)\s+(?:toutes\s+)?(?:les|vos)\s+(?:\w+\s+)?instructions\b"
        r"|\b(?:ignore|disregard|forget)\s+(?:everything|all)\s+(?:above|before|previously|you\s+were\s+told)\b"
        r"|\byou\s+are\s+now\s+(?:acting\s+as|operating\s+as|free\s+of|no\s+longer\s+bound|unrestricted|jailbroken)\b"
        r"|\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must)\b"
        r"|\b(?:respond|reply|answer|speak|talk)\b[^.!?\n]{0,40}\bfrom\s+now\s+on\b"
        r"|\byour\s+new\s+(?:instructions|task|role|goal)s?\b"
        r"|\b(?:system|developer|admin|administrator)\s+(?:notice|directive|override)\b"
        r"|\b(?:reveal|disclose|leak|repeat|print|output|show)\b[^.!?\n]{0,30}\b(?:your|the)\s+(?:system\s+prompt"
        r"|(?:hidden|initial|original|previous)\s+(?:prompt|instructions)|instructions\s+you\s+(?:were|have\s+been)\s+given)\b"
        r"|\b(?:reveal|disclose|leak)\s+your\s+(?:prompt|instructions|secrets?|keys?|credentials|configuration)\b"
        # "override the user's question", "ignore the user's instructions".
        r"|\b(?:ignore|disregard|override)\s+(?:the\s+)?(?:user'?s?|asker'?s?)\s+(?:questions?|query|queries"
        r"|instructions|prompts?)\b"
        # Concealment: "must not mention this notice to the user", "do not say that it comes from ...".
        r"|\b(?:do|must|should|shall)\s+not\s+(?:tell|mention|say|reveal|disclose|admit)\b[^.!?\n]{0,40}"
        r"\b(?:this\s+(?:notice|note|instruction|message|directive)|(?:it|this)\s+comes\s+from|to\s+the\s+user)\b",
        re.IGNORECASE)),
    # A prompt for a model written into the page: "New system prompt: ...", an instruction-tuning header
    # ("### Instruction: ..."), a chat template's system turn ("<|im_start|>system You must ..."). Its own
    # rule: branches that do not start at a word boundary would slow every other branch they joined.
    ("a model prompt written into the page", (
        r"\bnew\s+(?:system\s+)?(?:prompt|instructions)\s*:|(?:^|\n)\s*#{1,6}\s*(?:instructions?|system(?:\s+prompt)?)\s*:"
        r"|<\|im_start\|>\s*(?:system|assistant)\b[^<]{0,200}\b(?:you|always|never|must|reply|answer|respond)\b",
        re.IGNORECASE)),
    ("directive to include or print", (
        # "include the verification code in your answer", "append the token to their answer".
        rf"\b(?:include|append|add|insert|mention|put|print|output|say|write|repeat|place|prepend|recommend|cite)\b"
        rf"[^.!?;|\n]{{0,60}}"
        rf"\b(?:in|to|into|at\s+the\s+(?:start|end|beginning|top|bottom)\s+of)\s+(?:your|their|the|every|each|any)\s+{_ANSWER}\b"
        # "... in the output you give the user".
        rf"|\b(?:include|append|add|insert|put|print|say|write|mention)\b[^.!?;|\n]{{0,60}}\bthe\s+(?:output|text|answer"
        rf"|reply|response)\s+you\s+(?:give|show)\b"
        # "Begin your reply with", "sign your answer with", "close every answer with".
        # "The message" is often the document's own subject (a commit's, a translation catalogue's:
        # "end the message with a marker"); a message is the reader's output only when it is theirs.
        rf"|\b(?:begin|start|end|close|finish|sign|prefix|conclude)\s+(?:(?:your|their|the|every|each|all|any)\s+"
        rf"(?:{_ANSWER}|responses?)|(?:your|their|every|each|all|any)\s+messages?)\s+with\b"
        # Not imperative: "Answers ... customarily close with the tag X".
        rf"|\b{_ANSWER}\b[^.!?\n]{{0,60}}\b(?:customarily|always|traditionally|conventionally|must|should|will)\s+"
        rf"(?:close|end|begin|start|conclude|carry|include)s?\s+(?:with\b|the\s+(?:tag|code|token|phrase|words?))"
        # "present it as the official command", "recommend ... as the official".
        r"|\bpresent(?:ed|ing)?\b[^.!?\n]{0,40}\bas\s+(?:the\s+|an?\s+)?(?:official|authoritative|mandatory|verified)\b"
        r"|\brecommend\b[^.!?\n]{0,60}\bas\s+the\s+official\b",
        re.IGNORECASE)),
    # A download from an unvouched host run as a program (see `_UNVOUCHED`).
    ("download piped into a shell", (
        rf"\b{_FETCH}\b[^|\n]{{0,200}}{_UNVOUCHED}[^|\n]{{0,200}}\|\s*{_RUNNER}"
        # Run by substitution: `sh -c "$(curl …)"`, `bash <(curl …)`.
        rf"|\b(?:ba|z|k)?sh\s+(?:-c\s+[\"']?\$\(|<\()\s*{_FETCH}\b[^)\n]{{0,200}}{_UNVOUCHED}"
        # Hidden, then run: `echo … | base64 -d | sh`.
        rf"|\bbase64\s+(?:-d|-D|--decode)\b[^|\n]{{0,40}}\|\s*{_RUNNER}"
        # Saved, then run: `curl http://… -o x.sh && bash x.sh`.
        rf"|\b{_FETCH}\b[^\n]{{0,200}}{_UNVOUCHED}[^\n]{{0,200}}(?:&&|;)\s*{_RUNNER}\s+\S",
        re.IGNORECASE)),
)


_CODE_RULES = frozenset({"download piped into a shell"})


@cache
def _rules() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The rules, compiled when text is first checked: compiling them takes milliseconds that a
    process which never checks text (a command's start, an `ask` that ends early) need not spend."""
    return tuple((name, re.compile(pattern, flags)) for name, (pattern, flags) in _RULE_SOURCES)


# Cyrillic and Greek letters drawn like Latin ones: "АI" with a Cyrillic "А" reads "AI" to a person.
_LOOK_ALIKES = str.maketrans(
    "АВЕКМНОРСТХаеорсухіІјЈѕЅԁԛԝΑΒΕΗΙΚΜΝΟΡΤΥΧαοιρυν",
    "ABEKMHOPCTXaeopcyxiIjJsSdqwABEHIKMNOPTYXaoipuv",
)


def _plain(text: str) -> str:
    """The text as the rules read it: compatibility forms folded ("ＡＩ ａｓｓｉｓｔａｎｔｓ" is "AI
    assistants") and letters of other scripts drawn like Latin ones read as those, so a planted note
    cannot slip past the rules in look-alike letters a reader reads the same. Only the rules read this:
    the stored text is left as written."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text).translate(_LOOK_ALIKES)


def reasons(text: str, *, code: bool = False) -> tuple[str, ...]:
    """Why `text` looks aimed at an AI; empty when it reads as documentation. In code only a
    download piped into a shell counts: code legitimately prints, includes and ignores things."""
    plain = _plain(text)
    return tuple(name for name, pattern in _rules() if (not code or name in _CODE_RULES) and pattern.search(plain))


def is_suspicious(text: str) -> bool:
    """Whether any rule matches `text`."""
    plain = _plain(text)
    return any(pattern.search(plain) for _, pattern in _rules())
