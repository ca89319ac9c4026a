"""Hardware drivers: the reed-switch matrix, the LEDs and the buttons on the
Pi's GPIO, the serial link to a Pico, the overhead camera, and their
simulators; the ``[gpio]`` configuration (where each switch and LED sits)
and the guided procedures on the hardware (``doctor``, ``calibrate
matrix``).

Drivers depend on :mod:`controller.board` (and, for the camera, on
calibration's image analysis), their hardware libraries and tomlkit
(a configuration file rewritten with its comments) only: never on
the rules, the reconciler, the engine or the service.  What they deliver
is events (:class:`~controller.board.events.Frame`,
:class:`~controller.board.events.Button`); ``replay --via gpio|firmware``
takes its events from :func:`~controller.drivers.gpio_replay.gpio_events`
and :func:`~controller.drivers.firmware_replay.firmware_events`.  Faults
are logged with :mod:`logging`, one logger per module."""
