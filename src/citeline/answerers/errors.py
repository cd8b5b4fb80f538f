"""Mapping OpenAI-client failures to `ProviderError` kinds (the graph decides retries from them).

Messages name the cause and the fix and never carry secrets: the API key is redacted from
anything a server echoes back.
"""

from __future__ import annotations

import re
from typing import Any

from citeline.agent.actions import ProviderError
from citeline.retry import retry_after_seconds

_CONTEXT = re.compile(r"context[ _-]?(length|window)|maximum context|too many tokens|prompt is too long|"
                      r"exceed(s|ed)? .{0,40}(context|tokens)", re.IGNORECASE)
_CAPABILITY_TOPIC = re.compile(r"tool|function|stream|response_format|json_schema|schema|json_object",
                               re.IGNORECASE)
_CAPABILITY_VERDICT = re.compile(
    r"not (be )?support|unsupported|unknown|unrecogni[sz]ed|not allowed|not permitted|extra (fields|inputs)|"
    r"invalid|does not support",
    re.IGNORECASE,
)
MESSAGE_CHARS = 240


def _server_message(exc: Any, secret: str | None) -> str:
    body = getattr(exc, "body", None)
    message = ""
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = str(inner.get("message", "") if isinstance(inner, dict) else inner)
    message = message or str(getattr(exc, "message", "") or exc)
    if secret:
        message = message.replace(secret, "***")
    return " ".join(message.split())[:MESSAGE_CHARS]


_WINDOW = re.compile(r"(?:maximum context length|context window)(?: of| is)?\s*(\d{3,7})", re.IGNORECASE)


def context_window_from(exc: BaseException) -> int | None:
    """The context window a server states in a context-length error, if it states one."""
    if getattr(exc, "status_code", None) not in {400, 413}:
        return None
    match = _WINDOW.search(_server_message(exc, None))
    return int(match.group(1)) if match else None


def capability_error(exc: BaseException) -> str | None:
    """Which request feature the server rejected: `tools`, `stream`, `stream_options`,
    `response_format`; None when the failure is not about a feature."""
    status = getattr(exc, "status_code", None)
    if status not in {400, 404, 415, 422, 500, 501}:
        return None
    message = _server_message(exc, None)
    if "stream_options" in message:
        return "stream_options"
    topic = _CAPABILITY_TOPIC.search(message)
    if topic is None or not _CAPABILITY_VERDICT.search(message):
        return None
    word = topic.group(0).lower()
    if word in {"tool", "function"}:
        return "tools"
    return "stream" if word == "stream" else "response_format"


def map_openai_error(exc: BaseException, *, model: str, base_url: str, secret: str | None) -> ProviderError:
    """A provider failure as a `ProviderError` the graph knows how to handle (retry, rate limit, time
    out, give up) with a message and fix for the user; `secret` is redacted from anything the
    server echoed."""
    import httpx
    import openai

    where = f"{base_url} (model `{model}`)"
    if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
        return ProviderError("timeout", f"{where} did not answer in time")
    if isinstance(exc, openai.APIConnectionError | httpx.TransportError):
        return ProviderError("server", f"cannot reach {where}: connection failed or was reset")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        detail = _server_message(exc, secret)
        if status == 429:
            return ProviderError("rate_limit", f"{where} is rate limiting (429): {detail}",
                                 retry_after=retry_after_seconds(exc.response.headers), status=status)
        if status == 401:
            return ProviderError("auth", f"{where} rejected the API key (401): check OPENAI_API_KEY",
                                 status=status)
        if status == 403:
            return ProviderError("auth", f"{where} denied access (403): the key lacks permission for "
                                 "this model", status=status)
        if status == 404:
            return ProviderError("bad_request", f"{where}: not found (404); check the model name and "
                                 "that the base URL ends in /v1 (`citeline doctor` lists the served models)",
                                 status=status)
        if status == 413 or _CONTEXT.search(detail):
            return ProviderError("context_length", f"{where}: the prompt is too long for the model: {detail}",
                                 status=status)
        if status >= 500:
            return ProviderError("server", f"{where} failed ({status}): {detail}", status=status)
        return ProviderError("bad_request", f"{where} refused the request ({status}): {detail}", status=status)
    if isinstance(exc, openai.APIResponseValidationError | openai.APIError):
        detail = _server_message(exc, secret)
        return ProviderError("server", f"{where} sent a response citeline cannot read: {detail}")
    raise exc


def describe(error: ProviderError) -> str:
    """How to fix a provider failure, for `citeline doctor`."""
    return error.hint
