"""Hardware drivers: the reed-switch matrix, the LEDs and the buttons on the
Pi's GPIO, the serial link to a Pico, the overhead camera, and their
simulators.

Drivers depend on :mod:`controller.board` (and, for the camera, on
calibration's image analysis) and their hardware libraries only: never on
the rules, the reconciler, the engine or the service.  What they deliver
is events (:class:`~controller.board.events.Frame`,
:class:`~controller.board.events.Button`); ``replay --via gpio|firmware``
takes its events from :func:`~controller.drivers.gpio_replay.gpio_events`
and :func:`~controller.drivers.firmware_replay.firmware_events`.  Faults
are logged with :mod:`logging`, one logger per module."""
