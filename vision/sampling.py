"""What a frame shows of each cell and of the board between the cells: features, the
board's light and disturbance, the print around each cell (the measurements the colour
model in ``vision.classify`` decides on)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.geometry import NUM_CELLS
from vision.stats import median, percentile


@dataclass
class Thresholds:
    """Decision limits (squared normalised distances, shares of samples)."""

    unknown: float = 16.0  # farther than this from every class: unknown colour
    margin: float = 4.0  # best class must beat the second by this much
    empty: float = 20.0  # within this of the empty cells: looks like the empty board
    clearly: float = 10.0  # a piece must explain an expected-empty cell this much better
    hidden: float = 0.5  # share of samples behind other stacks that makes a cell unreadable
    saturated: float = 0.6  # share of clipped samples that makes a cell unreadable (glare)
    spread: float = 0.12  # typical deviation of a cell's samples (white = 1): mixed
    separable: float = 6.0  # a piece colour this far from the empty cells can be told apart
    flat: float = 0.05  # typical deviation of a newly placed piece's top (white = 1)
    rim: float = 0.06  # contrast across a top's outline below which no disc shows there
    rim_dark: float = 0.03  # the same for a black top (steps between dark surfaces)
    disturbed: float = 0.5  # share of a cell's visible surroundings covered by something foreign
    print_strength: float = 2.5  # the board's print stands this far above the noise: usable
    print_absent: float = -0.3  # print score below which the board's print does not show
    plain_share: float = 0.3  # share of an empty cell's points on the plain board: judged by them
    board_chroma: float = 0.09  # chroma distance from the board (floor) for "foreign"
    board_light: float = 1.0  # log brightness distance from the board for "foreign"
    look_change: float = 0.06  # a cell's own look changed this much (log brightness): a piece
    look_share: float = 0.5  # ... in this share of the directions round it at least
    look_moved: float = 2.0  # pixels a cell may move in the frame and keep its own look (the
    # pose jitters 1-1.5 px at a 33 degree tilt: camera game 35; ring_change allows a radius)
    look_same: float = 0.3  # ... changed less than this share of a piece's change: no piece


@dataclass
class CellSamples:
    """Raw BGR samples of the 49 top faces plus the references measured in the same frame."""

    cells: np.ndarray  # (49, K, 3) float32 raw, at the expected top of each cell
    valid: np.ndarray  # (49, K) bool: not hidden behind another stack
    white: np.ndarray  # (49, 3) marker-card white at each cell
    #: (N, 3) raw colour of the board surface between the cells (nan: hidden) and, per cell,
    #: the indices of its six surrounding points.
    inter: np.ndarray = field(default_factory=lambda: np.full((0, 3), np.nan))
    inter_white: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    inter_of: list[list[int]] = field(default_factory=list)
    heights: np.ndarray | None = None  # (49,) what the controller believes, if known
    #: (49, K, 3) raw samples of each cell's base on the board and their validity: a stack
    #: the controller expects covers its base; a lifted one leaves it showing the empty cell.
    base: np.ndarray | None = None
    base_valid: np.ndarray | None = None
    #: (49,) contrast across each top face's outline (white = 1): a disc has an edge there,
    #: a hand or a sleeve over the cell has none, whatever its colour.
    rim: np.ndarray | None = None
    #: (49, A, R) brightness along radial profiles on the board around each cell (z = 0) and
    #: (49, A) whether each profile is in view: the board's print shows there when empty.
    ring: np.ndarray | None = None
    ring_valid: np.ndarray | None = None
    #: (49, A, R) log brightness along the radial profiles across each top's outline (those
    #: of ``rim``) relative to the inside of the top: a disc's edge, side wall and shadow.
    rim_profile: np.ndarray | None = None
    #: (49, 2) pixels of the cells' centres on the board (z = 0): where the camera sees each
    #: cell (a cell's own look is comparable between frames only while this stays put).
    anchor: np.ndarray | None = None
    #: (49,) cells a hand or sleeve covers (vision.cues.hands), when known, and the share of the
    #: board's print missing round each (nan: no verdict).
    covered: np.ndarray | None = None
    print_missing: np.ndarray | None = None
    #: (49, K, 3) samples where a new piece's top would be on the cells the position says
    #: empty (one piece up: at a tilt, off the centre by its parallax), nan elsewhere, and
    #: their validity: a piece put down there is judged by these.
    new_top: np.ndarray | None = None
    new_top_valid: np.ndarray | None = None
    #: (49,) ``rim`` also across two gaps (0.24 disc radii): a soft edge (blur, a lower
    #: resolution) spreads its step over more than the 1.7 mm between two samples. For the
    #: tops the position expects only: a sleeve's shading passes for a surprise piece's edge.
    rim_soft: np.ndarray | None = None
    #: (49, A) the directions of ``ring`` an LED hole glows into (the cell's own, toward row
    #: 1, and its two upper neighbours'): a lit or dimmed LED changes the board's look there.
    led_side: np.ndarray | None = None


def placing(heights: np.ndarray | None) -> bool:
    """Whether the heights are of the placing phase (single pieces, not all 49 down; True
    without heights): only then does a piece come onto an empty cell in play. Later one comes
    there only when a player takes a move back, and sets the stack down with a hand that
    changes the board round the cell (the tint at a vacated cell's centre alone, a printed
    line through it, is no new piece: camera game 24's E1)."""
    return heights is None or (int(np.sum(heights)) < NUM_CELLS and int(np.max(heights)) <= 1)


def rim_profile(vals: np.ndarray, white: np.ndarray, angles: int, radii: int) -> np.ndarray:
    """(49, A, R) log brightness (white = 1) along each cell's radial profiles, minus the mean
    of its two innermost radii (the top face itself): the shape of the outline, not its
    colour."""
    prof = vals.reshape(-1, angles, radii, 3) / np.maximum(white, 8.0)[:, None, None, :]
    lum = np.log(np.maximum(prof.mean(axis=3), 1e-3))
    return np.asarray(lum - lum[:, :, :2].mean(axis=(1, 2))[:, None, None])


def rim_contrast(vals: np.ndarray, white: np.ndarray, angles: int, radii: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(49,) median over the radial profiles of each profile's strongest step (white = 1)
    between neighbouring samples, and the same also across two gaps (a soft edge)."""
    prof = vals.reshape(NUM_CELLS, angles, radii, 3)
    prof = prof / np.maximum(white, 8.0)[:, None, None, :]
    step = np.abs(np.diff(prof, axis=2)).max(axis=3).max(axis=2)
    wide = np.maximum(step, np.abs(prof[:, :, 2:] - prof[:, :, :-2]).max(axis=3).max(axis=2))
    half = angles // 2
    # A disc's outline closes around the cell: edges on opposite sides. A hand's or a
    # sleeve's own edge (or its shading) runs past one side only.
    return (np.asarray(median(np.minimum(step[:, :half], step[:, half:]), axis=1)),
            np.asarray(median(np.minimum(wide[:, :half], wide[:, half:]), axis=1)))


def ring_steps(ring: np.ndarray, valid: np.ndarray, old: np.ndarray, old_valid: np.ndarray,
               inner: int = 8, outer: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """Per cell and direction, how much the board round the cell's centre (``ring``, z = 0)
    changed since ``old`` (the same points when the cell was last seen empty): the mean
    absolute change of log brightness over the inner radii (where a piece stands: its top,
    side wall and edge), relative to the change on the same cell's outer radii (the board
    beyond the piece: the light's own change, a shadow over the whole cell), each point
    against the nearest of its old radius and the two beside it (the pose moves a printed
    line by a pixel). Returns (49, A) changes and where both profiles were in view."""
    cur = np.log(ring + 4.0)
    prev = np.log(old + 4.0)
    ok = valid & old_valid  # (49, A)
    x = cur - prev
    w = np.where(ok[:, :, None], x[:, :, outer:], np.nan)
    w = w.reshape(len(x), -1)
    n_out = np.isfinite(w).sum(axis=1)
    srt = np.sort(np.where(np.isfinite(w), w, np.inf), axis=1)
    lo_i, hi_i = np.maximum((n_out - 1) // 2, 0), np.maximum(n_out // 2, 0)
    rows = np.arange(len(x))
    ref = np.where(n_out > 0, 0.5 * (srt[rows, lo_i] + srt[rows, hi_i]), 0.0)[:, None, None]
    d = np.abs(cur[:, :, :inner] - prev[:, :, :inner] - ref)
    lo = np.abs(cur[:, :, 1:inner] - prev[:, :, 0:inner - 1] - ref)  # old radius one less
    hi = np.abs(cur[:, :, 0:inner] - prev[:, :, 1:inner + 1] - ref)  # old radius one more
    d[:, :, 1:] = np.minimum(d[:, :, 1:], lo)
    d = np.minimum(d, hi)
    return d.mean(axis=2), ok


#: A direction of a cell's ring changed clearly (``ring_steps``): a piece's edge is there.
RING_CHANGED = 0.08


def ring_change(ring: np.ndarray, valid: np.ndarray, old: np.ndarray, old_valid: np.ndarray,
                inner: int = 8, outer: int = 12, least: int = 8
                ) -> tuple[np.ndarray, np.ndarray]:
    """How much each cell's board around its centre changed since ``old`` (``ring_steps``):
    per cell the median over the directions in view and the share of them that changed by
    ``RING_CHANGED`` or more (nan where fewer than ``least`` directions are in view)."""
    per, ok = ring_steps(ring, valid, old, old_valid, inner, outer)
    n = ok.sum(axis=1)
    med = _median(per, ok, np.nan)
    share = np.where(ok, per >= RING_CHANGED, False).sum(axis=1) / np.maximum(n, 1)
    enough = n >= least
    return np.where(enough, med, np.nan), np.where(enough, share, np.nan)


def profile_match(profile: np.ndarray, cell: int, pieces: np.ndarray, empties: np.ndarray
                  ) -> tuple[float, float]:
    """Mean squared distance of one cell's outline profile from the median profile of this
    frame's known pieces of one colour and from that of its empty cells (cell left out)."""
    empties = empties.copy()
    empties[cell] = False
    d_piece = float(np.mean((profile[cell] - median(profile[pieces], axis=0)) ** 2))
    d_empty = float(np.mean((profile[cell] - median(profile[empties], axis=0)) ** 2))
    return d_piece, d_empty


def features(bgr: np.ndarray) -> np.ndarray:
    """(..., 3) white-normalised BGR -> (..., 3) (log brightness, (R-G)/L, (B-G)/L)."""
    lum = bgr.mean(axis=-1) + 0.02
    return np.stack([np.log(lum), (bgr[..., 2] - bgr[..., 1]) / lum,
                     (bgr[..., 0] - bgr[..., 1]) / lum], axis=-1)


@dataclass
class Board:
    """The board surface between the cells, measured in one frame."""

    feats: np.ndarray  # (3,) median features of the consistent surface points
    shade: np.ndarray  # (49,) local light at each cell relative to the board's median (log)
    disturbed: np.ndarray  # (49,) share of the cell's visible surroundings that is foreign
    foreign: np.ndarray  # (49,) how many of them
    seen: bool  # enough of the surface was visible to trust feats
    #: (49,) how many of the foreign ones clip white: a lamp's spot, light, not something
    #: over the board (room game 149: A3 and B4 at a laminate's edge, from the first frame)
    lit: np.ndarray = field(default_factory=lambda: np.zeros(NUM_CELLS, int))


@dataclass
class Measured:
    """Per-cell measurements derived from CellSamples (arrays over the 49 cells)."""

    raw: np.ndarray  # (49, 3) features of the robust mean colour (white-normalised)
    piece: np.ndarray  # (49, 3) the same with the local light divided out
    spread: np.ndarray  # (49,)
    saturated: np.ndarray  # (49,)
    hidden: np.ndarray  # (49,)
    peak: np.ndarray  # (49,) median raw value of the brightest channel (255: clipped)


def clipped_white(px: np.ndarray) -> np.ndarray:
    """Per sample of ``px`` (..., 3): clipped, bright in every channel (a lamp's glare), not
    one channel under a warm cast."""
    return np.asarray((px.max(axis=-1) >= 250) & (px.mean(axis=-1) >= 230))


def measure(cells: np.ndarray, valid: np.ndarray, white: np.ndarray, shade: np.ndarray
            ) -> Measured:
    """Reduce each cell's samples to robust features."""
    norm = cells / np.maximum(white, 8.0)[:, None, :]
    clipped = clipped_white(cells)
    use = valid & ~clipped
    # Mostly clipped (a white top under a bright lamp): use the clipped samples after all.
    few = use.sum(axis=1) < 3
    use[few] = valid[few]
    med = _median(norm, use, 0.5)
    f = features(med)
    # Mixed colours: the typical sample's distance from the cell's brightness, relative to
    # the gap between the cell and paper white (a glossy black's sheen is not a mix).
    lum = norm.mean(axis=-1)
    spread = _median(np.abs(lum - med.mean(axis=1)[:, None]), use, 0.0)
    count = np.maximum(valid.sum(axis=1), 1)
    saturated = (clipped & valid).sum(axis=1) / count
    hidden = 1.0 - valid.mean(axis=1)
    piece = f.copy()
    piece[:, 0] -= shade
    peak = _median(cells.max(axis=-1), valid, 0.0)
    return Measured(f, piece, spread, saturated, hidden, peak)


def plain_view(cells: np.ndarray, valid: np.ndarray, white: np.ndarray, shade: np.ndarray,
               examples: np.ndarray, start: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each cell seen through the board's plain surface only: printed lines (a lattice runs
    through every cell's centre) or fibres may cross a few sample points, more where the
    pose is a few pixels off (an uncorrected lens).

    The frame's empty cells (``examples``) are dozens of samples of one print: pooled, their
    points are mostly the plain surface (lines are thin), so the pooled median is its colour
    and its near spread is the tolerance. Returns, per cell, the features of the median of
    its plain points (raw, white-normalised, like ``Measured.raw``), their spread, and the
    share of its valid points that are plain (nan where the examples are too few). The
    search starts at ``start`` (the board between the cells, where no print runs): a hand
    the colour of the board over some empty cells is another dense part, farther away."""
    n, k = valid.shape
    share = np.full(n, np.nan)
    raw = np.full((n, 3), np.nan)
    spread = np.full(n, np.nan)
    norm = cells / np.maximum(white, 8.0)[:, None, :]
    use = valid  # clipped points too: a bright board's plain surface may clip
    pool = use & examples[:, None]
    if examples.sum() < 4 or pool.sum() < 40:
        return raw, spread, share
    f = features(norm)
    f[..., 0] -= shade[:, None]
    x = f[pool]
    centre = median(x, axis=0) if start is None or not np.all(np.isfinite(start)) else start
    # The plain surface is the densest part (where lines cross many points, the median
    # leans toward the ink): the nearer half of the points around the centre, three times.
    for _ in range(3):
        dist = np.abs(x - centre) @ np.array([1.0, 2.0, 2.0])
        near = x[dist <= median(dist)]
        centre = median(near, axis=0)
    dev = np.abs(near - centre)
    # Spread of the plain surface, from its nearer half (a half-normal's quartile).
    sd = 1.4826 * median(dev, axis=0)
    lim = 3.0 * sd + np.array([0.08, 0.04, 0.04])
    # Chroma is a ratio to brightness: its noise grows in dark spots.
    noise = 0.03 / np.exp(f[..., 0])
    d = np.abs(f - centre)
    plain = use & (d[..., 0] <= lim[0]) & (d[..., 1] <= lim[1] + noise) & (
        d[..., 2] <= lim[2] + noise)
    count = plain.sum(axis=1)
    nuse = np.maximum(use.sum(axis=1), 1)
    share = count / nuse
    # The rest must be the print: colours the examples' other points show (ink, and the
    # ink blurred into the plain surface along the lines).
    other = pool & ~plain
    if other.sum() >= 10:
        y = f[other]
        lo = np.minimum(centre, percentile(y, 2, axis=0)) - lim
        hi = np.maximum(centre, percentile(y, 98, axis=0)) + lim
        tol = np.stack([np.zeros_like(noise), noise, noise], axis=-1)
        printed = use & np.all((f >= lo - tol) & (f <= hi + tol), axis=-1)
    else:
        printed = plain
    share = np.where(printed.sum(axis=1) >= 0.85 * nuse, share, 0.0)
    med = _median(norm, plain, 0.5)
    raw = np.where((count >= 3)[:, None], features(med), np.nan)
    lum = norm.mean(axis=-1)
    spread = np.where(count >= 3, _median(np.abs(lum - med.mean(axis=1)[:, None]), plain, 0.0),
                      np.nan)
    return raw, spread, share


def odd_whites(whites: dict[int, np.ndarray], limit: float = 0.15) -> list[int]:
    """Markers whose card white is not the colour of the others' (a sleeve or a hand over
    its quiet zone): one lamp lights all the cards alike, gradients change their brightness
    only. With three or more, those whose chroma is ``limit`` from the median of all."""
    if len(whites) < 3:
        return []
    ids = list(whites)
    x = np.array([whites[i] for i in ids], dtype=np.float64)
    chroma = features(x / 255.0)[:, 1:]
    med = median(chroma, axis=0)
    far = np.abs(chroma - med).max(axis=1) > limit
    if len(ids) - int(far.sum()) < 2:
        return []
    return [i for i, f in zip(ids, far, strict=True) if f]


def measure_board(s: CellSamples, th: Thresholds, memory: np.ndarray | None = None) -> Board:
    """The board's look between the cells, each cell's local light and foreign cover.

    The board is what most of the surface between the cells shows, unless ``memory`` (the
    board seen in clear views before) disagrees: then a hand covers most of it."""
    shade = np.zeros(NUM_CELLS)
    disturbed = np.zeros(NUM_CELLS)
    if len(s.inter) == 0:
        return Board(np.full(3, np.nan), shade, disturbed, disturbed, False)
    norm = s.inter / np.maximum(s.inter_white, 8.0)
    ok = np.all(np.isfinite(norm), axis=1)
    if ok.sum() < 8:
        return Board(np.full(3, np.nan), shade, disturbed, disturbed, False)
    f = features(np.where(ok[:, None], norm, 0.5))
    centre = median(f[ok], axis=0)
    if memory is not None and (np.abs(centre[1:] - memory[1:]).max() > th.board_chroma
                               or abs(centre[0] - memory[0]) > 0.7):
        centre = memory.copy()
    chroma = np.abs(f[:, 1:] - centre[1:]).max(axis=1)
    # The spread of the board's own chroma (grain, prints) widens what counts as board, and
    # so does the noise of chroma in dark spots (a ratio to brightness).
    # (From the nearer quarter too, as for a half-normal spread: a hand or a sleeve may cover
    # half of the board, and its points must not widen the board's own spread.)
    mad = min(1.4826 * float(median(chroma[ok])),
              3.13 * float(percentile(chroma[ok], 25)))
    limit = max(th.board_chroma, 4.0 * mad) + 0.03 / np.exp(f[:, 0])
    good = ok & (chroma < limit) & (np.abs(f[:, 0] - centre[0]) < th.board_light)
    seen = bool(good.sum() >= max(8, 0.4 * ok.sum()))
    if good.sum() >= 3:
        centre = median(f[good], axis=0)
    idx = np.asarray(s.inter_of)  # (49, 6), -1: not counted
    vis = ok[np.maximum(idx, 0)] & (idx >= 0)
    mine = vis & good[np.maximum(idx, 0)]
    nvis = vis.sum(axis=1)
    foreign = nvis - mine.sum(axis=1)
    # Share of the visible surroundings that is foreign (two at least: one may be a print).
    disturbed = np.where(foreign >= 2, foreign / np.maximum(nvis, 1), 0.0)
    lit = (vis & ~mine & clipped_white(np.nan_to_num(s.inter))[np.maximum(idx, 0)]).sum(axis=1)
    local = _median(f[np.maximum(idx, 0), 0], mine, 0.0)
    # Shadows darken a lot; a lamp brightens a little (more is a print under the points).
    shade = np.where(mine.sum(axis=1) >= 2, np.clip(local - centre[0], -1.0, 0.25), 0.0)
    return Board(centre, shade, disturbed, foreign, seen, lit)


def print_match(ring: np.ndarray, ring_valid: np.ndarray, examples: np.ndarray,
                template: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray | None, float]:
    """How well each cell shows the board's own print around it (z = 0).

    Each radial profile is taken relative to its own median brightness (shade and light cancel);
    the print's template is the median profile, direction by direction, over the ``examples``
    (cells the position says are empty and that read clearly), else ``template`` (learned
    before). Per cell: (|Q|^2 - |Q - T|^2) / |T|^2 over its profiles in view: about 1 where the
    print shows, about -1 where a plain surface (a hand, a sleeve) lies over it. Returns the
    scores (nan: too little in view), the template and its strength relative to the noise
    (|T|^2 over the examples' residual |Q - T|^2: small for a plain board)."""
    med = median(ring, axis=2)[..., None]
    q = ring / np.maximum(med, 4.0) - 1.0
    sel = examples & (ring_valid.sum(axis=1) >= ring_valid.shape[1] // 2)
    if sel.sum() >= 4:
        n, a, r = q[sel].shape
        x = q[sel].reshape(n, a * r).T
        mask = np.repeat(ring_valid[sel], r, axis=1).reshape(n, a * r).T
        t = _median(x, mask, 0.0).reshape(a, r)
    elif template is not None:
        t = template
    else:
        return np.full(len(ring), np.nan), None, 0.0
    vis = ring_valid[..., None]
    tt = (t * t).sum(axis=1)[None, :]  # (1, A)
    num = np.where(ring_valid, 2.0 * (q * t[None]).sum(axis=2) - tt, 0.0).sum(axis=1)
    den = np.where(ring_valid, tt, 0.0).sum(axis=1)
    enough = ring_valid.sum(axis=1) >= ring_valid.shape[1] // 2
    score = np.where(enough & (den > 0), num / np.maximum(den, 1e-9), np.nan)
    strength = 0.0
    if sel.sum() >= 4:
        res = np.where(vis[sel], (q[sel] - t[None]) ** 2, 0.0).sum(axis=(1, 2))
        n = np.maximum(ring_valid[sel].sum(axis=1), 1)
        noise = float(median(res / n))
        strength = float(tt.mean()) / max(noise, 1e-9)
    return score, t, strength



def _median(x: np.ndarray, mask: np.ndarray, default: float) -> np.ndarray:
    """Median over axis 1 of the entries where ``mask`` (N, K) holds; ``default`` if none."""
    inf = np.where(mask if x.ndim == 2 else mask[..., None], x, np.inf)
    srt = np.sort(inf, axis=1)
    n = mask.sum(axis=1)
    lo = np.maximum((n - 1) // 2, 0)
    hi = np.maximum(n // 2, 0)
    idx = np.arange(len(x))
    out = 0.5 * (srt[idx, np.minimum(lo, x.shape[1] - 1)]
                 + srt[idx, np.minimum(hi, x.shape[1] - 1)])
    none = n == 0
    if x.ndim == 3:
        none = none[:, None]
    return np.asarray(np.where(none, default, out))
