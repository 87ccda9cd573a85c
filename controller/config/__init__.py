"""The table's configuration (``~/.config/dvonn-board/config.toml``).

- :mod:`controller.config.settings`: the settings, their defaults, and the TOML loader
  that names the key of every bad value.
- :mod:`controller.config.example`: the documented example (``example.toml`` beside it),
  generated from the defaults and the hardware code's own.
"""
