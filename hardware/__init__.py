"""Devices behind small interfaces (LED strips, sensor board, buttons, cameras) and their fakes."""
