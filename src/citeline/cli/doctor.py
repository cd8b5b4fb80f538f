"""`citeline doctor`: check the index, the embedder and the configured model provider, and say
how to fix whatever is wrong. Exit 0 when everything works, 2 otherwise."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from citeline.errors import CitelineError

if TYPE_CHECKING:
    from citeline.config import Settings
    from citeline.index.embedder import Embedder


@dataclass
class Check:
    """The outcome of one `citeline doctor` check, with the fix when it failed."""

    name: str
    ok: bool
    detail: str
    fix: str = ""


def check_index(settings: Settings, owner: str) -> Check:
    """Whether the index opens and what it holds (without creating an empty one where none exists)."""
    url = settings.index.store_url
    if url.startswith("sqlite:"):
        path = Path(url.removeprefix("sqlite:")).expanduser()
        if not path.is_file():  # opening the store would create an empty one: look first
            return Check(
                "index", False, f"no index at {path}", "run `citeline ingest PATH` to index documents"
            )
    from citeline.index.store import open_store

    try:
        store = open_store(url)
        documents, chunks = store.counts(owner)
        recorded = store.embedder_identity()
        store.close()
    except CitelineError as exc:
        return Check(
            "index", False, f"cannot open the index: {exc.message}", exc.hint or "check CITELINE_STORE"
        )
    if documents == 0:
        return Check(
            "index", False, f"the index has no documents for owner `{owner}`", "run `citeline ingest PATH`"
        )
    embedded = f"; vectors of {recorded.describe()}" if recorded else ""
    return Check("index", True, f"{documents} documents, {chunks} chunks{embedded}")


def check_embedder(settings: Settings) -> Check:
    """Whether the configured embedder loads and embeds offline."""
    from citeline import plugins
    from citeline.index.embedder import embedder_for

    plugins.use_modules(settings.index.plugins)  # an embedder from a CITELINE_PLUGINS module, as the app loads it
    try:
        embedder = embedder_for(settings)
        embedder.embed(["doctor"])
        _check_index_embedder(settings, embedder)
    except CitelineError as exc:
        return Check("embedder", False, exc.message, exc.hint or "run `make install`")
    return Check("embedder", True, f"{settings.index.embedder} loads and embeds ({embedder.dim} dimensions)")


def _check_index_embedder(settings: Settings, embedder: Embedder) -> None:
    """Raise EmbedderMismatchError when an existing index holds another embedder's vectors."""
    from citeline.index.embedder import check_identity
    from citeline.index.store import open_store

    url = settings.index.store_url
    if url.startswith("sqlite:") and not Path(url.removeprefix("sqlite:")).expanduser().is_file():
        return  # no index yet: any embedder may start it
    store = open_store(url)
    try:
        check_identity(store.embedder_identity(), embedder)
    finally:
        store.close()


def check_tokenizer() -> Check:
    """Whether token counting works offline (the encoding table ships with the package)."""
    from citeline.agent.context import count_tokens

    try:
        count_tokens("doctor")
    except CitelineError as exc:
        return Check("tokenizer", False, exc.message, exc.hint or "reinstall citeline")
    return Check("tokenizer", True, "tiktoken cl100k_base available offline")


def check_provider(settings: Settings, spec: str) -> list[Check]:
    """Whether the answerer a model spec names can be reached and used (a test request for remote
    models)."""
    prefix, _, argument = spec.partition(":")
    if prefix in {"extractive", "scripted"}:
        return [Check("model", True, f"`{spec}` needs no model provider")]
    try:
        if prefix == "openai":
            return _check_openai(settings, argument)
        if prefix in {"local", "gguf"}:
            return [_check_gguf(argument if prefix == "gguf" else "")]
    except CitelineError as exc:
        return [Check("model", False, exc.message, exc.hint or "")]
    return [
        Check(
            "model",
            False,
            f"unknown model `{spec}`",
            "use extractive | scripted:PATH | local | gguf:PATH | openai:MODEL",
        )
    ]


def _check_openai(settings: Settings, argument: str) -> list[Check]:
    from citeline.answerers.openai_provider import OpenAIAnswerer

    model, _, mode = argument.partition("#")
    answerer = OpenAIAnswerer(model, settings, tool_mode=mode if mode in {"tools", "json", "quotes"} else "auto")  # type: ignore[arg-type]
    return [Check("model", ok, what, fix) for ok, what, fix in answerer.probe()]


def _check_gguf(path_text: str) -> Check:
    from citeline.answerers.llama_runtime import bundled_model_path, require_llama_cpp

    llama_cpp = require_llama_cpp()
    path = Path(path_text).expanduser() if path_text else bundled_model_path()
    if not path.is_file():
        return Check("model", False, f"no GGUF model at {path}", "pass an existing file: --model gguf:PATH")
    with path.open("rb") as handle:
        if handle.read(4) != b"GGUF":
            return Check("model", False, f"{path} is not a GGUF file", "download the model's .gguf file")
    return Check(
        "model",
        True,
        f"{path.name} ({path.stat().st_size / 1e6:.0f} MB), llama-cpp-python "
        f"{getattr(llama_cpp, '__version__', '?')}",
    )


def doctor(
    model: Annotated[
        str | None, typer.Option("--model", help="Model to check (default: the `model` setting).")
    ] = None,
    owner: Annotated[
        str | None, typer.Option("--owner", help="Owner id (default: the `owner` setting).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
) -> None:
    """Check the index, the embedder and the model provider, and print how to fix problems."""
    from citeline.config import Settings

    try:
        settings = Settings()
    except ValueError as exc:
        typer.echo(f"error: invalid configuration: {exc}", err=True)
        raise typer.Exit(2) from exc
    checks = [
        check_index(settings, owner or settings.index.owner),
        check_embedder(settings),
        check_tokenizer(),
        *check_provider(settings, model or settings.answerer.model),
    ]
    if as_json:
        sys.stdout.write(
            json.dumps({"ok": all(c.ok for c in checks), "checks": [asdict(c) for c in checks]}) + "\n"
        )
    else:
        for check in checks:
            typer.echo(f"{'ok  ' if check.ok else 'FAIL'}  {check.name}: {check.detail}")
            if not check.ok and check.fix:
                typer.echo(f"      fix: {check.fix}")
    raise typer.Exit(0 if all(c.ok for c in checks) else 2)
