"""Pieces of a set the camera was not calibrated with, read as calibrated ones.

Each frame's class means are fitted to the frame's own colours (its light),
so the pieces of another set can pull a class to themselves and be read as
it, square after square, without a ``?``: stone and brown pieces on a camera
calibrated with blue and pink read as Defenders and empty squares.  Such
readings sit far from what the calibration's class looks like in the
frame's light (its means scaled to the frame's piece contrast, its
calibrated spread, before the frame moved them): on rendered frames, 6 to
11 sigma, where the calibrated sets under room light, a dim room, a lamp's
hot spot, a warm lamp or a hard shadow read at most 5.5 (one square in a
hot spot), and the benchmark's rooms up to 6.6 (one or two squares a
picture).  Four or more squares beyond 6 sigma in one frame are pieces it
does not know, and every square read beyond 4.5 is read ``?`` instead.
"""

from __future__ import annotations

from calibration.colour import CLASSES, ColourModel, Features

__all__ = ["FOREIGN", "FOREIGN_SQUARES", "NEAR_FOREIGN", "foreign_squares"]

FOREIGN = 6.0  # distance of a reading to its class as calibrated, in this frame's light
FOREIGN_SQUARES = 4  # this many readings that far in one frame: pieces of another set
NEAR_FOREIGN = 4.5  # and then every reading this far reads '?'


def foreign_squares(model: ColourModel, feats: Features, cells: str) -> frozenset[int]:
    """The squares of a frame read (empty or a piece) more than 4.5 sigma
    from how their class looked at calibration, in the frame's light
    (``model``: the frame's adapted model), when 4 or more are more than 6
    sigma from it; else none."""
    calibrated = ColourModel(model.expected, model.calibrated_covs, model.floor)
    d = calibrated.distances(feats.f, feats.spread)
    own = {i: float(d[i, CLASSES.index(c)]) for i, c in enumerate(cells) if c != "?"}
    if sum(x > FOREIGN for x in own.values()) < FOREIGN_SQUARES:
        return frozenset()
    return frozenset(i for i, x in own.items() if x > NEAR_FOREIGN)
