"""The reader's cues: what a frame says beyond one cell's colour.

Each module answers one question the colour model or the reader asks of a frame: how far a
top's colour is from each piece class (``colour_dist``), which tops this frame shows of each
colour (``frame_classes``), whether a new piece or an outline stands where the position says
empty (``new_tops``), whether a cell still looks as it did when last seen empty
(``own_look``), whether a stack is taller than the position says (``taller``), where a hand
or an arm lies over the board (``hands``) and which stacks a hand moved (``touch``).

They sit above the sampling (``vision.geometry``, ``vision.pose``, ``vision.stats``,
``vision.sampling``) and below the colour model (``vision.classify``) and the reader.
"""
