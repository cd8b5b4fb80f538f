"""Prompt-injection defences for retrieved text: a document is data, never instructions to follow.

Retrieved text is data. Two principled checks, both done in code:

* `redact_instructions`: a sentence inside a passage that addresses the model ("ignore the previous
  instructions", "you are now ...", "reply only with ...") is not documentation content; it is
  replaced by a marker before the passage reaches a prompt, so the model never sees the payload.
* `scrub_answer`: an answer sentence is dropped when it carries a term whose *only* source in the
  evidence is such an instruction sentence (not the question, not any other document text). That
  is how a canary planted in an injected instruction is kept out of answers even if a model, or a
  passage we failed to redact, repeats it.
"""

from __future__ import annotations

from collections.abc import Sequence

from citeline.documents.suspicious import is_suspicious
from citeline.index.store import Passage
from citeline.text import content_terms, segments

REDACTED = "[instruction-like text removed by citeline]"

def is_instruction(sentence: str) -> bool:
    """Whether a sentence is addressed to an AI rather than to a reader (the same rules that
    flag passages at ingest, applied again to text that was stored without flags)."""
    return is_suspicious(sentence)


def redact_instructions(text: str) -> str:
    """The text with every instruction-like sentence replaced by a visible marker."""
    spans = [span for span in segments(text) if is_instruction(span.text)]
    if not spans:
        return text
    pieces, cursor = [], 0
    for span in spans:
        pieces.append(text[cursor : span.start])
        pieces.append(REDACTED)
        cursor = span.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def injected_terms(evidence: Sequence[Passage], question: str = "") -> set[str]:
    """Terms that occur in instruction-like sentences and nowhere else the answer could draw from."""
    inside: set[str] = set()
    outside: set[str] = set(content_terms(question))
    for passage in evidence:
        for span in segments(passage.text):
            (inside if is_instruction(span.text) else outside).update(content_terms(span.text))
        outside.update(content_terms(f"{passage.document_name} {passage.section or ''}"))
    return inside - outside


def scrub_answer(answer: str, evidence: Sequence[Passage], question: str = "") -> tuple[str, list[str]]:
    """(answer without sentences that repeat injected-only terms or are instructions, removed sentences).

    Sentences are split exactly as the validator splits them, so what is removed here is what the
    validator would have judged as one claim.
    """
    from citeline.agent.grounding import split_sentences

    suspicious = injected_terms(evidence, question)
    removed: list[tuple[int, int, str]] = []
    for text, start, end in split_sentences(answer):
        if set(content_terms(text)) & suspicious or is_instruction(text):
            removed.append((start, end, text))
    if not removed:
        return answer, []
    pieces, cursor = [], 0
    for start, end, _ in removed:
        pieces.append(answer[cursor:start])
        cursor = end
    pieces.append(answer[cursor:])
    lines = [" ".join(line.split()) for line in "".join(pieces).splitlines()]
    return "\n".join(line for line in lines if line).strip(), [text for _, _, text in removed]
