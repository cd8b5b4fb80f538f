"""A recorded run as a readable trace for `citeline logs show` (plain text, never wrapped)."""

from __future__ import annotations

import json
from typing import Any

from citeline.runs import RecordedRun


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe(exchange: dict[str, Any]) -> list[str]:
    kind = exchange.get("kind")
    request = exchange.get("request") or {}
    response = exchange.get("response") or {}
    error = exchange.get("error")
    lines: list[str] = []
    if kind in {"decision", "synthesis"}:
        head = f"turn {request.get('turn')}" + (f", errors to fix: {_short(request['validation_errors'])}"
                                                if request.get("validation_errors") else "")
        if error:
            lines.append(f"{head} -> {error.get('type')}: {_short(error.get('message', ''))}")
        else:
            action = response.get("action") or {}
            if action.get("type") == "tool_call":
                lines.append(f"{head} -> call {action.get('tool')} {_short(action.get('input'))}")
            elif action.get("type") == "final":
                lines.append(f"{head} -> answer {_short(action.get('answer'), 400)}")
            else:
                lines.append(f"{head} -> unusable output ({action.get('reason')}): {_short(action.get('raw'))}")
            prompt, completion = (response.get("usage") or [0, 0])[:2]
            if prompt or completion:
                lines.append(f"    tokens: {prompt} prompt, {completion} completion")
            for model in response.get("model") or []:
                lines.append(f"    model request: {_short(model.get('request'), 300)}")
                lines.append(f"    model response: {_short(model.get('response'), 300)}")
    elif kind == "plan":
        lines.append(f"-> {_short(response.get('plan')) if response.get('plan') else 'no plan (the agent plans)'}")
    elif kind == "retrieval":
        what = (f"search {request.get('query')!r}" + (f" top_k {request['top_k']}" if request.get("top_k") else "")
                if request.get("op") == "search" else f"open {request.get('document_id')}/{request.get('chunk_id')}")
        if error:
            lines.append(f"{what} -> {error.get('type')}: {_short(error.get('message', ''))}")
        elif request.get("op") == "search":
            passages = response.get("passages") or []
            cached = " (from cache)" if response.get("cached") else ""
            lines.append(f"{what} -> {len(passages)} passages{cached}")
            for rank, passage in enumerate(passages, 1):
                where = " › ".join(x for x in (passage.get("document_name"), passage.get("section")) if x)
                lines.append(f"    {rank}. {where}  score {float(passage.get('score') or 0):.3f}  "
                             f"{passage.get('chunk_id')}")
        else:
            passage = response.get("passage")
            lines.append(f"{what} -> " + (f"{len(passage.get('text', ''))} characters of "
                                          f"{passage.get('document_name')}" if passage else "no such passage"))
    elif kind == "tool":
        head = f"{request.get('tool')} {_short(request.get('input'))}"
        if error:
            lines.append(f"{head} -> {error.get('type')}: {_short(error.get('message', ''))}")
        else:
            lines.append(f"{head} -> {_short(response.get('output'))}")
    elif kind == "clock":
        lines.append(f"-> {response.get('stop') or 'continue'}")
    else:
        lines.append(_short({"request": request, "response": response or error}))
    return lines


def render_run(run: RecordedRun) -> str:
    """The run's header, each step, then how it ended (answer and citations)."""
    start, context, end = run.start or {}, run.context or {}, run.end
    out = [f"run {run.run_id}" + (f" (query {start.get('query_id')})" if start.get("query_id") else "")]
    if start:
        out.append(f"  started {start.get('at')} via {start.get('via')}, owner {start.get('owner')}"
                   + (f", session {start['session_id']}" if start.get("session_id") else "")
                   + f", model {start.get('model')}")
        out.append(f"  settings fingerprint {start.get('settings_fingerprint')}"
                   + (f", corpus version {context.get('corpus_version')}" if context else ""))
        out.append(f"  question: {start.get('question')}")
        for message in start.get("history") or []:
            out.append(f"  history {message.get('role')}: {_short(message.get('content'))}")
    else:
        out.append("  (the start record is gone: pruned with an older part of the log)")
    if context.get("cached_from"):
        out.append(f"  answered from the answer cache (query {context['cached_from']} produced it)")
    quiet_clock = 0
    for exchange in run.exchanges:
        if exchange.get("kind") == "clock" and not (exchange.get("response") or {}).get("stop"):
            quiet_clock += 1  # a check that did not stop the run says nothing
            continue
        lines = _describe(exchange)
        out.append(f"step {exchange.get('n')}  {exchange.get('kind'):<9} {exchange.get('ms', 0):>8.1f} ms  {lines[0]}")
        out.extend(f"{'':>33}{line.strip()}" if line.startswith("    ") else line for line in lines[1:])
    if quiet_clock:
        out.append(f"({quiet_clock} time and cancellation checks passed)")
    if end is None:
        out.append("INCOMPLETE: no end record — the process stopped (killed or crashed) before the run ended, "
                   "or it is still running")
    elif end.get("status") == "failed":
        out.append(f"FAILED: {end.get('error')}")
    else:
        result = end.get("result") or {}
        usage = result.get("usage") or {}
        out.append(f"end: {end.get('exit_reason')} in {float(end.get('total_ms') or 0):.0f} ms; tokens "
                   f"{usage.get('prompt_tokens', 0)} prompt, {usage.get('completion_tokens', 0)} completion")
        if result.get("answer"):
            out.append("answer:")
            out.extend(f"  {line}" for line in str(result["answer"]).splitlines())
        for citation in result.get("citations") or []:
            out.append(f"  [{citation.get('id')}] {citation.get('document_name')}"
                       + (f" › {citation['section']}" if citation.get("section") else "")
                       + f": \"{_short(citation.get('quote'), 200)}\"")
    return "\n".join(out) + "\n"
