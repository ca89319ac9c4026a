"""Controller for a physical Kharbga board.

Layers: ``board`` (the shared vocabulary every layer speaks), ``rules``
(the game), ``reconcile`` (sensor readings to moves), ``engine`` (search),
``drivers`` (hardware), ``hall`` (the page of many boards over MQTT),
``service`` (wiring, web) and ``cli`` (the ``kharbga-board`` command); the
camera's image analysis is the top-level ``calibration`` package
(docs/architecture.md).
"""

__version__ = "0.1.0"
