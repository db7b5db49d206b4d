"""Probes for process managers and load balancers (docs/server.md "Operations").

``/healthz`` answers while the process runs (a liveness probe: restart it when it does not);
``/readyz`` only when it can serve games: the database answers with its schema at the newest
migration, and, with several processes, the broker is reached (a readiness probe: send it
no clients meanwhile). Neither is in the OpenAPI schema.
"""

from __future__ import annotations

import asyncio
import os

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from .service import GameService

router = APIRouter(include_in_schema=False)


@router.get("/healthz")
async def healthz() -> JSONResponse:
    return JSONResponse({"status": "alive", "pid": os.getpid()})


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    service: GameService = request.app.state.service
    checks: dict[str, bool] = {}
    try:
        checks["database"] = await asyncio.wait_for(
            asyncio.to_thread(service.store.migrations_current), service.settings.db_timeout)
    except Exception:
        checks["database"] = False
    if service.cluster is not None:
        checks["broker"] = await service.cluster.ready()
    ready = all(checks.values())
    body = {"status": "ready" if ready else "not ready", "checks": checks, "pid": os.getpid()}
    if service.cluster is not None:
        body["process"] = service.cluster.name
    return JSONResponse(body, status_code=200 if ready else 503)
