"""The evaluation's weights (engine/evaluate.py reads them; the compiled core gets them from
there through engine/accel.py). Written by ``python benchmarks/learn.py write``: do not edit by
hand, rerun the pipeline (generate, fit, write) instead.

Each weight is an integer for one feature (``MOVING_FEATURES`` / ``PLACING_FEATURES`` in
engine/evaluate.py) at two stages, interpolated linearly between them: the moving phase from
49 stacks on the board (``MOVING_FULL``) to none (``MOVING_EMPTY``), the placing phase from ply
0 (``PLACING_EARLY``) to ply 49 (``PLACING_LATE``); a value is the sum of feature times weight
divided by the phase's ``*_DEN`` (centipieces: 100 = one piece).
"""

NOTE = 'fitted by benchmarks/learn.py on data.npz: 63000 samples, K 134.0, lambda 0.5'
MOVING_DEN = 6400
MOVING_FULL = (
    7682,  # stack
    307,  # move
    739,  # life
    2439,  # enemy
    -2887,  # height
    -1830,  # mobile
    -1558,  # capture
    -64,  # locked
    -614,  # dangling
    3049,  # dvonn
    6671,  # tempo
)
MOVING_EMPTY = (
    3151,  # stack
    1663,  # move
    2380,  # life
    -133,  # enemy
    4534,  # height
    -2424,  # mobile
    2678,  # capture
    -2014,  # locked
    -458,  # dangling
    -3899,  # dvonn
    857,  # tempo
)
PLACING_DEN = 256
PLACING_EARLY = (
    -1197,  # distance
    2141,  # near1
    1239,  # near2
    -3293,  # clump
    -2215,  # edgepen
    1981,  # edge
    -181,  # field
    -9,  # own
    -103,  # empty
    3565,  # dvonnadj
    -8341,  # tempo
)
PLACING_LATE = (
    -972,  # distance
    5353,  # near1
    4529,  # near2
    -1986,  # clump
    1919,  # edgepen
    3999,  # edge
    -325,  # field
    837,  # own
    266,  # empty
    6085,  # dvonnadj
    -15865,  # tempo
)
