"""`Citeline`: the library's front door. The CLI, the HTTP service and MCP server all use it."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeline import plugins

if TYPE_CHECKING:
    from citeline.agent.events import Event, EventSink
    from citeline.agent.graph import AgentGraph
    from citeline.agent.result import AgentResult
    from citeline.agent.runner import RunResources
    from citeline.index.embedder import Embedder
    from citeline.index.ingest import IngestReport, ProgressCallback
    from citeline.index.store import DocumentRecord, Store
    from citeline.retrieval import Retriever, SearchOutcome
    from citeline.retrieval.cache import Cache
    from citeline.runs import LogRecorder, RunLog
from citeline.agent.answerer import Answerer, create_answerer
from citeline.agent.clock import SYSTEM_CLOCK, Clock
from citeline.config import Settings


class Citeline:
    """One configured instance: a store, an embedder, caches and the answerers.

    >>> app = Citeline(Settings(home=tmp_path))
    >>> app.ingest([Path("docs")])
    >>> result = app.ask("How do I set a timeout?")
    """

    def __init__(self, settings: Settings | None = None, *, cache: Cache | None = None, **overrides: Any) -> None:
        base = settings or Settings()
        self.settings = base.with_overrides(**overrides) if overrides else base
        # Plugin modules named in the settings join the entry-point plugins, for every command
        # and the service alike (each builds a Citeline); they are imported when first needed.
        plugins.use_modules(self.settings.index.plugins)
        self._store: Store | None = None
        self._embedder: Embedder | None = None
        self._retriever: Retriever | None = None
        self._answerers: dict[str, Answerer] = {}
        self._graphs: dict[str, AgentGraph] = {}
        self._lock = threading.Lock()
        self._cache = cache
        self._runs: RunLog | None = None

    # --- lazily built parts (a CLI `ask ""` must not load a model or open the index) -----
    @property
    def store(self) -> Store:
        """The document index (opened on first use, so commands that need no index never open it)."""
        with self._lock:
            if self._store is None:
                from citeline.index.private import private_dir
                from citeline.index.store import open_store

                # The home holds the index, sessions and staged uploads: private to its owner.
                private_dir(self.settings.index.home)
                self._store = open_store(self.settings.index.store_url)
            return self._store

    @property
    def embedder(self) -> Embedder:
        """The embedding model (loaded on first use, so commands that never embed never load it)."""
        with self._lock:
            if self._embedder is None:
                from citeline.index.embedder import embedder_for

                self._embedder = embedder_for(self.settings)
            return self._embedder

    @property
    def cache(self) -> Cache:
        """Retrieval and answer caches: memory in front of the store's own key/value table, so a
        second process asking the same question of the same corpus is served from cache."""
        if self._cache is None:
            from citeline.retrieval.cache import LayeredCache, MemoryCache, StoreCache

            self._cache = LayeredCache(MemoryCache(), StoreCache(self.store))
        return self._cache

    @property
    def retriever(self) -> Retriever:
        """Hybrid search over the store, with this instance's caches; what tools and `search` go through."""
        if self._retriever is None:
            from citeline.retrieval import Retriever

            self._retriever = Retriever(self.store, self.embedder, self.settings, self.cache)
        return self._retriever

    def answerer(self, spec: str | None = None) -> Answerer:
        """The answerer a model spec names (default: the `model` setting). A shareable answerer
        is built once per instance; one that keeps per-run state is built for every run."""
        spec = spec or self.settings.answerer.model
        with self._lock:
            cached = self._answerers.get(spec)
        if cached is not None:
            return cached
        answerer = create_answerer(spec, self.settings, self.retriever)
        if answerer.shareable:
            with self._lock:
                self._answerers[spec] = answerer
        return answerer

    def graph(self, spec: str | Answerer | None = None) -> AgentGraph:
        """The compiled agent graph for an answerer, named by a model spec or given as an object
        (compiled once per shareable answerer and instance)."""
        from citeline.agent.graph import AgentGraph
        from citeline.answerers.extractive import ExtractiveAnswerer

        key = spec if isinstance(spec, str) else None if spec is not None else self.settings.answerer.model
        answerer = spec if isinstance(spec, Answerer) else self.answerer(key)
        if key is not None:
            with self._lock:
                graph = self._graphs.get(key)
            if graph is not None and graph.answerer is answerer:
                return graph
        synthesiser = ExtractiveAnswerer(self.settings, self.embedder)  # grounded fallback answers
        graph = AgentGraph(answerer, self.retriever, synthesiser.compose)
        if key is not None and answerer.shareable:
            with self._lock:
                self._graphs[key] = graph
        return graph

    def run_resources(self, model: str | Answerer | None = None) -> RunResources:
        """What the runner needs for one run with this answerer (opens the index, loads models)."""
        from citeline.agent.runner import RunResources

        return RunResources(graph=self.graph(model), cache=self.cache, corpus_version=self.store.corpus_version())

    @property
    def runs(self) -> RunLog | None:
        """The runs log under the home (None when the `runs_log` setting is off)."""
        from citeline.runs import open_log

        with self._lock:
            if self._runs is None:
                self._runs = open_log(self.settings)
            return self._runs

    def _recorder(self, origin: Mapping[str, Any] | None) -> LogRecorder | None:
        from citeline.runs import recorder

        runs = self.runs
        if runs is None:
            return None
        origin = origin or {}
        return recorder(runs, self.settings, via=str(origin.get("via", "library")),
                        session_id=origin.get("session_id"))

    # --- documents -----------------------------------------------------------------------
    def ingest(
        self,
        paths: Iterable[Path | str],
        *,
        owner: str | None = None,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        progress: ProgressCallback | None = None,
        sources: Mapping[Path, str] | None = None,
    ) -> IngestReport:
        """`sources` optionally names a file's document otherwise than by its path (see `ingest_paths`)."""
        # Imported here: the loaders and the parse worker are not needed to answer a question.
        from citeline.index.ingest import ingest_paths

        return ingest_paths(
            [Path(p) for p in paths], store=self.store, embedder=self.embedder, settings=self.settings,
            owner=owner or self.settings.index.owner, include=include, exclude=exclude, progress=progress,
            sources=sources,
        )

    def documents(self, owner: str | None = None) -> list[DocumentRecord]:
        """The documents an owner has indexed (default: the configured owner)."""
        return self.store.list_documents(owner or self.settings.index.owner)

    def delete_document(self, document_id: str, owner: str | None = None) -> bool:
        """Remove one of the owner's documents and its passages; False when the owner has no such document."""
        return self.store.delete_document(owner or self.settings.index.owner, document_id)

    def search(
        self,
        query: str,
        *,
        top_k: int | None = None,
        owner: str | None = None,
        document_ids: Sequence[str] | None = None,
        filters: Mapping[str, Any] | None = None,
        with_vector: bool = False,
    ) -> SearchOutcome:
        """Hybrid (BM25 + dense) search of the owner's passages, without answering: what `citeline search` and
        `/v1/search` return."""
        return self.retriever.search(owner or self.settings.index.owner, query, top_k=top_k,
                                     document_ids=document_ids, filters=filters, with_vector=with_vector)

    # --- answering -----------------------------------------------------------------------
    def ask(
        self,
        question: str,
        *,
        owner: str | None = None,
        model: str | None = None,
        history: Sequence[Mapping[str, str]] | None = None,
        on_event: EventSink | None = None,
        cancelled: Callable[[], bool] | None = None,
        query_id: str | None = None,
        answerer: Answerer | None = None,
        origin: Mapping[str, Any] | None = None,
        clock: Clock | None = None,
    ) -> AgentResult:
        """Answer a question from the owner's documents. `model` names the answerer by spec;
        `answerer` passes one directly (e.g. `citeline.testing.FunctionAnswerer`). `origin` says
        where the question came from for the runs log: `via` (cli, http, sse, openai, mcp; default
        library) and `session_id`. `clock` replaces the system clock for the run's time budget
        and waits (e.g. `citeline.testing.ManualClock`, to test time limits without waiting)."""
        from citeline.agent.runner import run_agent

        if question.strip() and len(question) <= self.settings.agent.max_question_chars:
            # Another embedder's index is a configuration error for the caller, not an answer.
            self.retriever.check_embedder()
        chosen = answerer or model
        return run_agent(
            self.settings, lambda: self.run_resources(chosen), question, owner=owner or self.settings.index.owner,
            model=answerer.name if answerer is not None else model, history=history or [],
            on_event=on_event, cancelled=cancelled, query_id=query_id or uuid.uuid4().hex,
            recorder=self._recorder(origin), clock=clock or SYSTEM_CLOCK,
        )

    async def aask(self, question: str, **kwargs: Any) -> AgentResult:
        """`ask` for async code: runs in a worker thread so the event loop keeps serving."""
        return await asyncio.to_thread(self.ask, question, **kwargs)

    async def astream_events(
        self, question: str, *, owner: str | None = None, model: str | None = None,
        history: Sequence[Mapping[str, str]] | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """LangGraph/LangChain `astream_events(version="v2")` of one run: `on_chat_model_stream`,
        `on_tool_start`, `on_tool_end`, `on_custom_event` (`cached_response`) and, last, the
        `on_chain_end` of the `citeline` runnable whose output is the AgentResult."""
        from langchain_core.runnables import RunnableConfig, RunnableLambda

        from citeline.agent.runner import arun_agent

        async def execute(text: str, config: RunnableConfig) -> AgentResult:
            """One run as a LangChain runnable, so LangChain's callbacks see its events."""
            return await arun_agent(
                self.settings, lambda: self.run_resources(model), text, owner=owner or self.settings.index.owner,
                model=model, history=history or [],
                on_event=None, cancelled=None, query_id=uuid.uuid4().hex, config=config,
                recorder=self._recorder(None),
            )

        runnable = RunnableLambda(execute, name="citeline")
        async for event in runnable.astream_events(question, version="v2"):
            yield dict(event)

    async def astream(self, question: str, **kwargs: Any) -> AsyncIterator[Event]:
        """Events as they happen; the last one is always `final` (carrying the AgentResult).
        Closing the iterator early cancels the run (exit CANCELLED)."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        stop = threading.Event()

        def sink(event: Event) -> None:
            """Hand an event from the run's thread to the consuming event loop."""
            loop.call_soon_threadsafe(queue.put_nowait, event)

        task = loop.run_in_executor(
            None, lambda: self.ask(question, on_event=sink, cancelled=stop.is_set, **kwargs)
        )
        task.add_done_callback(lambda _: loop.call_soon_threadsafe(queue.put_nowait, None))
        try:
            while True:
                event = await queue.get()
                if event is None:
                    break
                yield event
            await task  # surfaces an unexpected crash instead of a silent end
        finally:
            stop.set()

    def close(self) -> None:
        """Close the index's connections once the instance is no longer needed."""
        if self._store is not None:
            self._store.close()
