"""MicroPython firmware for the hall-sensor board (also importable on CPython for tests)."""
