"""Layers over the table's guidance (the live tutor, the first game's lessons) without growing
the controller: :func:`install` puts an :class:`Overlay` in the controller's ``opponent``
seat, which the BoardView already asks for roles and a message
(:func:`controller.table.guide.compose`). The overlay answers for the computer players it
wraps (every other attribute is theirs) and adds each layer's roles and message after them.

A layer has ``roles(ctl, lifted, shown) -> (roles, blink mask)`` (``shown``: the roles the
table shows so far, which a layer may leave alone) and ``message(ctl) -> str``; the first
layer that has ``state()`` gives the published state's ``tutor`` (controller.publish).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.i18n import Msg

if TYPE_CHECKING:
    from controller.table.session import TableController


class Overlay:
    """The computer players (``inner``, an Opponent) with layers over their guidance."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.layers: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        if name in ("inner", "layers"):  # (not set yet: during unpickling or copying)
            raise AttributeError(name)
        return getattr(self.inner, name)

    def roles(self, ctl: TableController, lifted: int | None) -> tuple[dict[int, str], int]:
        roles, blink = self.inner.roles(ctl, lifted)
        for layer in self.layers:
            extra, lit = layer.roles(ctl, lifted, roles)
            roles.update(extra)
            blink |= lit
        return roles, blink

    def message(self, ctl: TableController) -> str:
        parts = [self.inner.message(ctl)]
        parts += [layer.message(ctl) for layer in self.layers]
        return Msg.joined(" | ", [p for p in parts if p])

    def tutor_state(self) -> dict[str, Any] | None:
        """The published ``tutor`` state (controller.publish), None without a tutor."""
        for layer in self.layers:
            state = getattr(layer, "state", None)
            if state is not None:
                return dict(state())
        return None


def install(ctl: TableController, layer: Any) -> Overlay:
    """Put ``layer`` over ``ctl``'s guidance (an Opponent for two people is made when the
    table has none: it only answers *hint*)."""
    current = ctl.opponent
    if isinstance(current, Overlay):
        current.layers.append(layer)
        return current
    if current is None:
        from controller.players.opponent import Opponent

        current = Opponent("human", "human")
        current.attach(ctl)
    overlay = Overlay(current)
    overlay.layers.append(layer)
    ctl.opponent = overlay
    return overlay
