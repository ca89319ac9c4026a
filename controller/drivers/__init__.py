"""Hardware drivers: the reed-switch matrix, the LEDs and the buttons on the
Pi's GPIO, the serial link to a Pico, and their simulators."""
