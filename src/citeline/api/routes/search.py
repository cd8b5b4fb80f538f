"""`/v1/search`: hybrid search over the caller's documents."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from citeline.api import models as m
from citeline.api import presenters
from citeline.api.dependencies import CurrentUser, ServiceDep
from citeline.api.openapi import COMMON_ERRORS
from citeline.api.service import search as searching

router = APIRouter(prefix="/v1", responses=COMMON_ERRORS, tags=["retrieval"])


@router.post("/search", response_model=m.SearchResponse)
async def search(body: m.SearchBody, user: CurrentUser, svc: ServiceDep) -> m.SearchResponse:
    """Hybrid search (BM25 and embeddings together) over the caller's documents."""
    outcome = await run_in_threadpool(searching.search, svc, user.id, body.query, top_k=body.topK,
                                      document_ids=body.documentIds, filters=body.filters)
    return presenters.search_response(svc, user.id, outcome)
