// citeline's web page: plain JavaScript, no framework, no build step, no other hosts.
//
// Rule for everything below: text that comes from the server (answers, quotes, passages,
// document names, session titles, error messages) is put on the page with textContent or
// createTextNode only, never as HTML, so a document that contains markup or a script shows it
// as text. The page's Content-Security-Policy would block an injected script anyway.
"use strict";

(() => {
  const KEY_STORAGE = "citeline.apiKey"; // sessionStorage: gone when the tab closes, never in a URL

  // Every exit reason in plain words (the service's table of exit reasons, for people).
  const EXIT_WORDS = {
    COMPLETED: "Answered from your documents. Every citation was checked against its passage.",
    INSUFFICIENT_CONTEXT: "Not answered: your documents do not say enough to answer this.",
    EMPTY_INPUT: "The question was empty.",
    INPUT_TOO_LONG: "The question is too long. Shorten it and ask again.",
    MAX_TURNS_REACHED: "Stopped: the agent used all of its reasoning steps. Rephrase or split the question.",
    MAX_TOOL_CALLS_REACHED: "Answered from what was found before the search budget ran out; parts may be missing.",
    MAX_CONTEXT_REACHED: "This conversation has grown too long for the model. Start a new conversation.",
    VALIDATION_FAILED: "Partly answered: sentences whose citations did not check out were removed.",
    INVALID_TOOL_CALL: "Stopped: the model kept asking for tools in a way that does not work. Try again.",
    RATE_LIMITED: "The model provider is limiting requests right now. Wait a moment and try again.",
    LLM_ERROR: "The model failed to answer (a provider error). Try again later.",
    LLM_GENERATION_FAILURE: "The model's output was unusable, so this answer was built directly from the passages found.",
    RETRIEVAL_ERROR: "Searching your documents failed. Try again.",
    TIMEOUT: "Stopped: the answer took longer than the time limit.",
    CANCELLED: "Cancelled: you stopped this answer.",
  };
  const GOOD_EXITS = new Set(["COMPLETED"]);
  const PARTIAL_EXITS = new Set(["MAX_TOOL_CALLS_REACHED", "VALIDATION_FAILED", "LLM_GENERATION_FAILURE"]);

  const $ = (id) => document.getElementById(id);

  const state = {
    key: null, // null until signed in; "" when the server runs without API keys
    view: null,
    sessionId: null,
    sessions: [],
    running: null, // {controller, turn}
    models: [],
  };

  // --- small DOM helpers ------------------------------------------------------------------
  function el(tag, props = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(props)) {
      if (value === undefined || value === null || value === false) continue;
      if (name === "className") node.className = value;
      else if (name === "text") node.textContent = value;
      else if (name === "dataset") Object.assign(node.dataset, value);
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function show(node, visible) { node.hidden = !visible; }

  function setError(node, message) {
    node.textContent = message || "";
    show(node, Boolean(message));
  }

  function notice(message) {
    setError($("notice"), message);
  }

  function formatBytes(n) {
    if (n < 1024) return `${n} B`;
    if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
    return `${(n / 1024 / 1024).toFixed(1)} MB`;
  }

  function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

  function formatTime(value) {
    const date = typeof value === "number" ? new Date(value * 1000) : new Date(value);
    if (Number.isNaN(date.getTime())) return "";
    return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  }

  // --- the API ----------------------------------------------------------------------------
  class ApiError extends Error {
    constructor(status, message) { super(message); this.status = status; }
  }

  function authHeaders(extra = {}) {
    const headers = { ...extra };
    if (state.key) headers.Authorization = `Bearer ${state.key}`;
    return headers;
  }

  async function errorOf(response) {
    let message = `the server answered ${response.status}`;
    try {
      const body = await response.json();
      if (body && body.error && body.error.message) message = body.error.message;
    } catch (_) { /* not JSON: keep the status */ }
    return new ApiError(response.status, message);
  }

  async function api(method, path, body) {
    const init = { method, headers: authHeaders(), cache: "no-store" };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (_) {
      throw new ApiError(0, "the service cannot be reached; check the connection and try again");
    }
    if (response.status === 401 && state.key !== null) {
      signOut("Your API key was not accepted. Sign in again.");
      throw new ApiError(401, "not signed in");
    }
    if (!response.ok) throw await errorOf(response);
    if (response.status === 204) return null;
    return response.json();
  }

  // --- sign in ----------------------------------------------------------------------------
  async function probe(key) {
    const headers = key ? { Authorization: `Bearer ${key}` } : {};
    const response = await fetch("/v1/models", { headers, cache: "no-store" });
    if (response.ok) return { ok: true, models: (await response.json()).data.map((m) => m.id) };
    return { ok: false, error: await errorOf(response) };
  }

  async function signIn(event) {
    event.preventDefault();
    const input = $("api-key");
    const key = input.value.trim();
    setError($("signin-error"), "");
    if (!key) {
      setError($("signin-error"), "Enter your API key.");
      return;
    }
    let result;
    try {
      result = await probe(key);
    } catch (_) {
      setError($("signin-error"), "The service cannot be reached; check the connection and try again.");
      return;
    }
    if (!result.ok) {
      const message = result.error.status === 401
        ? "That API key is not known to this service. Check it, or ask your administrator for one."
        : result.error.message;
      setError($("signin-error"), message);
      input.select();
      return;
    }
    input.value = "";
    sessionStorage.setItem(KEY_STORAGE, key);
    state.key = key;
    enter(result.models);
  }

  function signOut(message) {
    if (state.running) state.running.controller.abort();
    sessionStorage.removeItem(KEY_STORAGE);
    state.key = null;
    state.sessionId = null;
    state.sessions = [];
    $("session-list").replaceChildren();
    $("turns").replaceChildren();
    $("document-rows").replaceChildren();
    $("upload-list").replaceChildren();
    show($("nav"), false);
    show($("sign-out"), false);
    setView("signin");
    setError($("signin-error"), message || "");
    $("api-key").focus();
  }

  function enter(models) {
    state.models = models;
    const select = $("model");
    select.replaceChildren(...models.map((id, i) => el("option", { value: id, text: i === 0 ? `${id} (default)` : id })));
    show($("model-label"), models.length > 1);
    show($("nav"), true);
    show($("sign-out"), state.key !== "");
    newSession();
    setView("ask");
    refreshSessions();
    $("question").focus();
  }

  // --- views ------------------------------------------------------------------------------
  function setView(name) {
    state.view = name;
    for (const view of ["signin", "ask", "documents"]) show($(`view-${view}`), view === name);
    for (const tab of document.querySelectorAll(".tab")) {
      if (tab.dataset.view === name) tab.setAttribute("aria-current", "page");
      else tab.removeAttribute("aria-current");
    }
    document.body.dataset.view = name;
    if (name === "documents") refreshDocuments();
  }

  // --- sessions ---------------------------------------------------------------------------
  async function refreshSessions() {
    let body;
    try {
      body = await api("GET", "/v1/sessions");
    } catch (error) {
      if (error.status !== 401) notice(`Could not list your conversations: ${error.message}`);
      return null;
    }
    state.sessions = body.sessions;
    renderSessions();
    return body.sessions;
  }

  // The service records a turn in its session just after it sends the answer: after a run,
  // list again (briefly) until the session holds the turn, so its title is the question.
  async function refreshAfterTurn(sessionId, messages) {
    for (let attempt = 0; attempt < 10; attempt++) {
      const sessions = await refreshSessions();
      const current = sessions && sessions.find((s) => s.sessionId === sessionId);
      if (!sessions || (current && current.messageCount >= messages)) return;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }

  function renderSessions() {
    const list = $("session-list");
    list.replaceChildren(...state.sessions.map((s) => {
      const button = el("button", {
        type: "button", className: "session-item", dataset: { sessionId: s.sessionId },
        onclick: () => openSession(s.sessionId),
      }, el("span", { className: "session-title", text: s.title }),
      el("span", { className: "session-meta", text: formatTime(s.lastActivity) }));
      if (s.sessionId === state.sessionId) button.setAttribute("aria-current", "true");
      return el("li", {}, button);
    }));
    show($("sessions-empty"), state.sessions.length === 0);
    const current = state.sessions.find((s) => s.sessionId === state.sessionId);
    if (current) $("session-title").textContent = current.title;
  }

  function resetSessionHead() {
    show($("rename-form"), false);
    show($("delete-confirm"), false);
    show($("session-actions"), Boolean(state.sessionId));
  }

  function newSession() {
    if (state.running) return;
    state.sessionId = null;
    $("turns").replaceChildren();
    show($("turns-empty"), true);
    $("session-title").textContent = "New conversation";
    resetSessionHead();
    renderSessions();
    if (state.view === "ask") $("question").focus();
  }

  async function openSession(sessionId) {
    if (state.running) return;
    let session;
    try {
      session = await api("GET", `/v1/sessions/${encodeURIComponent(sessionId)}`);
    } catch (error) {
      notice(`Could not open the conversation: ${error.message}`);
      refreshSessions();
      return;
    }
    notice("");
    state.sessionId = session.sessionId;
    const turns = $("turns");
    turns.replaceChildren();
    let pending = null;
    for (const message of session.messageHistory) {
      if (message.role === "user") {
        pending = createTurn(message.content);
        turns.append(pending.node);
      } else if (message.role === "assistant") {
        const turn = pending || createTurn("");
        if (!pending) turns.append(turn.node);
        const meta = message.metadata || {};
        renderResult(turn, {
          answer: message.content, citations: message.citations || [], exit_reason: meta.exit_reason || "COMPLETED",
          insufficiencies: meta.insufficiencies || [], trace: null, query_id: meta.query_id || "",
        });
        pending = null;
      }
    }
    show($("turns-empty"), session.messageHistory.length === 0);
    const listed = state.sessions.find((s) => s.sessionId === sessionId);
    $("session-title").textContent = listed ? listed.title : "Conversation";
    resetSessionHead();
    renderSessions();
    $("question").focus();
  }

  function startRename() {
    const input = $("rename-input");
    input.value = $("session-title").textContent;
    show($("session-actions"), false);
    show($("rename-form"), true);
    input.focus();
    input.select();
  }

  async function saveRename(event) {
    event.preventDefault();
    const title = $("rename-input").value.trim();
    if (!title || !state.sessionId) return;
    try {
      const summary = await api("PATCH", `/v1/sessions/${encodeURIComponent(state.sessionId)}`, { title });
      $("session-title").textContent = summary.title;
      notice("");
    } catch (error) {
      notice(`Could not rename the conversation: ${error.message}`);
    }
    resetSessionHead();
    await refreshSessions();
    $("rename-session").focus();
  }

  function askDelete() {
    show($("session-actions"), false);
    show($("delete-confirm"), true);
    $("delete-no").focus();
  }

  async function confirmDelete() {
    const sessionId = state.sessionId;
    if (!sessionId) return;
    try {
      await api("DELETE", `/v1/sessions/${encodeURIComponent(sessionId)}`);
      notice("The conversation was deleted.");
    } catch (error) {
      notice(`Could not delete the conversation: ${error.message}`);
    }
    state.sessions = state.sessions.filter((s) => s.sessionId !== sessionId);
    newSession();
    await refreshSessions();
  }

  // --- asking -----------------------------------------------------------------------------
  function createTurn(question) {
    const node = el("li", { className: "turn" });
    const answer = el("div", { className: "answer", "aria-live": "polite" });
    const status = el("p", { className: "status", role: "status" });
    const extra = el("div", { className: "turn-extra" });
    node.append(el("p", { className: "question", text: question }), answer, status, extra);
    const turn = { node, answer, status, extra, events: [], liveTrace: [], queries: [], result: null };
    node.dataset.events = "";
    return turn;
  }

  function noteEvent(turn, type) {
    turn.events.push(type);
    turn.node.dataset.events = turn.events.join(" ");
  }

  function onEvent(turn, event) {
    noteEvent(turn, event.type);
    const data = event.data || {};
    switch (event.type) {
      case "run_start": turn.status.textContent = "Starting…"; break;
      case "plan": turn.status.textContent = "Planning the searches…"; break;
      case "tool_start":
        if (data.tool === "search_docs" && data.input && typeof data.input.query === "string") {
          turn.queries.push(data.input.query);
          turn.status.textContent = `Searching for “${data.input.query}”…`;
        } else {
          turn.status.textContent = "Opening a passage…";
        }
        break;
      case "tool_end": turn.liveTrace.push(data); break;
      case "token":
        turn.node.classList.add("streaming");
        turn.answer.append(document.createTextNode(String(data.text || "")));
        turn.status.textContent = "Writing the answer…";
        break;
      case "cached_response": turn.status.textContent = "Answered from the cache."; break;
      case "validation":
        turn.status.textContent = data.ok ? "Citations checked." : "Checking the citations…";
        break;
      case "reprompt": turn.status.textContent = "Some citations did not check out; revising…"; break;
      case "final":
        turn.node.classList.remove("streaming");
        if (data.result) renderResult(turn, data.result);
        else if (data.error) showTurnError(turn, data.error.message || "the run failed");
        break;
      default: break;
    }
  }

  function showTurnError(turn, message) {
    turn.node.classList.remove("streaming");
    turn.node.classList.add("failed");
    turn.status.textContent = `Error: ${message}`;
    turn.node.dataset.exit = "ERROR";
  }

  // Text with its [n] markers turned into buttons that open the cited passage.
  function appendCited(node, text, byId) {
    for (const piece of text.split(/(\[\d+\])/g)) {
      const match = /^\[(\d+)\]$/.exec(piece);
      const citation = match ? byId.get(Number(match[1])) : undefined;
      if (citation) {
        node.append(el("button", {
          type: "button", className: "cite", text: `[${citation.id}]`,
          "aria-label": `Source ${citation.id}: ${citation.document_name}`,
          dataset: { citation: String(citation.id) },
          onclick: () => openPassage(citation),
        }));
      } else if (piece) {
        node.append(document.createTextNode(piece));
      }
    }
  }

  const BULLET = /^\s*[-*•]\s+/;

  // A fence of three or more backticks closes with the same fence: a block showing Markdown holds
  // three-backtick lines inside a longer fence and stays one block.
  const FENCED = /(`{3,})[^\n]*\n([\s\S]*?)\n?\1(?!`)/g;

  // The answer cut into prose and fenced code ({prose} or {code}, in order; the fence's info line dropped).
  function fencedParts(answer) {
    const parts = [];
    let last = 0;
    for (const m of answer.matchAll(FENCED)) {
      if (m.index > last) parts.push({ prose: answer.slice(last, m.index) });
      parts.push({ code: m[2] });
      last = m.index + m[0].length;
    }
    if (last < answer.length) parts.push({ prose: answer.slice(last) });
    return parts;
  }

  // An answer as text, bullet lists, fenced code blocks and citation buttons (all text nodes).
  function renderAnswer(container, answer, citations) {
    // Each [n] marker opens the citation of its own claim: the citations of n in the answer's order,
    // one per marker (the last one stays for any marker beyond them).
    const queues = new Map();
    const ordered = [...citations].sort((a, b) => (a.position_in_response || 0) - (b.position_in_response || 0));
    for (const c of ordered) {
      const id = Number(c.id);
      if (!queues.has(id)) queues.set(id, []);
      queues.get(id).push(c);
    }
    const byId = { get: (id) => { const queue = queues.get(id); return queue && (queue.length > 1 ? queue.shift() : queue[0]); } };
    container.replaceChildren();
    for (const part of fencedParts(String(answer || ""))) {
      if (part.code !== undefined) {
        container.append(el("pre", { className: "code" }, el("code", { text: part.code })));
        continue;
      }
      let list = null;
      let paragraph = [];
      const flush = () => {
        const text = paragraph.join("\n").replace(/^\n+|\n+$/g, "");
        if (text) {
          const block = el("p", { className: "prose" });
          appendCited(block, text, byId);
          container.append(block);
        }
        paragraph = [];
      };
      for (const line of part.prose.split("\n")) {
        if (BULLET.test(line)) {
          flush();
          if (!list) { list = el("ul", { className: "prose-list" }); container.append(list); }
          const item = el("li");
          appendCited(item, line.replace(BULLET, ""), byId);
          list.append(item);
        } else {
          if (line.trim()) list = null;
          paragraph.push(line);
        }
      }
      flush();
    }
  }

  function renderResult(turn, result) {
    turn.result = result;
    const exit = result.exit_reason;
    turn.node.dataset.exit = exit;
    turn.node.classList.remove("streaming");
    turn.node.classList.toggle("declined", !GOOD_EXITS.has(exit) && !PARTIAL_EXITS.has(exit));
    const citations = result.citations || [];
    renderAnswer(turn.answer, result.answer, citations);
    turn.status.textContent = EXIT_WORDS[exit] || `The run ended: ${exit}.`;
    turn.status.className = `status exit ${GOOD_EXITS.has(exit) ? "good" : PARTIAL_EXITS.has(exit) ? "partial" : "bad"}`;
    turn.extra.replaceChildren();

    if (exit === "INSUFFICIENT_CONTEXT" || (result.insufficiencies || []).length) {
      turn.extra.append(renderDecline(turn, result));
    }
    if (citations.length) {
      // Each cited passage once, with the quote of every claim citing it (as `AgentResult.sources()`:
      // a code block, whose [n] follows its closing fence, stands whole in the answer and is not repeated).
      const sources = new Map();
      for (const c of citations) {
        const id = Number(c.id);
        if (!sources.has(id)) sources.set(id, { first: c, quotes: [] });
        const quotes = sources.get(id).quotes;
        const code = String(result.answer || "").slice(0, c.position_in_response).trimEnd().endsWith("```");
        if (!code && !quotes.includes(c.quote)) quotes.push(c.quote);
      }
      const list = el("ol", { className: "sources", "aria-label": "Sources" });
      for (const { first: c, quotes } of sources.values()) {
        const where = [c.section, c.page ? `page ${c.page}` : null].filter(Boolean).join(", ");
        list.append(el("li", {}, el("button", {
          type: "button", className: "source", dataset: { citation: String(c.id) }, onclick: () => openPassage(c),
        }, el("span", { className: "source-id", text: `[${c.id}]` }),
        el("span", { className: "source-doc", text: c.document_name }),
        where ? el("span", { className: "source-where", text: where }) : null,
        ...quotes.map((quote, i) => el("span", { className: i ? "source-quote-more" : "source-quote", text: `“${quote}”` })))));
      }
      turn.extra.append(el("h3", { className: "sources-title", text: "Sources" }), list);
    }
    const actions = el("div", { className: "row turn-actions" });
    actions.append(el("button", { type: "button", className: "quiet trace-button", text: "Show the trace",
      onclick: () => openTrace(turn) }));
    turn.extra.append(actions);
  }

  function renderDecline(turn, result) {
    const box = el("div", { className: "decline" });
    const insufficiencies = result.insufficiencies || [];
    const queries = [...new Set([
      ...turn.queries,
      ...insufficiencies.flatMap((i) => i.queries_tried || []),
      ...searchesIn(result.trace || []).map((s) => s.query),
    ].filter(Boolean))];
    box.append(el("h3", { text: "What was searched" }));
    box.append(queries.length
      ? el("ul", { className: "searched" }, ...queries.map((q) => el("li", { text: q })))
      : el("p", { className: "hint", text: "No search was recorded for this answer." }));
    box.append(el("h3", { text: "What was missing" }));
    const missing = insufficiencies.filter((i) => i.missing);
    box.append(missing.length
      ? el("ul", { className: "missing" }, ...missing.map((i) => el("li", {},
        i.section ? el("strong", { text: `${i.section}: ` }) : null, i.missing)))
      : el("p", { className: "hint", text: "No passage in your documents supported an answer to this question." }));
    return box;
  }

  function searchesIn(trace) {
    return trace.filter((t) => t.type === "tool_call" && t.data && t.data.tool === "search_docs")
      .map((t) => ({ query: (t.data.input || {}).query, output: t.data.output || {}, error: t.data.error }));
  }

  async function ensureSession() {
    if (state.sessionId) return state.sessionId;
    const session = await api("POST", "/v1/sessions", {});
    state.sessionId = session.sessionId;
    return state.sessionId;
  }

  async function ask(event) {
    if (event) event.preventDefault();
    if (state.running) return;
    const input = $("question");
    const question = input.value.trim();
    setError($("ask-error"), "");
    if (!question) {
      setError($("ask-error"), "Type a question first.");
      input.focus();
      return;
    }
    let sessionId;
    try {
      sessionId = await ensureSession();
    } catch (error) {
      setError($("ask-error"), `Could not start a conversation: ${error.message}`);
      return;
    }
    const turn = createTurn(question);
    $("turns").append(turn.node);
    show($("turns-empty"), false);
    turn.status.textContent = "Sending…";
    input.value = "";
    const controller = new AbortController();
    state.running = { controller, turn };
    setRunning(true);
    const body = { question, session_id: sessionId, return_trace: true };
    const model = $("model").value;
    if (state.models.length > 1 && model) body.model = model;
    try {
      await stream(body, controller.signal, (ev) => onEvent(turn, ev));
      if (!turn.result && !turn.node.dataset.exit) showTurnError(turn, "the answer stopped before it was complete");
    } catch (error) {
      if (controller.signal.aborted) {
        renderResult(turn, {
          answer: turn.answer.textContent, citations: [], exit_reason: "CANCELLED", insufficiencies: [],
          trace: null, query_id: "",
        });
      } else {
        showTurnError(turn, error.message);
        if (error.status === 422 || error.status === 429) input.value = question;
      }
    } finally {
      state.running = null;
      setRunning(false);
      input.focus();
      refreshAfterTurn(sessionId, 2 * $("turns").children.length);
    }
  }

  function setRunning(running) {
    show($("cancel-button"), running);
    $("ask-button").disabled = running;
    $("new-session").disabled = running;
    for (const b of document.querySelectorAll(".session-item")) b.disabled = running;
    document.body.classList.toggle("running", running);
  }

  function cancel() {
    if (state.running) state.running.controller.abort();
  }

  // Reads the server-sent events of /v1/agent/stream from a POST (EventSource cannot send one).
  async function stream(body, signal, onMessage) {
    const response = await fetch("/v1/agent/stream", {
      method: "POST", signal, cache: "no-store",
      headers: authHeaders({ "Content-Type": "application/json", Accept: "text/event-stream" }),
      body: JSON.stringify(body),
    });
    if (response.status === 401 && state.key !== null) {
      signOut("Your API key was not accepted. Sign in again.");
      throw new ApiError(401, "not signed in");
    }
    if (!response.ok) throw await errorOf(response);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = frame.split("\n").filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).replace(/^ /, "")).join("\n");
        if (!data) continue; // a comment (`: ping`) or an empty frame
        const event = JSON.parse(data);
        onMessage(event);
        if (event.type === "final") return;
      }
    }
  }

  // --- a cited passage --------------------------------------------------------------------
  function fact(list, name, value) {
    if (value === null || value === undefined || value === "") return;
    list.append(el("dt", { text: name }), el("dd", { text: String(value) }));
  }

  // Finds `quote` in `text`; exact first, then ignoring differences in white space.
  function locate(text, quote) {
    const exact = text.indexOf(quote);
    if (exact >= 0) return [exact, exact + quote.length];
    const words = quote.trim().split(/\s+/).filter(Boolean).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    if (!words.length) return null;
    const match = new RegExp(words.join("\\s+")).exec(text);
    return match ? [match.index, match.index + match[0].length] : null;
  }

  async function openPassage(citation) {
    const dialog = $("passage-dialog");
    $("passage-title").textContent = citation.document_name || "Source";
    const facts = $("passage-facts");
    facts.replaceChildren();
    fact(facts, "Citation", `[${citation.id}]`);
    fact(facts, "Document", citation.document_name);
    fact(facts, "File", citation.source);
    fact(facts, "Section", citation.section);
    fact(facts, "Page", citation.page);
    const claim = $("passage-claim");
    claim.textContent = (citation.response_fragment || "").replace(BULLET, "");
    show(claim, Boolean(citation.response_fragment));
    show($("passage-claim-label"), Boolean(citation.response_fragment));
    const text = $("passage-text");
    text.replaceChildren(el("span", { className: "hint", text: "Loading the passage…" }));
    setError($("passage-error"), "");
    show($("passage-original"), false);
    show($("passage-original-note"), false);
    if (!dialog.open) dialog.showModal();
    let passage;
    try {
      passage = await api("GET", `/v1/documents/${encodeURIComponent(citation.document_id)}/chunks/${encodeURIComponent(citation.chunk_id)}`);
    } catch (error) {
      text.replaceChildren();
      setError($("passage-error"), error.status === 404
        ? "This passage is no longer in your documents (the document was deleted or changed)."
        : `Could not open the passage: ${error.message}`);
      return;
    }
    const body = passage.text;
    const span = locate(body, citation.quote || "");
    if (span) {
      const mark = el("mark", { className: "quote", text: body.slice(span[0], span[1]) });
      text.replaceChildren(document.createTextNode(body.slice(0, span[0])), mark,
        document.createTextNode(body.slice(span[1])));
      mark.scrollIntoView({ block: "center" });
    } else {
      text.replaceChildren(document.createTextNode(body));
      setError($("passage-error"), "The quoted sentence could not be located in this passage.");
    }
    const meta = passage.metadata || {};
    if (!citation.section && meta.section) fact(facts, "Section", meta.section);
    if (!citation.page && passage.page) fact(facts, "Page", passage.page);
    checkOriginal(citation.document_id, passage.documentName);
  }

  async function checkOriginal(documentId, name) {
    let response;
    try {
      response = await fetch(`/v1/documents/${encodeURIComponent(documentId)}/original`,
        { method: "HEAD", headers: authHeaders(), cache: "no-store" });
    } catch (_) { return; }
    const button = $("passage-original");
    if (response.ok) {
      button.onclick = () => downloadOriginal(documentId, name);
      show(button, true);
    } else {
      const note = $("passage-original-note");
      note.textContent = "The service does not keep the original of this file; the passage above is the indexed text.";
      show(note, true);
    }
  }

  // Fetched with the key in a header, then handed to the browser as a download (never shown as
  // a page of this origin, so an HTML original cannot run here).
  async function downloadOriginal(documentId, name) {
    const response = await fetch(`/v1/documents/${encodeURIComponent(documentId)}/original`,
      { headers: authHeaders(), cache: "no-store" });
    if (!response.ok) {
      setError($("passage-error"), (await errorOf(response)).message);
      return;
    }
    const disposition = response.headers.get("Content-Disposition") || "";
    const match = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
    const blob = await response.blob();
    const url = URL.createObjectURL(new Blob([blob], { type: "application/octet-stream" }));
    const link = el("a", { href: url, download: match ? decodeURIComponent(match[1]) : name || "document" });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  // --- the trace --------------------------------------------------------------------------
  function describeTraceEntry(entry) {
    const d = entry.data || {};
    const ms = `${Math.round(entry.elapsed_ms || 0)} ms`;
    switch (entry.type) {
      case "plan": {
        const steps = Array.isArray(d.steps) ? d.steps.map((s) => (typeof s === "string" ? s : JSON.stringify(s))) : [];
        return { title: "Plan", detail: steps.length ? steps : [`strategy ${d.strategy || "default"}`], ms };
      }
      case "tool_call": {
        if (d.tool === "search_docs") {
          const out = d.output || {};
          const passages = (out.passages || []).map((p) =>
            `${p.rank}. ${p.document_name}${p.section ? ` — ${p.section}` : ""} (score ${Number(p.score).toFixed(2)})`);
          const title = d.error ? `Search “${(d.input || {}).query || ""}” failed: ${d.error}`
            : `Searched “${out.query || (d.input || {}).query}”: ${out.results ?? passages.length} passages${out.cached ? " (cached)" : ""}`;
          return { title, detail: passages, ms };
        }
        if (d.tool === "open_citation") {
          const out = d.output || {};
          return { title: d.error ? `Opening a passage failed: ${d.error}` : `Opened passage [${out.citation}] of ${out.document_name} (${out.chars} characters)`, detail: [], ms };
        }
        return { title: `Tool ${d.tool}${d.error ? ` failed: ${d.error}` : ""}`, detail: [], ms };
      }
      case "validation":
        return {
          title: d.ok ? "Validation passed: every citation is supported by its passage" : "Validation found problems",
          detail: [...(d.errors || []), ...(d.removed_sentences || []).map((s) => `removed: ${s}`)], ms,
        };
      case "reprompt": return { title: `Sent back to revise (attempt ${d.attempt || "?"})`, detail: d.codes || [], ms };
      case "final": return { title: `Finished: ${d.exit_reason} with ${d.citations} citation(s)`, detail: [], ms };
      case "error": return { title: `Problem: ${d.kind || "error"}`, detail: [d.reason, d.message].filter(Boolean), ms };
      default: return { title: entry.type, detail: [JSON.stringify(d)], ms };
    }
  }

  function openTrace(turn) {
    const dialog = $("trace-dialog");
    const list = $("trace-list");
    const facts = $("trace-facts");
    facts.replaceChildren();
    list.replaceChildren();
    const result = turn.result || {};
    fact(facts, "Question", turn.node.querySelector(".question").textContent);
    fact(facts, "Outcome", result.exit_reason ? `${result.exit_reason} — ${EXIT_WORDS[result.exit_reason] || ""}` : null);
    fact(facts, "Model", result.model);
    if (result.timings) fact(facts, "Time", `${Math.round(result.timings.total_ms)} ms in total, ${Math.round(result.timings.retrieval_ms)} ms searching`);
    fact(facts, "Query id", result.query_id);
    const trace = Array.isArray(result.trace) ? result.trace : null;
    if (!trace || !trace.length) {
      list.append(el("li", { className: "hint", text: "The trace is kept only for answers asked in this page; reopened conversations show their answers and sources." }));
    } else {
      for (const entry of trace) {
        const { title, detail, ms } = describeTraceEntry(entry);
        list.append(el("li", { className: `trace-${entry.type}`, dataset: { type: entry.type } },
          el("div", { className: "trace-head" }, el("span", { text: title }), el("span", { className: "hint", text: ms })),
          detail.length ? el("ul", {}, ...detail.map((line) => el("li", { text: String(line) }))) : null));
      }
    }
    dialog.showModal();
  }

  // --- documents --------------------------------------------------------------------------
  async function refreshDocuments() {
    let body;
    try {
      body = await api("GET", "/v1/documents");
    } catch (error) {
      if (error.status !== 401) notice(`Could not list your documents: ${error.message}`);
      return;
    }
    const rows = $("document-rows");
    rows.replaceChildren(...body.documents.map(documentRow));
    show($("documents-empty"), body.documents.length === 0);
    show($("document-table"), body.documents.length > 0);
  }

  function documentRow(doc) {
    const actions = el("td", { className: "actions" });
    const row = el("tr", { dataset: { documentId: doc.id } },
      el("td", { "data-label": "Title", className: "doc-title", text: doc.name }),
      el("td", { "data-label": "File", className: "doc-file", text: doc.source }),
      el("td", { "data-label": "Status" }, el("span", { className: `badge status-${doc.status}`, text: doc.status })),
      el("td", { "data-label": "Passages", text: String(doc.chunk_count) }),
      el("td", { "data-label": "Size", text: formatBytes(doc.size_bytes) }),
      el("td", { "data-label": "Updated", text: formatTime(doc.updated_at) }),
      actions);
    const remove = el("button", { type: "button", className: "quiet danger", text: "Delete",
      "aria-label": `Delete ${doc.name}` });
    remove.addEventListener("click", () => {
      const yes = el("button", { type: "button", className: "danger", text: "Delete for good",
        "aria-label": `Delete ${doc.name} for good` });
      const no = el("button", { type: "button", className: "quiet", text: "Keep" });
      no.addEventListener("click", () => { actions.replaceChildren(remove); remove.focus(); });
      yes.addEventListener("click", async () => {
        yes.disabled = true;
        try {
          await api("DELETE", `/v1/documents/${encodeURIComponent(doc.id)}`);
          notice(`Deleted “${doc.name}”.`);
        } catch (error) {
          notice(`Could not delete “${doc.name}”: ${error.message}`);
        }
        await refreshDocuments();
        $("files").focus();
      });
      actions.replaceChildren(yes, no);
      no.focus();
    });
    actions.append(remove);
    return row;
  }

  function uploadOne(file, item) {
    return new Promise((resolve) => {
      const form = new FormData();
      form.append("files", file, file.name);
      const request = new XMLHttpRequest();
      request.open("POST", "/v1/documents");
      if (state.key) request.setRequestHeader("Authorization", `Bearer ${state.key}`);
      request.upload.onprogress = (event) => {
        if (!event.lengthComputable) return;
        const percent = Math.round((event.loaded / event.total) * 100);
        item.progress.value = percent;
        item.status.textContent = percent < 100 ? `Uploading… ${percent}%` : "Indexing…";
      };
      request.upload.onload = () => { item.progress.value = 100; item.status.textContent = "Indexing…"; };
      request.onload = () => {
        let body = null;
        try { body = JSON.parse(request.responseText); } catch (_) { /* not JSON */ }
        if (request.status === 201 && body) {
          const failed = body.failed || [];
          const doc = (body.documents || [])[0];
          if (failed.length) finishUpload(item, false, failed[0].error);
          else finishUpload(item, true, `Indexed: ${plural(doc ? doc.chunk_count : body.chunks, "passage")}${body.unchanged ? " (unchanged)" : ""}`);
        } else if (request.status === 401) {
          finishUpload(item, false, "your API key was not accepted; sign in again");
        } else {
          const error = body && body.error;
          const detail = error && error.details && (error.details.failed || [])[0];
          finishUpload(item, false, detail ? detail.error : (error ? error.message : `the server answered ${request.status}`));
        }
        resolve();
      };
      request.onerror = () => { finishUpload(item, false, "the upload was interrupted; try again"); resolve(); };
      request.send(form);
    });
  }

  function finishUpload(item, ok, message) {
    item.node.classList.add(ok ? "done" : "failed");
    item.node.dataset.outcome = ok ? "ok" : "failed";
    item.status.textContent = ok ? message : `Failed: ${message}`;
  }

  async function upload(event) {
    event.preventDefault();
    const input = $("files");
    const files = [...input.files];
    if (!files.length) {
      notice("Choose one or more files to upload.");
      input.focus();
      return;
    }
    notice("");
    input.value = "";
    const list = $("upload-list");
    const items = files.map((file) => {
      const progress = el("progress", { max: "100", value: "0", "aria-label": `Upload of ${file.name}` });
      const status = el("span", { className: "upload-status", text: "Waiting…" });
      const node = el("li", { className: "upload-item", dataset: { file: file.name } },
        el("span", { className: "upload-name", text: `${file.name} (${formatBytes(file.size)})` }), progress, status);
      list.prepend(node);
      return { file, node, progress, status };
    });
    // One request per file: each gets its own progress bar and its own error.
    for (const item of items) {
      item.status.textContent = "Uploading…";
      await uploadOne(item.file, item);
    }
    await refreshDocuments();
  }

  function setUpDropZone() {
    const zone = $("drop-zone");
    zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.classList.add("over"); });
    zone.addEventListener("dragleave", () => zone.classList.remove("over"));
    zone.addEventListener("drop", (event) => {
      event.preventDefault();
      zone.classList.remove("over");
      if (event.dataTransfer && event.dataTransfer.files.length) {
        $("files").files = event.dataTransfer.files;
        $("upload-form").requestSubmit();
      }
    });
  }

  // --- start ------------------------------------------------------------------------------
  async function start() {
    $("signin-form").addEventListener("submit", signIn);
    $("sign-out").addEventListener("click", () => signOut("You are signed out."));
    for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => setView(tab.dataset.view));
    $("ask-form").addEventListener("submit", ask);
    $("question").addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        $("ask-form").requestSubmit();
      }
    });
    $("cancel-button").addEventListener("click", cancel);
    $("new-session").addEventListener("click", newSession);
    $("rename-session").addEventListener("click", startRename);
    $("rename-form").addEventListener("submit", saveRename);
    $("rename-cancel").addEventListener("click", () => { resetSessionHead(); $("rename-session").focus(); });
    $("delete-session").addEventListener("click", askDelete);
    $("delete-no").addEventListener("click", () => { resetSessionHead(); $("delete-session").focus(); });
    $("delete-yes").addEventListener("click", confirmDelete);
    $("upload-form").addEventListener("submit", upload);
    setUpDropZone();
    for (const button of document.querySelectorAll("[data-close]")) {
      button.addEventListener("click", () => button.closest("dialog").close());
    }
    for (const dialog of document.querySelectorAll("dialog")) {
      // A click on the backdrop (outside the panel) closes it, as Escape does.
      dialog.addEventListener("click", (event) => { if (event.target === dialog) dialog.close(); });
    }
    if (window.matchMedia("(max-width: 760px)").matches) $("sessions-box").open = false;

    const saved = sessionStorage.getItem(KEY_STORAGE);
    try {
      if (saved) {
        const result = await probe(saved);
        if (result.ok) { state.key = saved; enter(result.models); return; }
        sessionStorage.removeItem(KEY_STORAGE);
      } else {
        const open = await probe(""); // a server started with --no-auth needs no key
        if (open.ok) { state.key = ""; enter(open.models); return; }
      }
    } catch (_) {
      setError($("signin-error"), "The service cannot be reached; check the connection and reload.");
    }
    setView("signin");
    $("api-key").focus();
  }

  document.addEventListener("DOMContentLoaded", start);
})();
