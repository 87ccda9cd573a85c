"""Tables and players that are not here, through a real MQTT broker (Mosquitto or any other).

- ``url``: ``mqtt://HOST[:PORT]/PATH`` and the credentials/TLS that come from the config or
  the environment (never the command line).
- ``link``: one broker connection (paho-mqtt), reconnecting by itself, retained state
  republished after every reconnect.
"""
