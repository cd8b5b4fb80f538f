"""`Citeline`: the library's front door. The CLI, the HTTP service and MCP server all use it."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeline.agent.events import Event, EventSink

if TYPE_CHECKING:
    from citeline.agent.graph import AgentGraph
from citeline.agent.result import AgentResult
from citeline.cache import Cache, LayeredCache, MemoryCache, StoreCache
from citeline.config import Settings
from citeline.index.embedder import Embedder, get_embedder
from citeline.index.store import DocumentRecord, Store, open_store
from citeline.ingest import IngestReport, ProgressCallback, ingest_paths
from citeline.llm.base import Policy, create_policy
from citeline.retrieval import Retriever, SearchOutcome


class Citeline:
    """One configured instance: a store, an embedder, caches and the answerers.

    >>> app = Citeline(Settings(home=tmp_path))
    >>> app.ingest([Path("docs")])
    >>> result = app.ask("How do I set a timeout?")
    """

    def __init__(self, settings: Settings | None = None, *, cache: Cache | None = None, **overrides: Any) -> None:
        base = settings or Settings()
        self.settings = base.with_overrides(**overrides) if overrides else base
        self._store: Store | None = None
        self._embedder: Embedder | None = None
        self._retriever: Retriever | None = None
        self._policies: dict[str, Policy] = {}
        self._graphs: dict[str, AgentGraph] = {}
        self._lock = threading.Lock()
        self._cache = cache

    # --- lazily built parts (a CLI `ask ""` must not load a model or open the index) -----
    @property
    def store(self) -> Store:
        with self._lock:
            if self._store is None:
                self._store = open_store(self.settings.store_url)
            return self._store

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = get_embedder(
                    self.settings.embedder, self.settings.embed_batch_size, self.settings.embed_threads
                )
            return self._embedder

    @property
    def cache(self) -> Cache:
        """Retrieval and answer caches: memory in front of the store's own key/value table, so a
        second process asking the same question of the same corpus is served from cache."""
        if self._cache is None:
            self._cache = LayeredCache(MemoryCache(), StoreCache(self.store))
        return self._cache

    @property
    def retriever(self) -> Retriever:
        if self._retriever is None:
            self._retriever = Retriever(self.store, self.embedder, self.settings, self.cache)
        return self._retriever

    def policy(self, spec: str | None = None) -> Policy:
        spec = spec or self.settings.model
        if spec.startswith("scripted"):
            return create_policy(spec, self.settings, self.retriever)  # a script replays per run
        with self._lock:
            cached = self._policies.get(spec)
        if cached is None:
            cached = create_policy(spec, self.settings, self.retriever)
            with self._lock:
                self._policies[spec] = cached
        return cached

    def graph(self, spec: str | None = None) -> AgentGraph:
        """The compiled agent graph for an answerer (compiled once per answerer and instance)."""
        from citeline.agent.graph import AgentGraph
        from citeline.llm.extractive import ExtractiveAnswerer

        spec = spec or self.settings.model
        policy = self.policy(spec)
        with self._lock:
            graph = self._graphs.get(spec)
            if graph is not None and graph.policy is policy:
                return graph
        synthesiser = ExtractiveAnswerer(self.settings, self.embedder)  # grounded fallback answers
        graph = AgentGraph(policy, self.retriever, synthesiser.compose)
        if not spec.startswith("scripted"):
            with self._lock:
                self._graphs[spec] = graph
        return graph

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
        return ingest_paths(
            [Path(p) for p in paths], store=self.store, embedder=self.embedder, settings=self.settings,
            owner=owner or self.settings.owner, include=include, exclude=exclude, progress=progress,
            sources=sources,
        )

    def documents(self, owner: str | None = None) -> list[DocumentRecord]:
        return self.store.list_documents(owner or self.settings.owner)

    def delete_document(self, document_id: str, owner: str | None = None) -> bool:
        return self.store.delete_document(owner or self.settings.owner, document_id)

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
        return self.retriever.search(owner or self.settings.owner, query, top_k=top_k,
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
    ) -> AgentResult:
        from citeline.agent.runner import run_agent

        return run_agent(
            self, question, owner=owner or self.settings.owner, model=model, history=history or [],
            on_event=on_event, cancelled=cancelled, query_id=query_id or uuid.uuid4().hex,
        )

    async def aask(self, question: str, **kwargs: Any) -> AgentResult:
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
            return await arun_agent(
                self, text, owner=owner or self.settings.owner, model=model, history=history or [],
                on_event=None, cancelled=None, query_id=uuid.uuid4().hex, config=config,
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
        if self._store is not None:
            self._store.close()
