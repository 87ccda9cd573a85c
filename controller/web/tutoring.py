"""The live tutor's requests from the page: ``POST /api/tutor/NAME`` with NAME ``takeback``
(the erring side asks to take its marked action back), ``allow`` / ``refuse`` (a person
opponent answers), ``on`` / ``off`` (the tutor's switch). Only from a paired device (or a
script's token); a device paired for one seat acts for that seat (``?seat=w|b`` for a device
of both). The command goes to the table's thread like a button (bridge.ControlSource, its
``tutor`` handler: controller.players.tutor.Tutor.command); 404 without a tutor."""

from __future__ import annotations

import json
from typing import Any

from controller.i18n import Msg, in_every_language
from controller.web.bridge import Command, InboxFull
from controller.web.pairing import refusal_body

NAMES = ("takeback", "allow", "refuse", "on", "off")


def tutor_routes(server: Any, answer_of: Any) -> list[Any]:
    """The route of ``server`` (a WebServer) for the tutor's requests (``answer_of``: the
    server's wait for a command's answer)."""
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    def refuse(status: int, detail: str) -> Response:
        return JSONResponse(refusal_body(detail), status_code=status)

    async def tutor(request: Any) -> Response:
        sender = server.who(request)
        if sender is None:
            return refuse(403, Msg("this device is not paired: pair it with the code the "
                                   "table shows (scripts: the X-Dvonn-Token header)"))
        name = request.path_params["name"]
        latest = server.hub.latest
        state = json.loads(latest.json(True)) if latest is not None else {}
        if name not in NAMES or server.inbox is None or not state.get("tutor"):
            return refuse(404, Msg("no tutor command {name!r}", name=name))
        seat = request.query_params.get("seat", "")
        if seat not in ("", "w", "b"):
            return refuse(400, Msg("seat {seat!r} is not w or b", seat=seat))
        seat = sender.side or seat
        try:
            future = server.inbox.put(Command("tutor", name, seat))
        except InboxFull:
            return refuse(503, Msg("the table did not answer; the command was dropped"))
        answer = await answer_of(future)
        if answer is None:
            return refuse(503, Msg("the table did not answer; the command was dropped"))
        if not answer.get("ok") and isinstance(answer.get("detail"), str):
            answer = dict(answer, details=in_every_language(answer["detail"]))
        return JSONResponse(answer, status_code=200 if answer.get("ok") else 409)

    return [Route("/api/tutor/{name}", tutor, methods=["POST"])]
