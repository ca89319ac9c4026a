"""The hall: one read-only page of every board publishing to an MQTT
broker (``kharbga-board hall``).

What boards and the hall agree on (:mod:`.protocol`, which the board's
broadcast uses too), the bookkeeping of every board heard and its games
(:mod:`.model`, no network), and the subscriber with its page
(:mod:`.server`).  Imports only :mod:`controller.board` and
:mod:`controller.rules` of the project."""
