"""The table controller: game loop, action inference, LEDs, persistence, CLI."""
