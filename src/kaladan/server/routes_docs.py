"""The interactive API documentation, ``/docs`` (Swagger UI) and ``/redoc`` (ReDoc), from
vendored files (static/vendor/README.md): FastAPI's own pages load them from a CDN and start
Swagger UI with an inline script, which the Content-Security-Policy would refuse."""

from __future__ import annotations

from html import escape

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

router = APIRouter(include_in_schema=False)

# Scripts from this server only, as for the UI. ReDoc builds its styles at run time
# (styled-components inserts <style> elements) and searches in a worker made from a blob:
# so its page allows inline styles (not scripts) and blob: workers; Swagger UI needs neither.
SWAGGER_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; "
                  "img-src 'self' data:; connect-src 'self'; object-src 'none'; "
                  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
REDOC_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                "img-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; "
                "object-src 'none'; base-uri 'none'; form-action 'self'; "
                "frame-ancestors 'none'")

SWAGGER_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title} - Swagger UI</title>
<link rel="stylesheet" href="{root}/static/vendor/swagger-ui/swagger-ui.css">
<link rel="stylesheet" href="{root}/static/docs/docs.css">
<link rel="icon" href="{root}/static/favicon.svg" type="image/svg+xml">
</head>
<body>
<div id="swagger-ui" data-openapi="{openapi}"></div>
<script src="{root}/static/vendor/swagger-ui/swagger-ui-bundle.js"></script>
<script src="{root}/static/docs/swagger-init.js"></script>
</body>
</html>
"""

REDOC_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} - ReDoc</title>
<link rel="stylesheet" href="{root}/static/docs/docs.css">
<link rel="icon" href="{root}/static/favicon.svg" type="image/svg+xml">
</head>
<body>
<redoc spec-url="{openapi}"></redoc>
<script src="{root}/static/vendor/redoc/redoc.standalone.js"></script>
</body>
</html>
"""


def _page(request: Request, template: str, policy: str) -> HTMLResponse:
    root = escape(request.scope.get("root_path", "").rstrip("/"))
    openapi = root + escape(request.app.openapi_url or "/openapi.json")
    html = template.format(title=escape(request.app.title), root=root, openapi=openapi)
    return HTMLResponse(html, headers={"Content-Security-Policy": policy})


@router.get("/docs")
async def swagger_ui(request: Request) -> HTMLResponse:
    return _page(request, SWAGGER_PAGE, SWAGGER_POLICY)


@router.get("/redoc")
async def redoc(request: Request) -> HTMLResponse:
    return _page(request, REDOC_PAGE, REDOC_POLICY)
