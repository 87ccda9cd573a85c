"""The pairing and devices routes (the rules are in :mod:`controller.web.pairing`):

- ``POST /api/pair``: ``{"code": "123456", "seat": "white" | "black" | "both", "name": "..."}``
  -> 200 ``{"ok": true, "seat": ..., "device": {...}}`` and the session cookie; 400 for a
  malformed request, 403 for a wrong or expired code, 429 (``Retry-After``) when throttled.
- ``POST /api/pair/request``: prints a pairing code on the table's terminal; a device paired
  for both seats or a script with the token also gets it (``"code"``).
- ``GET /api/devices``: the paired devices (``"this"`` marks the asking one); paired only.
- ``POST /api/devices/ID/revoke``: ends that device's session; paired only; 404 when unknown.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from controller.i18n import Msg, in_every_language
from controller.web.pairing import Pairing, Refused, Who, clean_name, device_name

if TYPE_CHECKING:
    from starlette.responses import JSONResponse

MAX_PAIR_BODY = 4096
COOKIE_AGE = 400 * 24 * 3600  # browsers keep a cookie at most about this long


def client(request: Any) -> str:
    """The client's address ('' when unknown)."""
    return request.client.host if request.client is not None else ""


def refused(exc: Refused) -> JSONResponse:
    from starlette.responses import JSONResponse

    headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
    return JSONResponse(exc.body(), status_code=exc.status,
                        headers=headers)


NOT_PAIRED = Refused(403, Msg("this device is not paired: pair it with the code the table "
                                  "shows"))


def pairing_routes(pairing: Pairing, cookie: Callable[[], str],
                   who: Callable[[Any], Who | None]) -> list[Any]:
    """The routes of the module docstring; ``cookie()`` is the session cookie's name and
    ``who(request)`` tells who sent a request."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    async def pair(request: Request) -> Response:
        wait = pairing.throttled(client(request))
        if wait:
            return refused(Refused(429, Msg("too many wrong codes: wait {wait} s", wait=wait),
                                   wait))
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_PAIR_BODY:
                return refused(Refused(413, Msg("a pairing request is a small JSON object")))
        try:
            data = json.loads(body or b"null")
        except ValueError:
            data = None
        if not isinstance(data, dict):
            return refused(Refused(400, Msg("send {example}", example='{"code": "123456", '
                                            '"seat": "white", "black" or "both"}')))
        name = clean_name(data.get("name")) or device_name(request.headers.get("user-agent", ""))
        try:
            device, session = pairing.pair(data.get("code"), data.get("seat"), name,
                                           client(request))
        except Refused as exc:
            return refused(exc)
        pairing.announce(f"paired: {device.name} ({device.seat})")
        response = JSONResponse({"ok": True, "seat": device.seat, "device": device.public()})
        response.set_cookie(cookie(), session, max_age=COOKIE_AGE, httponly=True,
                            samesite="strict")
        return response

    async def request_code(request: Request) -> Response:
        sender = who(request)
        try:
            code = pairing.request_code(client(request), sender)
        except Refused as exc:
            return refused(exc)
        detail = Msg("the pairing code is on the table's screen (its terminal or journal)")
        answer: dict[str, Any] = {"ok": True, "detail": detail,
                                  "details": in_every_language(detail)}
        if sender is not None and sender.seat == "both":
            answer["code"] = code
        return JSONResponse(answer, headers={"Cache-Control": "no-store"})

    async def devices(request: Request) -> Response:
        sender = who(request)
        if sender is None:
            return refused(NOT_PAIRED)
        mine = sender.device.id if sender.device is not None else None
        listed = [dict(d.public(), this=d.id == mine) for d in pairing.devices()]
        return JSONResponse({"devices": listed}, headers={"Cache-Control": "no-store"})

    async def revoke(request: Request) -> Response:
        sender = who(request)
        if sender is None:
            return refused(NOT_PAIRED)
        device_id = request.path_params["device"]
        if not pairing.revoke(device_id):
            return refused(Refused(404, Msg("no paired device {device_id!r}",
                                               device_id=device_id)))
        pairing.announce(f"revoked: device {device_id}")
        response = JSONResponse({"ok": True})
        if sender.device is not None and sender.device.id == device_id:
            response.delete_cookie(cookie(), httponly=True, samesite="strict")
        return response

    return [
        Route("/api/pair", pair, methods=["POST"]),
        Route("/api/pair/request", request_code, methods=["POST"]),
        Route("/api/devices", devices, methods=["GET"]),
        Route("/api/devices/{device}/revoke", revoke, methods=["POST"]),
    ]
