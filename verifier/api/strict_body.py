"""Request bodies read as strict JSON (rlvr_contract/strict_json.py) on the routes that take one.

NaN, Infinity and nesting past the documented depth are 422s naming the field, in the shape of
every other validation error, instead of values that slip through (or a 400 or 500).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import HTTPException, Request, Response, status
from fastapi.routing import APIRoute

from rlvr_contract import strict_json


class RefusedBody(HTTPException):
    """A body strict JSON refuses; rendered like a RequestValidationError (see api/app.py)."""

    def __init__(self, refused: strict_json.JSONRefused) -> None:
        super().__init__(status.HTTP_422_UNPROCESSABLE_CONTENT, str(refused))
        self.errors = [{"loc": ["body", *refused.path], "msg": refused.reason,
                        "type": "json_refused"}]


class StrictJSONRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            try:
                self._json = strict_json.loads(await self.body())
            except strict_json.JSONRefused as exc:
                raise RefusedBody(exc) from None
        return self._json


class StrictJSONRoute(APIRoute):
    """An APIRoute whose handler reads the body with StrictJSONRequest."""

    def get_route_handler(self) -> Callable[[Request], Awaitable[Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(StrictJSONRequest(request.scope, request.receive))

        return strict
