"""`/v1/documents`: upload, list, read, open a cited passage, fetch the original file, delete."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Query, Response, UploadFile
from fastapi.responses import FileResponse
from starlette.concurrency import run_in_threadpool

from citeline.api import models as m
from citeline.api import presenters
from citeline.api.dependencies import CurrentUser, ServiceDep
from citeline.api.errors import ErrorBody
from citeline.api.openapi import COMMON_ERRORS, NOT_FOUND, STORE_ERRORS
from citeline.api.service import documents, uploads

router = APIRouter(prefix="/v1", responses=COMMON_ERRORS, tags=["documents"])

# How an original file is sent: formats a browser shows safely inline, everything else as a
# download. HTML and Markdown go out as plain text, so a document's markup never runs as a page
# of this origin.
_INLINE_TYPES = {
    ".pdf": "application/pdf",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
    ".markdown": "text/plain; charset=utf-8",
    ".rst": "text/plain; charset=utf-8",
    ".adoc": "text/plain; charset=utf-8",
    ".asciidoc": "text/plain; charset=utf-8",
    ".html": "text/plain; charset=utf-8",
    ".htm": "text/plain; charset=utf-8",
}


@router.post("/documents", response_model=m.UploadResult, status_code=201, responses={
    409: {"model": ErrorBody, "description": "A file name you already have (send `?replace=true`)."},
    507: {"model": ErrorBody, "description": "The server's storage is full; nothing was stored."}})
async def upload_documents(
    user: CurrentUser,
    files: Annotated[list[UploadFile], File(description="One or more files (.md, .txt, ...).")],
    svc: ServiceDep,
    replace: Annotated[bool, Query(description="Replace your documents of the same file names.")] = False,
) -> m.UploadResult:
    """Upload and index files. A file name you already have with other content is a 409 unless
    `?replace=true`; the same content again is reported unchanged."""
    outcome = await uploads.upload(svc, user, files, replace=replace)
    return presenters.upload_result(svc, outcome)


@router.get("/documents", response_model=m.DocumentList)
async def list_documents(user: CurrentUser, svc: ServiceDep) -> m.DocumentList:
    """Your documents."""
    records = await run_in_threadpool(documents.list_documents, svc, user.id)
    return presenters.document_list(svc, records)


@router.get("/documents/{document_id}", response_model=m.DocumentInfo, responses=NOT_FOUND)
async def get_document(document_id: str, user: CurrentUser, svc: ServiceDep) -> m.DocumentInfo:
    """One of your documents."""
    record = await run_in_threadpool(documents.get_document, svc, user.id, document_id)
    return presenters.document_info(svc, record)


@router.get("/documents/{document_id}/chunks/{chunk_id}", response_model=m.PassageModel, responses=NOT_FOUND)
async def get_chunk(document_id: str, chunk_id: str, user: CurrentUser, svc: ServiceDep) -> m.PassageModel:
    """Open a citation: the exact passage a citation points at."""
    passage = await run_in_threadpool(documents.open_passage, svc, user.id, document_id, chunk_id)
    return presenters.passage_model(svc, user.id, passage)


@router.delete("/documents/{document_id}", status_code=204, responses=NOT_FOUND)
async def delete_document(document_id: str, user: CurrentUser, svc: ServiceDep) -> Response:
    """Delete one of your documents."""
    await run_in_threadpool(documents.delete_document, svc, user.id, document_id)
    return Response(status_code=204)


@router.head("/documents/{document_id}/original", include_in_schema=False)  # "is it there?" for the page
@router.get(
    "/documents/{document_id}/original", response_class=Response,
    responses={**STORE_ERRORS, 200: {"description": "The file the document was indexed from, unchanged.",
                                     "content": {"application/octet-stream": {"schema": {"type": "string",
                                                                                         "format": "binary"}}}}},
)
async def document_original(document_id: str, user: CurrentUser, svc: ServiceDep) -> Response:
    """The original file of a document indexed from a file on the server (not of uploads)."""
    path = await run_in_threadpool(documents.original_file, svc, user.id, document_id)
    media = _INLINE_TYPES.get(path.suffix.lower())
    headers = {"X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox",
               "Cache-Control": "private, no-store"}
    return FileResponse(path, media_type=media or "application/octet-stream", filename=path.name,
                        content_disposition_type="inline" if media else "attachment", headers=headers)
