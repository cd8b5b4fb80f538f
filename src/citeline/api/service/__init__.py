"""The service layer of the HTTP API: what the routes ask for, without HTTP.

`core` holds the running `Service` (library instance, users, sessions, limits, metrics, run
execution). The other modules hold what one resource's routes do with it: `answering` (agent
runs, event streams, chat completions), `search`, `documents`, `uploads`, `sessions`, `runs_log`
and `health`. They take plain values and return library objects or raise `ApiError`; turning
those into response models is the job of `citeline.api.presenters`, and reading requests the job
of the routers in `citeline.api.routes`.
"""

from citeline.api.service.core import (
    DEFAULT_MODEL_ID,
    UPLOAD_SCHEME,
    QueryIdFilter,
    RunHandle,
    RunPlan,
    Service,
    iso,
    query_id_var,
    sanitize_filename,
)
from citeline.text import EscapeControlsFilter

__all__ = [
    "DEFAULT_MODEL_ID",
    "UPLOAD_SCHEME",
    "EscapeControlsFilter",
    "QueryIdFilter",
    "RunHandle",
    "RunPlan",
    "Service",
    "iso",
    "query_id_var",
    "sanitize_filename",
]
