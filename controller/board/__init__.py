"""The shared board vocabulary: what every layer of the controller speaks.

Board geometry (points, names, lines, bit iteration), sides and phases,
sensor events and the sensor-log format, LED roles and their colours.
This package imports nothing else of the project, and only the standard
library; everything else may import it.
"""
