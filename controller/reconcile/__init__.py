"""From the physical board's sensors to the game: the reconciler that
turns readings and button presses into moves, what the players are told
(the status line and the LED roles), the replay of sensor logs through it
and a simulator of people playing on the board that writes them (the
sensor-log format itself is :mod:`controller.board.sensorlog`)."""
