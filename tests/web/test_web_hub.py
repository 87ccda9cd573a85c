"""StateHub and Publisher: every state in order, the whole state first, spectators' variant."""

from __future__ import annotations

import asyncio
import json

from controller.table.session import TableController
from controller.web.bridge import Publisher
from controller.web.hub import QUEUE_SIZE, StateHub, public_state
from hardware.events import ButtonEvent, SnapshotEvent


def _drain(sub) -> list:
    out = []
    while not sub.queue.empty():
        out.append(sub.queue.get_nowait())
    return out


def test_a_late_subscriber_gets_the_whole_state_first_then_every_change_in_order() -> None:
    async def main() -> None:
        hub = StateHub()
        hub.bind(asyncio.get_running_loop())
        hub.publish({"ply": 0})
        await asyncio.sleep(0)
        late = hub.subscribe(paired=True)
        for ply in range(1, 6):
            hub.publish({"ply": ply})
        await asyncio.sleep(0)
        msgs = _drain(late)
        assert [json.loads(m.full)["ply"] for m in msgs] == [0, 1, 2, 3, 4, 5]
        assert [m.seq for m in msgs] == sorted(m.seq for m in msgs)
        assert msgs[-1].sse(True).startswith(b"id: %d\nevent: state\ndata: {" % msgs[-1].seq)

    asyncio.run(main())


def test_publishing_from_another_thread_keeps_the_order() -> None:
    import threading

    async def main() -> None:
        hub = StateHub()
        hub.bind(asyncio.get_running_loop())
        sub = hub.subscribe(paired=False)
        t = threading.Thread(target=lambda: [hub.publish({"n": i}) for i in range(40)])
        t.start()
        while t.is_alive() or sub.queue.qsize() < 40:
            await asyncio.sleep(0.001)
        assert [json.loads(m.public)["n"] for m in _drain(sub)] == list(range(40))

    asyncio.run(main())


def test_a_page_that_falls_behind_skips_to_the_newest_state() -> None:
    async def main() -> None:
        hub = StateHub()
        hub.bind(asyncio.get_running_loop())
        sub = hub.subscribe(paired=True)
        for i in range(QUEUE_SIZE + 10):
            hub.publish({"n": i})
        await asyncio.sleep(0)
        msgs = _drain(sub)
        assert json.loads(msgs[-1].full)["n"] == QUEUE_SIZE + 9
        assert sub.skipped > 0 and len(msgs) <= QUEUE_SIZE

    asyncio.run(main())


def test_spectators_do_not_see_hints_or_analysis_unless_shared() -> None:
    state = {"roles": {"A1": "movable", "B1": "last"}, "analysis": {"best": "A1B1"}, "ply": 50}
    hidden = public_state(state, share_hints=False)
    assert hidden["roles"] == {"B1": "last"} and hidden["analysis"] is None
    assert public_state(state, share_hints=True) == state

    async def main() -> None:
        hub = StateHub()
        hub.bind(asyncio.get_running_loop())
        hub.publish(state)
        await asyncio.sleep(0)
        assert json.loads(hub.latest.public)["roles"] == {"B1": "last"}
        assert json.loads(hub.latest.full)["roles"]["A1"] == "movable"
        hub.set_share_hints(True)
        await asyncio.sleep(0)
        assert json.loads(hub.latest.public)["roles"]["A1"] == "movable"

    asyncio.run(main())


def test_closing_ends_every_stream() -> None:
    async def main() -> None:
        hub = StateHub()
        hub.bind(asyncio.get_running_loop())
        sub = hub.subscribe(paired=True)
        hub.close()
        assert _drain(sub) == [None]
        assert _drain(hub.subscribe(paired=True)) == [None]

    asyncio.run(main())


def test_the_publisher_sends_each_change_of_the_controller_once() -> None:
    hub = StateHub()
    ctl = TableController()
    pub = Publisher(hub)
    pub.attach(ctl)
    assert pub.published == 1
    ctl.handle(SnapshotEvent(0.0, "." * 49))
    n = pub.published
    ctl.handle(ButtonEvent(0.1, "next"))  # nothing to choose: no change, nothing sent
    assert pub.published == n
    ctl.handle(ButtonEvent(0.2, "hint"))  # the hints flag is part of the state
    assert pub.published == n + 1 and hub.state is not None and hub.state["hints"] is True


def test_a_computer_hint_is_hidden_from_spectators_roles_blink_and_message() -> None:
    state = {"analysis": {"best": "C3D3", "score": 2.0, "depth": 3, "cuts": ["E5"]},
             "roles": {"C3": "suggest", "D3": "suggest", "E5": "remove", "B1": "last"},
             "blink": ["E5"], "message": "White to move | hint: C3D3 (+2.0 pieces) cuts off E5"}
    hidden = public_state(state, share_hints=False)
    assert hidden == {"analysis": None, "roles": {"B1": "last"}, "blink": [],
                      "message": "White to move"}
    assert state["roles"]["E5"] == "remove"  # the players' variant is untouched
