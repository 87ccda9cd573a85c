"""A synthetic camera for tests and benchmarks: frames of a known position, with the truth.

- :mod:`vision.synthetic.render`: scenes (position, camera, light, hands) -> frames + truth.
- :mod:`vision.synthetic.materials`: board-plane textures of real tables and prints.
- :mod:`vision.synthetic.leds`: the table's own LEDs glowing through their holes.
- :mod:`vision.synthetic.room`: a drifting room light, people's shadows, and a camera's
  automatic exposure and white balance, per frame.

The reader never imports it: it serves the tests, the benchmarks and ``vision render``.
"""
