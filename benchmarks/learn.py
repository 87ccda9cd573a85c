"""An evaluation that learns from the engine's own games (issue 44): generate, fit, write, match.

    python benchmarks/learn.py generate --games 2000 --out /tmp/w/learn/data.npz
    python benchmarks/learn.py fit --data /tmp/w/learn/data.npz --out /tmp/w/learn/weights.json
    python benchmarks/learn.py write --weights /tmp/w/learn/weights.json   # engine/evalweights.py
    python benchmarks/learn.py match --games 100 --nodes 20000           # learned vs hand-set
    python benchmarks/learn.py match --games 100 --game-time 5           # ... at equal time
    python benchmarks/learn.py speed                                     # nodes/s, depth 7

``generate``: self-play with the engine at small node budgets (``--nodes``), varied by random
DVONN placements, random placements (``--random-place``) and random first moves
(``--random-move``). From each game it samples moving-phase positions and labels each with a
deeper search's score (``--label-nodes``); placing-phase positions (ply 3-48) get the deep
score of the same game's position after the last placement (what the placements led to). Every
sample keeps the game's result too. Features are engine/evaluate.py's (the compiled core's when
built), in the frame of the side to act.

``fit`` (numpy): calibrates the scale of the deep scores against the results (centipieces per
logit, K), then fits each phase's weights by logistic regression on the label
``lam * sigmoid(score / K) + (1 - lam) * result``, one weight per feature at each end of the
phase (interpolated as the engine does), on the games whose number is not a multiple of 5;
prints the held-out log-loss of a constant, of the weights in use, and of the fit. The weights
become integers in centipieces (times ``*_DEN``).

``write``: engine/evalweights.py from a weights file (``render`` makes its text; a test checks
the file in the tree is what it makes of its own weights).

``match``: the learned weights (engine/evalweights.py, or ``--weights`` file) against the
hand-set ones (evaluate.HAND) in self-play, each seed with both colours, both engines in this
process (weights loaded into evaluate.py and the compiled core before each move).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.cli.ai import wilson  # noqa: E402
from engine import accel  # noqa: E402
from engine import evaluate as ev  # noqa: E402
from engine.ai import Engine, dvonn_placement  # noqa: E402
from engine.game import PLACEMENTS, Game  # noqa: E402
from engine.geometry import NUM_CELLS  # noqa: E402
from engine.move import Move  # noqa: E402
from engine.search import Limits, Searcher  # noqa: E402

WEIGHTS_FILE = ROOT / "engine" / "evalweights.py"
#: Resolution of the written weights: raw units per centipiece of each phase.
MOVING_DEN = 6400
PLACING_DEN = 256
#: Deep scores beyond this are wins or losses (evaluate.WIN plus the margin).
DECIDED = ev.WIN // 2


def features(game: Game) -> list[int]:
    """The evaluation's features of ``game`` for the side to act (compiled core if built)."""
    if accel.BUILT is not None:
        f = list(accel.BUILT.features(accel.position(game))[0])
    elif game.ply < PLACEMENTS:
        f = ev.placing_features(game)
    else:
        f = ev.moving_features(game)[0]
    return f if game.turn == "w" else [-x for x in f]


def stage(game: Game) -> int:
    """What the weights are interpolated by: the ply while placing, the stacks after."""
    return game.ply if game.ply < PLACEMENTS else game.occupied.bit_count()


def self_play(seed: int, nodes: int, place_nodes: int, random_place: float,
              random_move: float, random_plies: int) -> tuple[list[Move], float]:
    """One varied game of the engine against itself: its moves and White's result."""
    rng = random.Random(seed)
    searcher = Searcher(seed=seed)
    game = Game()
    moves: list[Move] = []
    while not game.is_over():
        legal = game.legal_moves()
        move: Move | None
        if game.ply < 3:
            move = dvonn_placement(game, seed) if rng.random() < 0.7 else rng.choice(legal)
        elif game.ply < PLACEMENTS:
            move = rng.choice(legal) if rng.random() < random_place else searcher.search(
                game, Limits(nodes=place_nodes)).move
        elif game.ply < PLACEMENTS + random_plies and rng.random() < random_move:
            move = rng.choice(legal)
        else:
            move = searcher.search(game, Limits(nodes=nodes)).move
        assert move is not None
        game.push(move)
        moves.append(move)
    w, b = game.score()
    return moves, 1.0 if w > b else 0.5 if w == b else 0.0


def generate(out: Path, games: int, seed: int, nodes: int, place_nodes: int, label_nodes: int,
             per_game: int, place_per_game: int, random_place: float, random_move: float,
             random_plies: int) -> dict[str, Any]:
    """Play and label ``games`` games; write the samples to ``out`` (npz); return figures."""
    import numpy as np

    rows: dict[str, list[Any]] = {k: [] for k in ("x", "t", "phase", "score", "result",
                                                  "game", "ply")}
    start = time.perf_counter()
    label_time = 0.0
    for k in range(games):
        gseed = seed + k
        moves, white_result = self_play(gseed, nodes, place_nodes, random_place, random_move,
                                        random_plies)
        rng = random.Random(gseed * 7 + 1)
        last = len(moves)  # positions 0..last-1 had a move to play
        moving = list(range(PLACEMENTS + 1, last))
        picks = sorted(rng.sample(moving, min(per_game, len(moving))) + [PLACEMENTS])
        placing = sorted(rng.sample(range(3, PLACEMENTS), place_per_game))
        labeller = Searcher(seed=gseed)
        game = Game()
        deep_white: dict[int, float] = {}
        wanted = set(picks) | set(placing)
        samples: list[tuple[int, list[int], int]] = []
        for ply in range(last):
            if ply in wanted:
                samples.append((ply, features(game), stage(game)))
                if ply in picks:
                    t0 = time.perf_counter()
                    labeller.reset()
                    deep = labeller.search(game, Limits(nodes=label_nodes)).score
                    label_time += time.perf_counter() - t0
                    deep_white[ply] = deep if game.turn == "w" else -deep
            game.push(moves[ply])
        for ply, x, t in samples:
            white_to_act = ply % 2 == 0 if ply < PLACEMENTS else ply % 2 == 1
            sign = 1 if white_to_act else -1
            score: float = deep_white[ply if ply >= PLACEMENTS else PLACEMENTS]
            rows["x"].append(x)
            rows["t"].append(t)
            rows["phase"].append(1 if ply >= PLACEMENTS else 0)
            rows["score"].append(sign * score)
            rows["result"].append(white_result if white_to_act else 1 - white_result)
            rows["game"].append(gseed)
            rows["ply"].append(ply)
        if (k + 1) % 50 == 0 or k + 1 == games:
            print(f"  {k + 1} games, {len(rows['t'])} samples, "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, Any] = {k: np.array(v, dtype=np.float64 if k in ("score", "result")
                                          else np.int64) for k, v in rows.items()}
    np.savez_compressed(out, **arrays)
    phase = np.array(rows["phase"])
    figures = {"games": games, "samples": len(phase), "moving": int(phase.sum()),
               "placing": int(len(phase) - phase.sum()), "seconds": time.perf_counter() - start,
               "label_seconds": label_time, "bytes": out.stat().st_size}
    print(f"generate: {figures}", flush=True)
    return figures


# ------------------------------------------------------------------ fit (numpy)

def _logistic(a: Any, y: Any, ridge: float) -> Any:
    """Logistic regression weights of targets ``y`` in [0, 1] on the columns of ``a``
    (Newton's method on standardised columns, an L2 penalty ``ridge`` per sample)."""
    import numpy as np

    scale = a.std(axis=0)
    scale[scale == 0] = 1.0
    z = a / scale
    w = np.zeros(z.shape[1])
    n = len(y)
    for _ in range(40):
        p = 1 / (1 + np.exp(-np.clip(z @ w, -30, 30)))
        grad = z.T @ (p - y) / n + ridge * w
        hess = (z * (p * (1 - p))[:, None]).T @ z / n + ridge * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w / scale


def _loss(logit: Any, y: Any) -> float:
    import numpy as np

    p = np.clip(1 / (1 + np.exp(-np.clip(logit, -30, 30))), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def design(x: Any, t: Any) -> Any:
    """Columns of the interpolated weights: each feature times t/49 and times (49-t)/49."""
    import numpy as np

    a = t[:, None] / NUM_CELLS
    return np.hstack([x * a, x * (1 - a)])


def value_of(weights: ev.Weights, x: Any, t: Any, moving: bool) -> Any:
    """The evaluation (centipieces, as a float) of feature rows ``x`` at stages ``t``."""
    den_m, full, empty, den_p, early, late = weights
    import numpy as np

    hi, lo, den = (full, empty, den_m) if moving else (late, early, den_p)
    w = design(x, t) @ np.concatenate([np.array(hi, float), np.array(lo, float)])
    return w / den


def fit(data: Path, lam: float, ridge: float) -> tuple[ev.Weights, dict[str, Any]]:
    """Fitted weights and figures (held-out log-loss etc.) from a generated data file."""
    import numpy as np

    d = np.load(data)
    x, t, phase, score, result, games = (d[k] for k in ("x", "t", "phase", "score", "result",
                                                         "game"))
    test = games % 5 == 0
    decided = np.abs(score) >= DECIDED
    mov = phase == 1
    # K: centipieces a logit, from the undecided moving scores against the results.
    cal = mov & ~decided & ~test
    k_fit = _logistic(score[cal][:, None], result[cal], 1e-9)[0]
    k_cp = 1 / k_fit
    prob = np.where(decided, (score > 0).astype(float),
                    1 / (1 + np.exp(-np.clip(score / k_cp, -30, 30))))
    y = lam * prob + (1 - lam) * result
    figures: dict[str, Any] = {"K": round(float(k_cp), 1), "lambda": lam,
                               "samples": int(len(y))}
    weights: list[tuple[int, ...]] = []
    for moving, den in ((True, MOVING_DEN), (False, PLACING_DEN)):
        sel = mov if moving else ~mov
        a = design(x[sel].astype(float), t[sel].astype(float))
        tr, te = ~test[sel], test[sel]
        beta = _logistic(a[tr], y[sel][tr], ridge)
        n = x.shape[1]
        weights += [tuple(int(round(v * k_cp * den)) for v in beta[:n]),
                    tuple(int(round(v * k_cp * den)) for v in beta[n:])]
        cur = value_of(ev.WEIGHTS, x[sel].astype(float), t[sel].astype(float), moving)
        cur_k = _logistic(cur[tr][:, None], y[sel][tr], 1e-9)[0]
        name = "moving" if moving else "placing"
        const = float(np.clip(y[sel][tr].mean(), 1e-6, 1 - 1e-6))
        figures[name] = {
            "train": int(tr.sum()), "held_out": int(te.sum()),
            "loss_constant": round(_loss(np.full(te.sum(), np.log(const / (1 - const))),
                                         y[sel][te]), 4),
            "loss_in_use": round(_loss(cur[te] * cur_k, y[sel][te]), 4),
            "loss_fit": round(_loss(a[te] @ beta, y[sel][te]), 4),
            "loss_fit_train": round(_loss(a[tr] @ beta, y[sel][tr]), 4),
        }
    result_weights: ev.Weights = (MOVING_DEN, weights[0], weights[1], PLACING_DEN, weights[3],
                                  weights[2])
    return result_weights, figures


# ------------------------------------------------------------------ write

HEADER = ('''"""The evaluation's weights (engine/evaluate.py reads them; the compiled core gets '''
          '''them from
there through engine/accel.py). Written by ``python benchmarks/learn.py write``: do not edit by
hand, rerun the pipeline (generate, fit, write) instead.

Each weight is an integer for one feature (``MOVING_FEATURES`` / ``PLACING_FEATURES`` in
engine/evaluate.py) at two stages, interpolated linearly between them: the moving phase from
49 stacks on the board (``MOVING_FULL``) to none (``MOVING_EMPTY``), the placing phase from ply
0 (``PLACING_EARLY``) to ply 49 (``PLACING_LATE``); a value is the sum of feature times weight
divided by the phase's ``*_DEN`` (centipieces: 100 = one piece).
"""
''')


def render(weights: ev.Weights, note: str) -> str:
    """The text of engine/evalweights.py holding ``weights`` and ``note`` (where they came
    from)."""
    den_m, full, empty, den_p, early, late = weights

    def row(name: str, names: Sequence[str], values: Sequence[int]) -> str:
        body = "".join(f"    {v},  # {n}\n" for n, v in zip(names, values, strict=True))
        return f"{name} = (\n{body})\n"

    return (HEADER + f"\nNOTE = {note!r}\n"
            + f"MOVING_DEN = {den_m}\n"
            + row("MOVING_FULL", ev.MOVING_FEATURES, full)
            + row("MOVING_EMPTY", ev.MOVING_FEATURES, empty)
            + f"PLACING_DEN = {den_p}\n"
            + row("PLACING_EARLY", ev.PLACING_FEATURES, early)
            + row("PLACING_LATE", ev.PLACING_FEATURES, late))


def load_weights(path: Path) -> tuple[ev.Weights, str]:
    """A weights file written by ``fit``: the weights and its note."""
    obj = json.loads(path.read_text())
    w = obj["weights"]
    return (int(w[0]), tuple(w[1]), tuple(w[2]), int(w[3]), tuple(w[4]), tuple(w[5])), \
        obj.get("note", "")


# ------------------------------------------------------------------ match

def _load(weights: ev.Weights) -> None:
    ev.use(weights)
    if accel.BUILT is not None:
        accel.init(accel.BUILT)


def match(a: ev.Weights, b: ev.Weights, games: int, seed: int, nodes: int | None,
          game_time: float | None) -> tuple[float, int]:
    """``a`` against ``b``, each seed with both colours: (score of a, games)."""
    score, margin = 0.0, 0
    for k in range(games):
        game_seed = seed + k // 2
        a_white = k % 2 == 0
        if game_time is None:
            sa: Any = Searcher(seed=game_seed)
            sb: Any = Searcher(seed=game_seed + 7919)
        else:
            sa, sb = Engine(seed=game_seed, game_time=game_time), Engine(
                seed=game_seed + 7919, game_time=game_time)
        game = Game()
        while not game.is_over():
            a_turn = (game.turn == "w") == a_white
            _load(a if a_turn else b)
            player = sa if a_turn else sb
            if game_time is None:
                move = dvonn_placement(game, game_seed) or player.search(
                    game, Limits(nodes=nodes)).move
            else:
                move = player.choose(game)
            assert move is not None
            game.push(move)
        w, bl = game.score()
        mine, theirs = (w, bl) if a_white else (bl, w)
        score += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        margin += mine - theirs
        if (k + 1) % 20 == 0:
            print(f"  {k + 1} games: {score:g}", flush=True)
    _load(ev.LEARNED)
    low, high = wilson(score, games)
    budget = f"{nodes} nodes a move" if game_time is None else f"{game_time:g} s a game"
    print(f"learned vs hand-set, {budget}: {score:g}/{games} = {100 * score / games:.1f} % "
          f"(95 % CI {100 * low:.1f}-{100 * high:.1f} %), mean margin {margin / games:+.2f}",
          flush=True)
    return score, games


def speed(depth: int) -> float:
    """Nodes/s of fixed-depth searches (compiled core when built) on 12 moving-phase positions
    of random games (seeds 1-12, plies 49-56), best of 3, with the weights in use."""
    positions = []
    for k in range(1, 13):
        rng = random.Random(k)
        game = Game()
        for _ in range(PLACEMENTS + k % 8):
            game.push(rng.choice(game.legal_moves()))
        positions.append(game)
    best = 0.0
    nodes = 0
    for _ in range(3):
        nodes = 0
        start = time.perf_counter()
        for game in positions:
            nodes += Searcher().search(game, Limits(depth=depth)).nodes
        best = max(best, nodes / (time.perf_counter() - start))
    print(f"speed ({accel.backend()}): depth {depth} on 12 positions, {nodes:,} nodes, "
          f"best of 3 {best:,.0f} nodes/s", flush=True)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("part", choices=("generate", "fit", "write", "match", "speed"))
    parser.add_argument("--out", type=Path, help="generate: npz; fit: weights json")
    parser.add_argument("--data", type=Path, default=Path("/tmp/w/learn/data.npz"))
    parser.add_argument("--weights", type=Path, help="write, match: a weights json from fit")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nodes", type=int, default=1500, help="generate, match: a move")
    parser.add_argument("--place-nodes", type=int, default=500)
    parser.add_argument("--label-nodes", type=int, default=30_000)
    parser.add_argument("--per-game", type=int, default=8, help="moving samples a game")
    parser.add_argument("--place-per-game", type=int, default=8)
    parser.add_argument("--random-place", type=float, default=0.25)
    parser.add_argument("--random-move", type=float, default=0.15)
    parser.add_argument("--random-plies", type=int, default=8)
    parser.add_argument("--lam", type=float, default=0.5, help="fit: deep score's share")
    parser.add_argument("--ridge", type=float, default=1e-4)
    parser.add_argument("--game-time", type=float, default=None, help="match: s a game each")
    parser.add_argument("--depth", type=int, default=7, help="speed: fixed search depth")
    args = parser.parse_args(argv)
    if args.part == "generate":
        generate(args.out or args.data, args.games, args.seed, args.nodes, args.place_nodes,
                 args.label_nodes, args.per_game, args.place_per_game, args.random_place,
                 args.random_move, args.random_plies)
    elif args.part == "fit":
        start = time.perf_counter()
        weights, figures = fit(args.data, args.lam, args.ridge)
        figures["seconds"] = round(time.perf_counter() - start, 1)
        print(json.dumps(figures, indent=1))
        note = (f"fitted by benchmarks/learn.py on {args.data.name}: {figures['samples']} "
                f"samples, K {figures['K']}, lambda {args.lam}")
        print("weights:", weights)
        if args.out:
            args.out.write_text(json.dumps({"weights": weights, "figures": figures,
                                            "note": note}))
    elif args.part == "write":
        if not args.weights:
            parser.error("write needs --weights FILE (from fit)")
        weights, note = load_weights(args.weights)
        WEIGHTS_FILE.write_text(render(weights, note))
        print(f"wrote {WEIGHTS_FILE}")
    elif args.part == "speed":
        speed(args.depth)
    else:
        new = load_weights(args.weights)[0] if args.weights else ev.LEARNED
        match(new, ev.HAND, args.games, args.seed, None if args.game_time else args.nodes,
              args.game_time)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
