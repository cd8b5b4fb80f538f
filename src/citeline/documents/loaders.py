"""What every loader shares: decoding, sanitising, checking line lengths and refusing a page made
only of includes (the plain-text loader is `text_loader`)."""

from __future__ import annotations

import re
from pathlib import Path

from citeline.documents.models import LoadedDocument
from citeline.errors import IngestError, NoTextOfItsOwn

# Bidi overrides/isolates, zero-width characters and Unicode tag characters are invisible to a
# reader but not to a model: a known prompt-smuggling channel, so they never reach the index.
# C0/C1 control characters (except tab and newlines) go too: they can rewrite a terminal line
# when a passage is printed (ESC sequences) and carry nothing a reader can see.
_INVISIBLE = re.compile(
    "[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u061c\u180e"
    "\U000e0000-\U000e007f\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]"
)


def sanitize(text: str) -> tuple[str, int]:
    """Remove invisible control characters; return the clean text and how many were removed."""
    cleaned, count = _INVISIBLE.subn("", text)
    # Line ends are normalised (not counted): offsets then mean the same on every platform.
    cleaned = cleaned.replace("\r\n", "\n").replace("\r", "\n").replace("\x0c", "\n")
    return cleaned, count


def refuse_only_includes(name: str, document: LoadedDocument, included: list[str], *,
                          how: tuple[str, str] = ("includes", "included")) -> None:
    """Refuse a page made only of includes of other files (a heading at most): the site generator
    fills it in when the site is built, and citeline does not follow includes (one may name any file
    on the machine), so it holds no text of its own. The user is told what it includes, where a
    bare "no text" would send them looking for an encoding or extraction fault. `how` says how the
    page brings the others in, as a verb and its participle (an HTML frameset "frames" them)."""
    if included and all(block.kind == "heading" for block in document.blocks):
        raise NoTextOfItsOwn(f"{name}: only {how[0]} other files ({', '.join(dict.fromkeys(included))}), "
                             "which are not followed", hint=f"ingest the {how[1]} files themselves")


# Signatures of binary formats people commonly misname: the error can then say what the file is.
_MAGIC = (
    (b"%PDF-", "a PDF", ".pdf"),
    (b"PK\x03\x04", "a ZIP archive (DOCX, XLSX, ...)", ".docx or .zip"),
    (b"\x89PNG", "a PNG image", ".png"),
    (b"\xff\xd8\xff", "a JPEG image", ".jpg"),
    (b"GIF8", "a GIF image", ".gif"),
    (b"\x1f\x8b", "gzip-compressed data", ".gz"),
    (b"\x7fELF", "an executable", "(not a document)"),
    (b"SQLite format 3", "an SQLite database", "(not a document)"),
)


_MIN_DETECT_BYTES = 64


def decode_text(data: bytes, path: Path) -> str:
    """Bytes to text: UTF-8, else a detected legacy encoding; binaries refused with the reason."""
    for magic, what, suffix in _MAGIC:
        if data.startswith(magic):
            raise IngestError(
                f"{path.name}: is a binary file ({what}), not text", hint=f"rename it to {suffix} or exclude it"
            )
    if b"\x00" in data[:8192]:
        raise IngestError(
            f"{path.name}: looks like a binary file (NUL bytes), not text",
            hint="exclude it with --exclude, or convert it to text first",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return _decode_legacy(data, path, exc)


def _decode_legacy(data: bytes, path: Path, error: UnicodeDecodeError) -> str:
    # charset-normalizer judges candidate encodings by how "messy" the decoded text looks and
    # samples large inputs, so the cost is bounded; it returns nothing for binary data. Below a
    # minimum size there is too little text to tell code pages apart, and a wrong guess would
    # silently index mojibake: those files fail with the fix instead.
    from charset_normalizer import from_bytes

    matches = [] if len(data) < _MIN_DETECT_BYTES else list(from_bytes(data))
    best = matches[0] if matches else None
    # Ties between single-byte code pages are common on short Western text (cp1250 vs cp1252
    # decode "crème" equally cleanly as far as the detector can tell): prefer Windows-1252,
    # by far the most common legacy encoding, only when it scores at least as well.
    for match in matches:
        if best is not None and match.encoding == "cp1252" and match.chaos <= best.chaos \
                and match.coherence >= best.coherence:
            best = match
    if best is not None and best.encoding not in {"utf_8", "ascii"}:
        try:
            return data.decode(best.encoding)
        except (UnicodeDecodeError, LookupError):
            pass
    raise IngestError(
        f"{path.name}: not valid UTF-8 (invalid byte at offset {error.start}) and its encoding "
        "could not be detected",
        hint="convert the file to UTF-8, e.g. `iconv -f CP1252 -t UTF-8 FILE`",
    ) from error
