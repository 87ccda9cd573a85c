"""A synthetic camera for tests and benchmarks: frames of a known position, with the truth.

- :mod:`vision.synthetic.render`: scenes (position, camera, light, hands) -> frames + truth.
- :mod:`vision.synthetic.materials`: board-plane textures of real tables and prints.

The reader never imports it: it serves the tests, the benchmarks and ``vision render``.
"""
