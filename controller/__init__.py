"""Controller for a physical Kharbga board.

Layers: ``rules`` (the game), ``reconcile`` (sensor readings to moves),
``engine`` (search), ``drivers`` (hardware), ``service`` (wiring, web) and
``cli`` (the ``kharbga-board`` command).
"""

__version__ = "0.1.0"
