"""``dvonn-board demo``, ``play`` and ``replay-sensors``: the table's game loop from the shell.

replay-sensors LOG: the log's clock only; prints the final actions one per line, then
``over white=N black=M`` if the game ended; ``--trace`` writes JSON lines on stderr. LOG may be
a camera recording (its folder or its frames.jsonl): the frames go through the camera path.
demo: simulated hands play a whole game on the emulated sensor board (real firmware over a
pseudo-terminal) with the LEDs drawn in the terminal. play: the real table from the config.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO, cast

from controller.cli.numbers import whole
from controller.i18n import Msg, _
from controller.sensorlog import LogRecorder, log_colours, read_log, replay, report
from controller.table.debounce import Timing
from controller.table.session import TableController
from engine.errors import DvonnError


def register(sub: Any) -> None:
    """Add demo, play and replay-sensors."""
    from controller.cli.clocking import add_clock_option
    from controller.cli.publishing import add_publish_option
    from controller.cli.speaking import add_speech_options
    from controller.cli.tutoring import add_tutor_options
    from controller.cli.web import add_web_option

    p = sub.add_parser("replay-sensors", help=_("feed a sensor log or a camera recording "
                                                "through the controller"))
    p.add_argument("log", metavar="PATH", help=_("JSON Lines sensor log, or a camera recording "
                                                  "(its folder or its frames.jsonl)"))
    p.add_argument("--config", metavar="FILE", help=_("a recording's camera geometry and "
                                                     "calibration: this config's [camera] section"))
    p.add_argument("--calibration", metavar="FILE",
                   help=_("a recording's camera calibration (overrides the config's)"))
    p.add_argument("--trace", action="store_true", help=_("JSON lines of roles/prompts on stderr"))
    p.add_argument("--journal", help=_("store the game in this journal file"))
    p.add_argument("--colours", choices=("auto", "on", "off"), default="auto",
                   help=_("top colours known (default: if any snapshot names one; on for a "
                          "camera recording)"))
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("demo", help=_("a whole game on the simulated table"))
    p.add_argument("--fast", action="store_true", help=_("simulated time: done in seconds"))
    p.add_argument("--seed", type=int, default=None, help=_("random seed (default: random)"))
    p.add_argument("--players", default="random",
                   help=_("the hands' own choice: random or greedy; or WHITE,BLACK players "
                          "the hands obey, e.g. ai,greedy (ai[:LEVEL], greedy, random, cmd:...)"))
    p.add_argument("--white", default="human", help=_(
        "human, ai[:LEVEL], cmd:PROGRAM ARGS, remote (a phone; needs --web) or "
        "remote:mqtt://HOST[:PORT]/MATCH (another table)"))
    p.add_argument("--black", default="human", help=_(
        "human, ai[:LEVEL], cmd:PROGRAM ARGS, remote (a phone; needs --web) or "
        "remote:mqtt://HOST[:PORT]/MATCH (another table)"))
    p.add_argument("--no-noise", action="store_true", help=_("no sensor flickers"))
    p.add_argument("--direct", action="store_true",
                   help=_("feed snapshots directly instead of through the emulated board"))
    p.add_argument("--record", help=_("write the sensor log to this file"))
    p.add_argument("--force", action="store_true", help=_("overwrite an existing --record file"))
    p.add_argument("--journal", help=_("store (and resume) the game in this journal file"))
    add_review_option(p)
    add_web_option(p)
    add_publish_option(p)
    add_speech_options(p)
    add_clock_option(p)
    add_tutor_options(p)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("play", help=_("the real table, backends from the config file"))
    p.add_argument("--config", help=_("config file (TOML)"))
    p.add_argument("--record", help=_("write the sensor log to this file (a camera table: a "
                                      "camera recording into this folder)"))
    p.add_argument("--force", action="store_true",
                   help=_("overwrite an existing --record file (or recording folder)"))
    p.add_argument("--record-limit", type=whole(1, 10**7, _("a number of MB")), default=2000,
                   metavar="MB", help=_("a camera recording ends at this size (default 2000)"))
    p.add_argument("--journal", help=_("journal file (default: from the config)"))
    p.add_argument("--white", help=_(
        "human, ai[:LEVEL], cmd:PROGRAM ARGS, remote (a phone; needs --web) or "
        "remote:mqtt://HOST[:PORT]/MATCH (another table); default: config"))
    p.add_argument("--black", help=_(
        "human, ai[:LEVEL], cmd:PROGRAM ARGS, remote (a phone; needs --web) or "
        "remote:mqtt://HOST[:PORT]/MATCH (another table); default: config"))
    add_review_option(p)
    add_web_option(p)
    add_publish_option(p)
    add_speech_options(p)
    add_clock_option(p)
    add_tutor_options(p)
    p.set_defaults(func=cmd_play)


def add_review_option(p: Any) -> None:
    p.add_argument("--review", metavar="GAME",
                   help=_("walk the board through a game instead of playing one: a journal "
                          "game id or a record file (boardspace.net SGF, Little Golem, move "
                          "list, JSON); the LEDs show each action (suggest), the table checks "
                          "it is carried out, next/undo step on and back; nothing is journaled"))


def load_review(args: argparse.Namespace) -> tuple[list[Any], str, str, str]:
    """--review GAME: the record's actions, White's and Black's names and what it is."""
    from controller.cli.analyze import load_game

    moves, facts, _source = load_game(argparse.Namespace(
        game=args.review, journal=args.journal, config=getattr(args, "config", None)))
    return moves, facts["white"] or "White", facts["black"] or "Black", facts["source"]


def say_review(review: tuple[list[Any], str, str, str], out: TextIO) -> None:
    moves, white, black, title = review
    print(f"reviewing {title}: {white} vs {black}, {len(moves)} actions (the LEDs show each "
          "action; next steps on, undo steps back)", file=out, flush=True)


# ----------------------------------------------------------------------- replay-sensors
def cmd_replay(args: argparse.Namespace) -> int:
    from controller.recording import is_recording

    if is_recording(args.log):
        return _replay_recording(args)
    for option in ("config", "calibration"):
        if getattr(args, option) is not None:
            raise DvonnError(Msg("--{option} is for camera recordings; {log} is a sensor log",
                                 option=option, log=args.log))
    events = read_log(args.log)
    colours = {"on": True, "off": False}.get(args.colours)
    if colours is None:
        colours = log_colours(events)
    journal = _open_journal(args.journal)
    try:
        trace = _trace_writer(sys.stderr) if args.trace else None
        ctl = TableController(journal=journal, colours=colours, trace=trace, resume=False,
                              source="replay")
        replay(events, ctl)
        _report(args, ctl)
    finally:
        if journal is not None:
            journal.close()
    return 0


def _replay_recording(args: argparse.Namespace) -> int:
    """replay-sensors on a camera recording. An image that cannot be decoded shows only when
    the replay reaches it, so the journal's writes are held until the replay is done: a bad
    recording changes no file (an existing journal is opened first, for its writer lock)."""
    from controller.cli.journalbuffer import JournalBuffer
    from controller.recording import read_recording, replay_recording

    recording = read_recording(args.log)
    reader = _recording_reader(args)
    colours = args.colours != "off"  # a camera sees the top colours
    journal = _open_journal(args.journal) if args.journal and Path(args.journal).exists() \
        else None
    try:
        held = JournalBuffer() if args.journal else None
        trace = _trace_writer(sys.stderr) if args.trace else None
        ctl = TableController(journal=held, colours=colours, trace=trace, resume=False,
                              source="replay")
        replay_recording(recording, ctl, reader=reader)
        if held is not None:
            journal = journal or _open_journal(args.journal)
            held.flush(journal)
        _report(args, ctl)
    finally:
        if journal is not None:
            journal.close()
    return 0


def _recording_reader(args: argparse.Namespace) -> Any:
    """The BoardReader of a replayed recording: --config's [camera] geometry and calibration,
    --calibration over it; the default camera geometry without them."""
    from controller.cli.vision import _calibration
    from controller.recording import reader_from_camera

    section: dict[str, Any] = {}
    if args.config is not None:
        from controller.config.settings import load_config

        section = dict(load_config(args.config).camera)
    path = args.calibration
    if path is None and isinstance(section.get("calibration"), str) and section["calibration"]:
        path = section["calibration"]
    return reader_from_camera(section, _calibration(path))


def _report(args: argparse.Namespace, ctl: TableController) -> None:
    report(ctl, sys.stdout)
    if ctl.actions and not ctl.game.is_over():  # stdout keeps its contract: a note
        print(f"dvonn-board replay-sensors: {args.log} ends mid-game "
              f"({unfinished_text(ctl)}): the game is unfinished", file=sys.stderr)


def unfinished_text(ctl: TableController) -> str:
    """'placing, ply 12, Black to act' for the note on an unfinished replay."""
    game = ctl.game
    side = "White" if game.turn == "w" else "Black"
    return f"{'placing' if game.placing else 'moving'}, ply {game.ply + 1}, {side} to act"


def _trace_writer(stream: TextIO) -> Any:
    def write(record: dict[str, Any]) -> None:
        stream.write(json.dumps(record) + "\n")

    return write


def _open_journal(path: str | None) -> Any:
    if path is None:
        return None
    from controller.journal.store import Journal

    return Journal(Path(path), writer=True)  # one writer per journal: a second is refused


# ----------------------------------------------------------------------- demo
def cmd_demo(args: argparse.Namespace) -> int:
    from controller.cli.paths import check_output_file
    from controller.cli.publishing import check_publish, open_publisher, remote_credentials
    from controller.players.player import check_spec
    from controller.sim.demo import DemoOptions, run_demo

    players, white, black = args.players, check_spec(args.white), check_spec(args.black)
    if "," in players:  # --players ai,greedy: White and Black, the hands follow the LEDs
        white, black = (check_spec(s) for s in players.split(",", 1))
        players = "random"
    elif players not in ("random", "greedy"):
        raise DvonnError(Msg("--players {players!r}: random, greedy, or WHITE,BLACK such as "
                             "ai,greedy",
                             players=players))
    check_output_file("--record", args.record, force=args.force)
    check_remote_web(args.web, (("--white", white), ("--black", black)))
    publish = check_publish(args)  # a bad --publish: one line, before anything is opened
    creds = remote_credentials() if publish is not None else None
    review = load_review(args) if args.review else None
    from controller.cli.speaking import open_speech

    speak = open_speech(args)  # a bad --speak-to: one line, before anything is opened
    from controller.cli.clocking import clock_options

    clock = clock_options(args)  # --clock M+S (a bad one: one line, nothing opened)
    opts = DemoOptions(fast=args.fast, seed=args.seed, players=players,
                       noise=not args.no_noise, direct=args.direct, record=args.record,
                       journal=args.journal, white=white, black=black, review=review)
    if any(spec.startswith("remote:") for spec in (white, black)):
        opts.remote_config = _remote_section()  # the default config's [remote], if any
    if review is not None:
        say_review(review, sys.stdout)
    if args.web:  # before the journal: a busy port leaves no file
        from controller.cli.web import start_web_view, web_access

        opts.web = start_web_view(args.web, access=web_access(args, args.web))
        opts.serve = True  # a table with a page serves it until stopped (Ctrl-C, SIGTERM)
    writer = None
    opts.speak = speak
    from controller.cli.tutoring import learning, tutor_level

    opts.tutor, opts.learn = tutor_level(args), learning(args)
    opts.clock = clock
    try:
        # Held for the whole demo: the writer lock (a second demo/play on this journal is
        # refused), and a damaged journal is recovered before the demo opens it again.
        writer = _open_journal(args.journal) if review is None else None
        if publish is not None:
            opts.publish = open_publisher(publish, creds or remote_credentials())
        result = run_demo(opts, sys.stdout)
    finally:
        if opts.speak is not None:
            opts.speak.close()  # says what is still queued
        if opts.publish is not None:
            opts.publish.close()
        if opts.web is not None:
            opts.web.stop()
        if writer is not None:
            writer.close()
    if review is not None:
        followed = result.controller.opponent.followed(result.controller.game)
        print(f"review done: {followed} of {len(review[0])} actions", flush=True)
        return 0 if followed == len(review[0]) else 1
    return 0 if result.over else 1


# ----------------------------------------------------------------------- play
def cmd_play(args: argparse.Namespace) -> int:
    from controller.cli.paths import check_output_file
    from controller.config.settings import load_config
    from controller.runner import Drain, PlacementTeacher, Recorder, Runner, Source
    from controller.table.renderer import Renderer
    from hardware.clock import SystemClock
    from hardware.leds import strip_from_config

    cfg = load_config(args.config)
    from controller.cli.publishing import check_publish, open_publisher, remote_credentials
    from controller.players.player import check_spec

    publish = check_publish(args)  # a bad --publish: one line, before anything is opened
    creds = remote_credentials(cfg) if publish is not None else None

    for spec in (args.white, args.black):  # before anything is opened
        if spec is not None:
            check_spec(spec)
    check_remote_web(args.web, (
        ("--white" if args.white else "[players] white_player",
         args.white or cfg.players.white_player),
        ("--black" if args.black else "[players] black_player",
         args.black or cfg.players.black_player)))
    if cfg.sensor.backend == "camera" and args.record is not None:
        from controller.recording import check_record_folder

        check_record_folder(args.record, force=args.force, option="--record")
    else:
        check_output_file("--record", args.record, force=args.force)
    review = load_review(args) if args.review else None
    port = _sensor_port(cfg)
    clock = SystemClock()
    closers: list[Any] = []
    from controller.cli.speaking import open_speech

    speak = open_speech(args, cfg)  # a bad --speak-to: one line, before anything opens
    if speak is not None:
        closers.append(speak)
    web = None
    if args.web:  # the address is taken before the journal opens: a busy port leaves no file
        from controller.cli.web import bind_web_view, web_access

        web = bind_web_view(args.web, palette=cfg.palette, access=web_access(args, args.web))
        web.server.language = cfg.display.language  # 'auto': the browser's Accept-Language
        closers.append(web)
    try:
        closers.append(_open_journal(args.journal or cfg.journal.path or _default_journal()))
        journal = closers[-1]
        sources: list[Source] = []
        link = None
        backend = cfg.sensor.backend
        if backend == "sensor-board":
            from hardware.sensorboard.client import SensorBoardClient

            link = SensorBoardClient(port, clock=clock, baudrate=cfg.sensor.baudrate)
            closers.append(link)
            sources.append(link)
            colours: bool | None = False
        elif backend == "camera":
            camera = _camera_source(cfg, clock, closers)
            sources.append(camera)
            colours = True
        else:
            raise DvonnError(Msg("play: sensor backend {backend!r} is simulated; use 'dvonn-board "
                                 "demo' (or set sensor.backend in the config)",
                                 backend=backend))
        strip = strip_from_config(cfg.leds, link=link)
        closers.append(strip)
        if cfg.buttons.pins:
            from hardware.buttons import ButtonPanel

            panel = ButtonPanel(cfg.buttons.pins, clock=clock, long_press=cfg.buttons.long_press)
            closers.append(panel)
            sources.append(Drain(panel))
        ctl = _play_controller(review, journal, colours=colours,
                               polarity=cfg.sensor.polarity,
                               timing=Timing(cfg.timing.noise, cfg.timing.stable),
                               players=(cfg.players.white, cfg.players.black),
                               new_needs_long=True)
        if backend == "camera":
            from controller.recording import strip_leds

            camera.heights_provider = ctl.heights
            camera.leds_provider = strip_leds(strip)  # what is lit as a frame is taken
            sources[0] = PlacementTeacher(camera, ctl)
        from controller.players.opponent import Opponent

        if review is None:
            opponent = Opponent(args.white or cfg.players.white_player,
                                args.black or cfg.players.black_player,
                                move_time=cfg.players.move_time,
                                threads=cfg.players.threads,
                                remote_config=cfg.remote.as_dict())
        else:
            from controller.players.walkthrough import Walkthrough

            opponent = Walkthrough(review[0], title=review[3])
            say_review(review, sys.stderr)
        closers.append(opponent)
        opponent.attach(ctl)
        if review is None:  # the game clock (--clock, [clock]): its state kept in the journal
            from controller.cli.clocking import clock_options, start_clock

            start_clock(ctl, clock, clock_options(args, cfg), journal)
        if publish is not None and creds is not None:
            closers.append(open_publisher(publish, creds))
            closers[-1].attach(ctl)
        if web is not None:
            from controller.cli.web import start_web_view

            web.invite(opponent)  # a ``remote`` side: its invitation (web/remote.py)
            start_web_view(web, camera=camera if backend == "camera" else None)
            sources.append(web.attach(ctl, clock))
            web.server.journal = journal  # (a review's controller keeps none: the page's)
        if getattr(opponent, "remote", False):  # takes in what a remote side sent
            sources.append(cast("Source", opponent))  # (its poll reports no events)
        if speak is not None:  # hears what the table committed, at every round
            sources.append(speak.attach(ctl, clock))
        if review is None:  # --tutor [LEVEL], --learn ([tutor] in the config)
            from controller.cli.tutoring import learning, tutor_level
            from controller.players.teaching import teach

            closers.extend(teach(ctl, sources, tutor=tutor_level(args, cfg.tutor),
                                 learn=learning(args, cfg.tutor), clock=clock, out=sys.stdout))
        recorder: Recorder | None = None
        if args.record and backend == "camera":
            from controller.recording import CameraRecorder, RecordingWriter

            writer = RecordingWriter(args.record, force=args.force,
                                     max_bytes=args.record_limit * 1_000_000)
            closers.append(writer)
            # each frame the camera read, as read, with what the LEDs showed then
            recorder = CameraRecorder(writer, camera, camera.leds_provider)
        elif args.record:
            recorder = log = LogRecorder(args.record)
            closers.append(log)
        runner = Runner(ctl, sources=sources, strip=strip,
                        renderer=Renderer(cfg.palette, cfg.animation), clock=clock,
                        recorder=recorder)
        if ctl.resumed:
            print(f"resuming game {ctl.game_id} at ply {ctl.game.ply}", file=sys.stderr)
        try:
            runner.run()
        except KeyboardInterrupt:
            print("stopped; the game is kept in the journal", file=sys.stderr)
        return 0
    finally:
        for c in reversed(closers):
            close = getattr(c, "close", None)
            if close is not None:
                close()


def check_remote_web(web: str | None, specs: tuple[tuple[str, str], ...]) -> None:
    """A ``remote`` player plays through the table's web page: refused without ``--web``.
    ``specs``: (where it was given, player spec) of each side."""
    for where, spec in specs:
        if not web and str(spec).strip().lower() == "remote":
            raise DvonnError(Msg("{where} remote: a remote player plays through the table's web "
                                 "page; add --web [HOST:]PORT (and send them the invitation "
                                 "it prints)", where=where))


def _remote_section() -> dict[str, object]:
    """The default config file's ``[remote]`` (broker log-in) for demo, which has no
    --config; {} without that file."""
    from controller.config.settings import default_config_path, load_config

    if not default_config_path().exists():
        return {}
    return load_config().remote.as_dict()


def _play_controller(review: Any, journal: Any, **kw: Any) -> TableController:
    """play's controller: the journaled game's, or for --review a walkthrough's (its
    players the record's; nothing journaled, no unfinished game resumed)."""
    if review is None:
        return TableController(journal=journal, **kw)
    from controller.players.walkthrough import WalkthroughController

    kw["players"] = (review[1], review[2])
    return WalkthroughController(source="review", **kw)


def _sensor_port(cfg: Any) -> str | None:
    """The sensor board's port: the config's, else the one plugged in; say which key to set
    when there is neither (play has no --port option)."""
    if cfg.sensor.backend != "sensor-board" or cfg.sensor.port:
        return str(cfg.sensor.port) if cfg.sensor.port else None
    from controller.config.settings import default_config_path
    from hardware.sensorboard.client import find_board_port

    port = find_board_port()
    if port is None:
        where = cfg.path or default_config_path()
        raise DvonnError(Msg("no sensor board found (no USB serial device of a Raspberry Pi Pico "
                             "with the firmware): plug it in, or set its serial port as "
                             "sensor.port in {where} ([sensor] port = \"/dev/ttyACM0\")",
                             where=where))
    return port


def _default_journal() -> str:
    from controller.journal.store import default_journal_path

    return str(default_journal_path())


def _camera_source(cfg: Any, clock: Any, closers: list[Any]) -> Any:
    from vision.backend import camera_from_config

    sensor = camera_from_config(cfg.camera, clock=clock)
    closers.append(sensor)
    return sensor
