"""The API's refusals in one shape (docs/protocol.md: `code`, `params`, `message`), for
what FastAPI and Starlette refuse themselves: a body that does not fit its model, an unknown
route, a wrong method."""

from __future__ import annotations

from typing import Any

from fastapi import Request, Response
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException


def bad_request(_request: Request, exc: Exception) -> JSONResponse:
    """A request body or query that does not fit its model, in the shape of every other
    refusal of the API (docs/protocol.md): `bad_request`, the field, and its limits."""
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    first: dict[str, Any] = dict(errors[0]) if errors else {}
    field = ".".join(str(p) for p in first.get("loc", ()) if p not in ("body", "query"))
    params: dict[str, Any] = {"field": field}
    for key, value in (first.get("ctx") or {}).items():
        if isinstance(value, (int, float, str)) and not isinstance(value, bool):
            params[key] = value
    message = f"{field or 'the request'}: {first.get('msg', 'is not valid')}"
    return JSONResponse({"code": "bad_request", "params": params, "message": message},
                        status_code=422)


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (an unknown route, a wrong method) in the API's shape."""
    assert isinstance(exc, StarletteHTTPException)
    if not request.url.path.startswith("/api/"):
        return await http_exception_handler(request, exc)
    if exc.status_code == 400 and exc.detail == "There was an error parsing the body":
        # FastAPI's answer to JSON it could not read but for a syntax error: nested too
        # deep for the parser (RecursionError). A body that does not fit, as any other.
        return JSONResponse({"code": "bad_request", "params": {"field": "body"},
                             "message": "body: JSON nested too deeply to be read"},
                            status_code=422)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    return JSONResponse({"code": code, "params": {"path": request.url.path},
                         "message": str(exc.detail)}, status_code=exc.status_code,
                        headers=getattr(exc, "headers", None))
