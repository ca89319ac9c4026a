"""The board service: wiring sensors, reconciler, records and the web page;
the engine's hints and moves in child processes, the broadcast over MQTT,
and the ``run``, ``games`` and ``replay`` commands."""
