"""Every kind of bad file fails alone, with a precise reason, and never stops the batch."""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.documents.makers import circular_xref_pdf, docx_file, encrypted_pdf, pdf_bytes
from tests.ingest_support import CITELINE, cli_env, ingest_json

# Small caps so the bombs and the "too large" file stay small (the defaults are in config.py).
CAPS = {"CITELINE_MAX_DECOMPRESSED_BYTES": str(1024 * 1024), "CITELINE_MAX_PAGES": "10",
        "CITELINE_MAX_FILE_BYTES": "150000"}
GOOD = "# Good\n\nThis document is fine and must be indexed whatever happens around it.\n"


def build_bad_corpus(root: Path) -> dict[str, str]:
    """Write one good file and many bad ones; return {file name: expected error fragment}."""
    root.mkdir()
    (root / "good.md").write_text(GOOD, encoding="utf-8")
    (root / "encrypted.pdf").write_bytes(encrypted_pdf())
    whole = pdf_bytes(["Hello there, this is a page."] * 3)
    (root / "truncated.pdf").write_bytes(whole[: len(whole) // 3])
    (root / "circular.pdf").write_bytes(circular_xref_pdf())
    bomb_stream = b"BT /F1 12 Tf 72 720 Td (x) Tj ET\n" + b" " * (3 * 1024 * 1024)
    (root / "bomb.pdf").write_bytes(pdf_bytes(["x"], compress=True, raw_streams=[bomb_stream]))
    (root / "many-pages.pdf").write_bytes(pdf_bytes([f"page {n}" for n in range(12)]))
    source = docx_file(root / "tmp-source.docx", [("p", "hello")])
    buffer = io.BytesIO()
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bomb:
        for item in original.infolist():
            bomb.writestr(item, original.read(item))
        bomb.writestr("word/media/padding.bin", b"\0" * (3 * 1024 * 1024))
    source.unlink()
    (root / "bomb.docx").write_bytes(buffer.getvalue())
    (root / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    undetectable = bytes([0x80, 0x81, 0xFE, 0xFF, 0x90, 0x8D]) * 50 + bytes(range(1, 32)) * 10
    (root / "latin.txt").write_bytes(undetectable)
    (root / "empty.md").write_bytes(b"")
    (root / "blank.txt").write_bytes(b"  \n\n\t ")
    (root / "huge.txt").write_bytes(b"word " * 40_000)
    (root / "dangling.md").symlink_to(root / "does-not-exist.md")
    os.mkfifo(root / "pipe.md")
    return {
        "encrypted.pdf": "encrypted.pdf: is password-protected",
        "truncated.pdf": "truncated.pdf: is a damaged or malformed PDF: looks truncated",
        "circular.pdf": "circular.pdf: is a damaged or malformed PDF: has a circular cross-reference chain",
        "bomb.pdf": "bomb.pdf: decompresses to more than 1,048,576 bytes (possible decompression bomb",
        "many-pages.pdf": "many-pages.pdf: has 12 pages (limit 10)",
        "bomb.docx": "bomb.docx: decompresses to 3,9",  # + the template parts
        "image.md": "image.md: is a binary file (a PNG image), not text",
        "latin.txt": "latin.txt: not valid UTF-8 (invalid byte at offset 0) and its encoding could not be "
                     "detected: convert the file to UTF-8",
        "huge.txt": "huge.txt: 200,000 bytes is over the 150,000-byte limit",
        "dangling.md": "dangling.md: broken symbolic link",
        "pipe.md": "pipe.md: is not a regular file",
    }


def test_each_bad_file_fails_precisely_and_the_good_one_is_indexed(tmp_path: Path, home: Path) -> None:
    expected = build_bad_corpus(tmp_path / "docs")
    code, report = ingest_json(str(tmp_path / "docs"), home=home, **CAPS)
    assert code == 1
    assert report["ingested"] == 1
    errors = {Path(f["path"]).name: f["error"] for f in report["failed"]}
    assert set(errors) == set(expected)
    # Empty files hold no text of their own: under a folder they are left out, not failed.
    skipped = {Path(s["path"]).name: s["reason"] for s in report["skipped"]}
    assert skipped == {"empty.md": "the file is empty: add content or exclude it",
                       "blank.txt": "the file is empty: add content or exclude it"}
    for name, fragment in expected.items():
        assert fragment in errors[name], (name, errors[name])
        assert ": " in errors[name].split(fragment, 1)[1] or "(" in errors[name], f"{name}: no fix given"


def test_human_output_lists_each_failure_and_exits_non_zero(tmp_path: Path, home: Path) -> None:
    expected = build_bad_corpus(tmp_path / "docs")
    proc = subprocess.run([CITELINE, "ingest", str(tmp_path / "docs")], capture_output=True, text=True,
                          env=cli_env(home, **CAPS), timeout=120, check=False)
    assert proc.returncode == 1
    assert f"{len(expected)} file(s) could not be ingested" in proc.stderr
    for name in expected:
        assert name in proc.stderr


def test_a_50_mb_single_line_is_refused_fast_and_small(tmp_path: Path, home: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text(GOOD, encoding="utf-8")
    with (docs / "oneline.txt").open("wb") as handle:
        block = b"abcdefgh " * (1024 * 1024 // 9)
        while handle.tell() < 50 * 1024 * 1024 - len(block):
            handle.write(block)
    size = (docs / "oneline.txt").stat().st_size
    assert 45 * 1024 * 1024 < size <= 50 * 1024 * 1024
    proc = subprocess.Popen([CITELINE, "ingest", "--json", str(docs)], env=cli_env(home),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)  # it ends on its own: the line cap refuses the file
    assert proc.stdout is not None
    report = json.loads(proc.stdout.read())
    assert os.waitstatus_to_exitcode(status) == 1
    assert report["ingested"] == 1
    [failure] = report["failed"]
    assert "oneline.txt: line 1 is" in failure["error"] and "CITELINE_MAX_LINE_CHARS" in failure["error"]
    # ru_maxrss is in KiB on Linux (the CLI and the parse workers it waited for). Measured 0.95 GiB
    # on a fresh clone but 208 MiB in a long-used checkout (cause not isolated): bounded well below
    # "blowing memory"; reducing it is open work.
    assert usage.ru_maxrss < 1536 * 1024, usage.ru_maxrss
    assert resource.RLIMIT_AS  # the worker itself runs under RLIMIT_AS (see test_parse_worker)


def _drop_root_file_powers() -> None:
    """In the child, before exec: drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the bounding
    set, so even uid 0 is bound by file permissions after exec (PR_CAPBSET_DROP = 24)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def test_unreadable_file_is_reported(tmp_path: Path, home: Path) -> None:
    """chmod 000 does not stop root: when the tests run as root, the CLI runs as root without the
    capabilities that bypass file permissions, which is what a normal user is."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text(GOOD, encoding="utf-8")
    secret = docs / "secret.md"
    secret.write_text("# Secret\n\nno\n", encoding="utf-8")
    secret.chmod(0o000)
    try:
        preexec = _drop_root_file_powers if os.geteuid() == 0 else None
        if preexec is not None:
            probe = subprocess.run(["cat", str(secret)], preexec_fn=preexec, capture_output=True, check=False)
            if probe.returncode == 0:
                pytest.skip("cannot make a file unreadable: root keeps file powers after PR_CAPBSET_DROP")
        proc = subprocess.run([CITELINE, "ingest", "--json", str(docs)], capture_output=True, text=True,
                              env=cli_env(home), timeout=120, check=False, preexec_fn=preexec)
        assert proc.stdout, proc.stderr
        report = json.loads(proc.stdout)
        assert proc.returncode == 1
        assert report["ingested"] == 1
        assert report["failed"] == [{"path": str(secret), "error":
                                     "secret.md: permission denied: make it readable for this user, "
                                     "e.g. `chmod a+r FILE`"}]
    finally:
        secret.chmod(0o644)
