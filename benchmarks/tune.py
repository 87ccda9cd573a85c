"""Tuning experiments for the engine (issue 25): a Texel-style fit of the moving-phase
evaluation weights on real games, and fixed-node self-play between two settings.

    python benchmarks/tune.py texel                  # fit on ../shared/games/boardspace/
    python benchmarks/tune.py selfplay --a 100,11,22,27,10,10 --games 100 --nodes 20000
    python benchmarks/tune.py selfplay --lmr-a 8 --lmr-b 0 --games 100 --nodes 20000

``texel``: every moving-phase position of the 585 boardspace.net games (finished or resigned),
labelled with the game's result for the side to act; the evaluation's terms (W_STACK, W_MOVE,
W_LIFE, W_ENEMY features as engine/evaluate.py sums them, material, material times the empty
share) fitted by logistic regression (Newton) on the games whose index is not a multiple of 5,
log-loss on the rest (held out). Prints the fitted weights scaled to W_STACK = 100.

``selfplay``: setting A against setting B (weights W_STACK,W_MOVE,W_LIFE,W_ENEMY,MAT_EARLY,
MAT_LATE of the hand-set evaluation, with evaluate.HAND's placing; late-move reductions), both
in this process at a node budget a move (the same on any machine), each opening seed played
with both colours. Weights are loaded into both engines (engine.evaluate and the compiled
core) before each move. benchmarks/learn.py plays the learned evaluation against HAND.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.cli.ai import wilson  # noqa: E402
from engine import accel  # noqa: E402
from engine import evaluate as ev  # noqa: E402
from engine.ai import dvonn_placement  # noqa: E402
from engine.game import MAX_MOVING_HEIGHT, PLACEMENTS, Game  # noqa: E402
from engine.geometry import NEIGHBOUR_MASKS, NUM_CELLS  # noqa: E402
from engine.records import decode_record, load_record_file  # noqa: E402
from engine.search import LMR, Limits, Searcher  # noqa: E402

NAMES = ("W_STACK", "W_MOVE", "W_LIFE", "W_ENEMY", "MAT_EARLY", "MAT_LATE")
GAMES = ROOT.parent / "shared" / "games" / "boardspace"


def features(game: Game) -> list[float]:
    """The moving-phase evaluation's terms for the side to act (white minus black, negated
    for Black): stack field values, landing values, DVONN landings and enemy landings of
    stacks that can move, material, material times the empty share."""
    occ, white, black, red = game._occ, game._white, game._black, game._red
    fv = ev.field_values(red)[0]
    f = [0.0] * 6
    for c, s in enumerate(game._stacks):
        if not s or s[-1] == "r":
            continue
        sign = 1 if s[-1] == "w" else -1
        f[0] += sign * fv[c]
        if len(s) <= MAX_MOVING_HEIGHT:
            rest = ev._TARGET_MASKS[c * 11 + len(s)] & occ
            enemy = black if s[-1] == "w" else white
            moves = life = hit = 0
            while rest:
                low = rest & -rest
                t = low.bit_length() - 1
                rest ^= low
                moves += fv[t]
                life += fv[t] if red & low else 0
                hit += fv[t] if enemy & low else 0
            f[1] += sign * moves
            nm = NEIGHBOUR_MASKS[c]
            if occ & nm != nm or not ev._IS_INTERIOR[c]:
                f[2] += sign * life
                f[3] += sign * hit
        f[4] += sign * len(s)
    f[5] = f[4] * (NUM_CELLS - occ.bit_count()) / NUM_CELLS
    return [x if game.turn == "w" else -x for x in f]


def texel(folder: Path) -> None:
    import numpy as np

    rows, labels, index = [], [], []
    for gi, path in enumerate(sorted(folder.glob("*.sgf"))):
        record = load_record_file(decode_record(path.read_bytes()), path.name)
        end = Game.from_moves(record.moves)
        if end.is_over():
            w, b = end.score()
            result = 1.0 if w > b else 0.0 if w < b else 0.5
        elif record.resigned:
            result = 0.0 if record.resigned == "w" else 1.0
        else:
            continue
        game = Game()
        for move in record.moves:
            if game.ply >= PLACEMENTS and not game.is_over():
                rows.append(features(game))
                labels.append(result if game.turn == "w" else 1 - result)
                index.append(gi)
            game.push(move)
    x, y, g = np.array(rows), np.array(labels), np.array(index)
    test = g % 5 == 0
    train = ~test
    print(f"positions: {len(y)} ({train.sum()} training, {test.sum()} held out)")

    def fit(a: np.ndarray, t: np.ndarray) -> np.ndarray:
        w = np.zeros(a.shape[1])
        for _ in range(50):
            p = 1 / (1 + np.exp(-a @ w))
            hess = (a * (p * (1 - p))[:, None]).T @ a + 1e-6 * np.eye(len(w))
            w -= np.linalg.solve(hess, a.T @ (p - t) + 1e-6 * w)
        return w

    def loss(a: np.ndarray, t: np.ndarray, w: np.ndarray) -> float:
        p = np.clip(1 / (1 + np.exp(-a @ w)), 1e-9, 1 - 1e-9)
        return float(-np.mean(t * np.log(p) + (1 - t) * np.log(1 - p)))

    now = np.array([ev.W_STACK, ev.W_MOVE, ev.W_LIFE, ev.W_ENEMY], float)
    cur = (x[:, :4] @ now)[:, None]
    k = fit(cur[train], y[train])
    print(f"current weights {now.astype(int).tolist()}: held-out log-loss "
          f"{loss(cur[test], y[test], k):.4f} (a constant: {np.log(2):.4f})")
    for cols in ([0, 1, 2, 3], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4, 5]):
        w = fit(x[train][:, cols], y[train])
        scaled = w / w[0] * 100
        weights = scaled[:4].round(1).tolist()
        material = (w[4:] / w[0] * 100 * ev.POSITION / ev.SCALE).round(1).tolist()
        held_out = loss(x[test][:, cols], y[test], w)
        print(f"fit of {len(cols)} terms: held-out log-loss {held_out:.4f}"
              f"; weights {weights}" + (f", material {material} centipieces a piece"
                                         if material else ""))


def selfplay(a: Sequence[int], b: Sequence[int], lmr_a: int, lmr_b: int, games: int,
             nodes: int, seed: int) -> None:
    def load(weights: Sequence[int]) -> None:
        # As the hand-set features' weights (engine/evaluate.py): material by the height
        # feature (64 a piece), MAT_EARLY on a full board, MAT_LATE on an empty one.
        w = list(weights) + [0] * (len(NAMES) - len(weights))
        moving = [v * ev.POSITION for v in w[:4]] + [0] * (ev.NM - 4)
        full, empty = list(moving), list(moving)
        full[4], empty[4] = 100 * w[4], 100 * w[5]
        hand = ev.HAND
        ev.use((ev.SCALE, tuple(full), tuple(empty), hand[3], hand[4], hand[5]))
        if accel.BUILT is not None:
            accel.init(accel.BUILT)

    before = ev.WEIGHTS
    score, margin = 0.0, 0
    for k in range(games):
        game_seed = seed + k // 2
        a_white = k % 2 == 0
        sa, sb = Searcher(seed=game_seed, lmr=lmr_a), Searcher(seed=game_seed + 7919, lmr=lmr_b)
        game = Game()
        while not game.is_over():
            a_turn = (game.turn == "w") == a_white
            load(a if a_turn else b)
            move = dvonn_placement(game, game_seed) or (sa if a_turn else sb).search(
                game, Limits(nodes=nodes)).move
            assert move is not None
            game.push(move)
        w, bl = game.score()
        mine, theirs = (w, bl) if a_white else (bl, w)
        score += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        margin += mine - theirs
    ev.use(before)
    if accel.BUILT is not None:
        accel.init(accel.BUILT)
    low, high = wilson(score, games)
    print(f"A {list(a)} lmr {lmr_a} vs B {list(b)} lmr {lmr_b}, {nodes} nodes a move: "
          f"{score:g}/{games} = {100 * score / games:.1f} % (95 % CI {100 * low:.1f}-"
          f"{100 * high:.1f} %), mean margin {margin / games:+.2f}", flush=True)


DEFAULT = (ev.W_STACK, ev.W_MOVE, ev.W_LIFE, ev.W_ENEMY, 0, 0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("part", choices=("texel", "selfplay"))
    parser.add_argument("--a", default=",".join(map(str, DEFAULT)), help="selfplay: weights A")
    parser.add_argument("--b", default=",".join(map(str, DEFAULT)), help="selfplay: weights B")
    parser.add_argument("--lmr-a", type=int, default=LMR)
    parser.add_argument("--lmr-b", type=int, default=LMR)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", type=Path, default=GAMES, help="texel: the SGF games")
    args = parser.parse_args(argv)
    if args.part == "texel":
        texel(args.dir)
    else:
        selfplay([int(v) for v in args.a.split(",")], [int(v) for v in args.b.split(",")],
                 args.lmr_a, args.lmr_b, args.games, args.nodes, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
