"""The web page in a real headless Chromium against a live `citeline serve` with a real index:
sign in, upload, ask and watch the stream, open a citation's passage, the trace, declines,
cancelling, sessions, deleting documents, documents that carry scripts, and user isolation.
Each main view is saved to docs/screenshots/."""

from __future__ import annotations

import re
import time
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.web.conftest import PHONE, Server, Watch, ask, open_page, screenshot, sign_in


def test_sign_in_keeps_the_key_in_session_storage_only(page: Page, server: Server) -> None:
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    screenshot(page, "sign-in")
    page.get_by_label("API key").fill("cl_not-a-key-of-this-service")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#signin-error")).to_contain_text("not known to this service")
    expect(page.locator("#view-ask")).to_be_hidden()

    sign_in(page, server, "carol")
    expect(page.locator("#ask-button")).to_be_visible()
    assert page.evaluate("sessionStorage.getItem('citeline.apiKey')") == server.keys["carol"]
    assert page.evaluate("localStorage.length") == 0
    assert page.context.cookies() == []
    assert server.keys["carol"] not in page.url
    assert page.locator("#api-key").input_value() == ""  # not left in the form either
    page.reload()  # the same tab stays signed in
    expect(page.locator("#view-ask")).to_be_visible()
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    assert page.evaluate("sessionStorage.length") == 0
    assert server.keys["carol"] not in server.log.read_text(errors="replace")


def test_upload_several_files_with_progress_errors_and_delete(page: Page, server: Server, tmp_path: Path) -> None:
    sign_in(page, server, "carol")
    page.locator("#nav").get_by_role("button", name="Documents").click()
    expect(page.locator("#documents-empty")).to_be_visible()
    files = {"retries.md": "# Retries\n\nA failed job is retried 4 times by default, with exponential backoff.\n",
             "pool.txt": "The connection pool keeps at most 12 idle connections per host.\n",
             "tool.exe": "MZ not a document"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    page.locator("#files").set_input_files([str(tmp_path / name) for name in files])
    page.get_by_role("button", name="Upload", exact=True).click()
    items = page.locator("#upload-list > li")
    expect(items).to_have_count(3)
    for name in files:
        expect(page.locator(f'#upload-list > li[data-file="{name}"][data-outcome]')).to_have_count(1)
    failed = page.locator('#upload-list > li[data-file="tool.exe"]')
    expect(failed).to_have_attribute("data-outcome", "failed")
    expect(failed).to_contain_text("unsupported file type `.exe`")
    for name in ("retries.md", "pool.txt"):
        item = page.locator(f'#upload-list > li[data-file="{name}"]')
        expect(item).to_have_attribute("data-outcome", "ok")
        expect(item).to_contain_text("Indexed")
        assert item.locator("progress").evaluate("p => p.value") == 100
    rows = page.locator("#document-rows > tr")
    expect(rows).to_have_count(2)
    expect(rows.filter(has_text="retries.md")).to_contain_text("indexed")
    screenshot(page, "documents")

    listed = server.api("GET", "/v1/documents", "carol").json()["documents"]
    pool_id = next(d["id"] for d in listed if d["source"] == "pool.txt")
    row = rows.filter(has_text="pool.txt")
    row.get_by_role("button", name="Delete").click()
    row.get_by_role("button", name="Keep").click()  # a second thought keeps it
    expect(rows).to_have_count(2)
    row.get_by_role("button", name="Delete").click()
    row.get_by_role("button", name=re.compile("for good")).click()
    expect(rows).to_have_count(1)
    expect(page.locator("#notice")).to_contain_text("Deleted")
    assert server.api("GET", f"/v1/documents/{pool_id}", "carol").status_code == 404


def test_ask_streams_the_answer_and_a_citation_opens_its_highlighted_quote(page: Page, server: Server) -> None:
    sign_in(page, server, "alice")
    turn = ask(page, "What is the default timeout of a request?")
    expect(turn).to_have_attribute("data-exit", "COMPLETED")
    events = (turn.get_attribute("data-events") or "").split()
    # The answer arrived as a stream: tokens were shown before the final result replaced them.
    assert events[0] == "run_start" and events[-1] == "final" and "tool_start" in events
    assert "token" in events and events.index("token") < events.index("final")
    expect(turn.locator(".answer")).to_contain_text("5 seconds")
    expect(turn.locator(".status")).to_contain_text("Every citation was checked")
    screenshot(page, "ask")

    cite = turn.locator("button.cite").first
    number = cite.get_attribute("data-citation")
    quote = turn.locator(f'.sources button[data-citation="{number}"] .source-quote').inner_text().strip("“”")
    cite.click()
    dialog = page.locator("#passage-dialog")
    expect(dialog).to_be_visible()
    mark = dialog.locator("mark.quote")
    expect(mark).to_have_count(1)
    assert mark.inner_text() == quote and "5 seconds" in quote
    passage = dialog.locator("#passage-text").inner_text()
    assert quote in passage and len(passage) > len(quote)  # the quote is shown inside its passage
    facts = dialog.locator("#passage-facts")
    expect(facts).to_contain_text("Timeouts")
    expect(facts).to_contain_text("timeouts.md")
    expect(facts).to_contain_text("Default timeout")  # the section
    # Uploads are not kept, and the page says so instead of offering a dead link.
    expect(dialog.locator("#passage-original-note")).to_contain_text("does not keep the original")
    screenshot(page, "passage")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()


def test_each_citation_marker_opens_its_own_claims_quote(page: Page, server: Server) -> None:
    sign_in(page, server, "alice")
    turn = ask(page, "What is the default timeout and how do I change it?")
    expect(turn).to_have_attribute("data-exit", "COMPLETED")
    # Two claims cite the same passage: one source entry, with the quote of each claim.
    markers = turn.locator('.answer button.cite[data-citation="1"]')
    expect(markers).to_have_count(2)
    source = turn.locator('.sources button[data-citation="1"]')
    expect(source).to_have_count(1)
    expect(source).to_contain_text("5 seconds")
    expect(source).to_contain_text("timeout=10.0")
    dialog = page.locator("#passage-dialog")
    for index, said in ((0, "5 seconds"), (1, "timeout=10.0")):
        markers.nth(index).click()
        expect(dialog).to_be_visible()
        expect(dialog.locator("mark.quote")).to_contain_text(said)
        expect(dialog.locator("#passage-claim")).to_contain_text(said)
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()


def test_the_trace_shows_plan_searches_passages_and_validation(page: Page, server: Server) -> None:
    sign_in(page, server, "alice")
    turn = ask(page, "How do I disable timeouts?")
    expect(turn).to_have_attribute("data-exit", "COMPLETED")
    turn.get_by_role("button", name="Show the trace").click()
    dialog = page.locator("#trace-dialog")
    expect(dialog).to_be_visible()
    types = dialog.locator("#trace-list > li").evaluate_all("items => items.map(i => i.dataset.type)")
    assert types[0] == "plan" and types[-1] == "final"
    assert "tool_call" in types and "validation" in types
    expect(dialog.locator('#trace-list > li[data-type="tool_call"]').first).to_contain_text("Searched “")
    expect(dialog.locator('#trace-list > li[data-type="tool_call"]').first).to_contain_text("Timeouts")
    expect(dialog.locator('#trace-list > li[data-type="validation"]').last).to_contain_text("Validation passed")
    expect(dialog.locator("#trace-facts")).to_contain_text("COMPLETED")
    screenshot(page, "trace")
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()


def test_a_decline_shows_what_was_searched_and_what_was_missing(page: Page, server: Server) -> None:
    sign_in(page, server, "alice")
    question = "Who won the 1998 football world cup?"
    turn = ask(page, question)
    expect(turn).to_have_attribute("data-exit", "INSUFFICIENT_CONTEXT")
    expect(turn.locator(".status")).to_have_text("Not answered: your documents do not say enough to answer this.")
    expect(turn.locator(".decline ul.searched li")).to_contain_text([question])
    expect(turn.locator(".decline ul.missing")).to_contain_text("1998")
    expect(turn.locator("button.cite")).to_have_count(0)
    screenshot(page, "decline")


def _cancelled_runs(server: Server) -> float:
    text = httpx.get(f"{server.url}/metrics").text
    match = re.search(r'^citeline_agent_runs_total\{exit_reason="CANCELLED"\} ([0-9.]+)$', text, re.M)
    return float(match.group(1)) if match else 0.0


def test_cancel_stops_the_run_on_the_server(page: Page, server: Server) -> None:
    sign_in(page, server, "dave")
    page.get_by_label("Model").select_option(server.slow_model)
    before = _cancelled_runs(server)
    page.locator("#question").fill("Tell me everything about timeouts")
    page.locator("#question").press("Enter")
    turn = page.locator("#turns > li").first
    expect(turn).to_have_attribute("data-events", re.compile("run_start"))
    page.get_by_role("button", name="Cancel").click()
    expect(turn).to_have_attribute("data-exit", "CANCELLED")
    expect(turn.locator(".status")).to_have_text("Cancelled: you stopped this answer.")
    expect(page.get_by_role("button", name="Cancel")).to_be_hidden()
    deadline = time.monotonic() + 10  # a bounded poll of the real server's metrics
    while _cancelled_runs(server) < before + 1:  # the server saw the disconnect and ended the run
        assert time.monotonic() < deadline, "the server did not cancel the run"
        time.sleep(0.1)


def test_sessions_list_continue_rename_and_delete(page: Page, server: Server) -> None:
    sign_in(page, server, "alice")
    first = "What is the default timeout?"
    ask(page, first)
    item = page.locator("#session-list button", has_text=first)
    expect(item).to_have_count(1)
    session_id = item.get_attribute("data-session-id")
    assert session_id

    page.get_by_role("button", name="New conversation").click()
    expect(page.locator("#turns > li")).to_have_count(0)
    page.reload()  # a new page load: the conversation comes back from the service
    page.locator(f'#session-list button[data-session-id="{session_id}"]').click()
    turns = page.locator("#turns > li")
    expect(turns).to_have_count(1)
    expect(turns.first.locator(".question")).to_have_text(first)
    expect(turns.first.locator(".answer")).to_contain_text("5 seconds")
    turns.first.locator("button.cite").first.click()  # citations of a stored answer open too
    expect(page.locator("#passage-dialog mark.quote")).to_contain_text("5 seconds")
    page.keyboard.press("Escape")

    follow_up = ask(page, "And how do I disable them?")
    expect(follow_up).to_have_attribute("data-exit", "COMPLETED")
    expect(turns).to_have_count(2)
    stored = server.api("GET", f"/v1/sessions/{session_id}", "alice").json()
    assert [m["content"] for m in stored["messageHistory"] if m["role"] == "user"] == [
        first, "And how do I disable them?"]

    page.get_by_role("button", name="Rename").click()
    page.get_by_label("New title").fill("Timeout questions")
    page.get_by_label("New title").press("Enter")
    expect(page.locator("#session-title")).to_have_text("Timeout questions")
    expect(page.locator(f'#session-list button[data-session-id="{session_id}"]')).to_contain_text(
        "Timeout questions")
    screenshot(page, "sessions")
    listed = server.api("GET", "/v1/sessions", "alice").json()["sessions"]
    assert {"sessionId": session_id, "title": "Timeout questions"}.items() <= next(
        s for s in listed if s["sessionId"] == session_id).items()

    page.get_by_role("button", name="Delete", exact=True).click()
    page.locator("#delete-yes").click()
    expect(page.locator(f'#session-list button[data-session-id="{session_id}"]')).to_have_count(0)
    expect(page.locator("#turns > li")).to_have_count(0)
    assert server.api("GET", f"/v1/sessions/{session_id}", "alice").status_code == 404


def test_a_document_with_markup_and_scripts_shows_as_text(page: Page, server: Server) -> None:
    sign_in(page, server, "alice")
    turn = ask(page, "What does the deploy banner show?")
    expect(turn).to_have_attribute("data-exit", "COMPLETED")
    expect(turn.locator(".answer")).to_contain_text('<script>window.__pwned = \'script\'; alert("pwned")</script>')
    turn.locator("button.cite").first.click()
    dialog = page.locator("#passage-dialog")
    expect(dialog.locator("mark.quote")).to_contain_text("<script>")
    expect(dialog.locator("#passage-title")).to_contain_text("Banner `<i>guide</i>")
    page.keyboard.press("Escape")
    page.locator("#nav").get_by_role("button", name="Documents").click()
    expect(page.locator("#document-rows")).to_contain_text("Banner `<i>guide</i> <img src=x")
    # Nothing from the document became an element, and nothing ran.
    assert page.locator("main script, main img, dialog script, dialog img, main i").count() == 0
    assert page.evaluate("window.__pwned === undefined")


def test_a_code_block_showing_a_fenced_example_is_one_block(page: Page, server: Server) -> None:
    sign_in(page, server, "alice")
    turn = ask(page, "How do I write an example that must fail to compile?")
    expect(turn).to_have_attribute("data-exit", "COMPLETED")
    blocks = turn.locator(".answer pre.code")
    expect(blocks).to_have_count(1)  # the example's own fence lines did not end the block
    assert blocks.inner_text().strip() == '```compile_fail\nlet x: i32 = "a string";\n```'
    assert not any("```" in text for text in turn.locator(".answer p.prose").all_inner_texts())


def test_users_never_see_each_other(page: Page, server: Server) -> None:
    alice_sessions = server.api("GET", "/v1/sessions", "alice").json()["sessions"]
    created = server.api("POST", "/v1/sessions", "alice", json={}).json()["sessionId"]
    sign_in(page, server, "bob")
    expect(page.locator("#sessions-empty")).to_be_visible()
    expect(page.locator("#session-list > li")).to_have_count(0)
    page.locator("#nav").get_by_role("button", name="Documents").click()
    expect(page.locator("#documents-empty")).to_be_visible()
    expect(page.locator("#document-rows > tr")).to_have_count(0)
    page.locator("#nav").get_by_role("button", name="Ask").click()
    turn = ask(page, "What is the default timeout of a request?")  # in Alice's documents only
    expect(turn).to_have_attribute("data-exit", "INSUFFICIENT_CONTEXT")
    expect(turn.locator("button.cite")).to_have_count(0)
    for session in [*alice_sessions, {"sessionId": created}]:
        assert server.api("GET", f"/v1/sessions/{session['sessionId']}", "bob").status_code == 404
    bob_sessions = server.api("GET", "/v1/sessions", "bob").json()["sessions"]
    assert len(bob_sessions) == 1 and created not in {s["sessionId"] for s in bob_sessions}


def test_keyboard_only(page: Page, server: Server) -> None:
    expect(page.get_by_label("API key")).to_be_focused()  # the key field has focus on load
    page.keyboard.type(server.keys["alice"])
    page.keyboard.press("Enter")
    expect(page.locator("#view-ask")).to_be_visible()
    assert page.evaluate("document.activeElement.id") == "question"
    page.keyboard.type("What is the default timeout?")
    page.keyboard.press("Enter")
    turn = page.locator("#turns > li").first
    expect(turn).to_have_attribute("data-exit", "COMPLETED")
    page.locator("#question").focus()
    for _ in range(60):  # Tab round the page until a citation has focus
        page.keyboard.press("Shift+Tab")
        if page.evaluate("document.activeElement.classList.contains('cite')"):
            break
    else:
        raise AssertionError("no citation could be reached with the keyboard")
    page.keyboard.press("Enter")
    expect(page.locator("#passage-dialog")).to_be_visible()
    expect(page.locator("#passage-dialog mark.quote")).to_have_count(1)
    page.keyboard.press("Escape")
    expect(page.locator("#passage-dialog")).to_be_hidden()
    assert page.evaluate("document.activeElement.classList.contains('cite')")  # focus came back


# Visible elements that stick out of the viewport on either side (content inside a scrolling box,
# such as a long code line, may overflow that box: it scrolls).
_OUTSIDE = """() => {
  const scrolls = (e) => { for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
    if (getComputedStyle(a).overflowX !== "visible") return true; } return false; };
  return [...document.querySelectorAll("body *")].filter((e) => {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || e.closest(".visually-hidden, .skip-link") || scrolls(e)) return false;
    return r.left < -1 || r.right > window.innerWidth + 1;
  }).map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className}`);
}"""


def _fits_width(page: Page) -> bool:
    outside = page.evaluate(_OUTSIDE)
    assert outside == [], f"elements outside the phone's width: {outside}"
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_phone_width(browser: Browser, server: Server, watch: Watch) -> None:
    page = open_page(browser, server.url, watch, PHONE)
    try:
        assert _fits_width(page)
        sign_in(page, server, "erin")
        page.locator("#nav").get_by_role("button", name="Documents").click()
        page.locator("#files").set_input_files([{"name": "guide.md", "mimeType": "text/markdown",
                                                 "buffer": b"# Guide\n\n## Limits\n\nUploads are limited to 25 MB "
                                                           b"per request.\n"}])
        page.get_by_role("button", name="Upload", exact=True).click()
        expect(page.locator('#upload-list > li[data-file="guide.md"]')).to_have_attribute("data-outcome", "ok")
        expect(page.locator("#document-rows > tr")).to_have_count(1)
        assert _fits_width(page)
        screenshot(page, "phone-documents")
        page.locator("#nav").get_by_role("button", name="Ask").click()
        turn = ask(page, "How large can an upload be?")
        expect(turn).to_have_attribute("data-exit", "COMPLETED")
        assert _fits_width(page)
        screenshot(page, "phone-ask")
        turn.locator("button.cite").first.click()
        expect(page.locator("#passage-dialog mark.quote")).to_contain_text("25 MB")
        box = page.locator("#passage-dialog").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        screenshot(page, "phone-passage")
    finally:
        page.context.close()
    assert watch.dialogs == [] and watch.errors == [] and watch.foreign == []
