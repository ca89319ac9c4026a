"""Calibration of the board's sensors: camera markers, homography, colour model,
reed-matrix mapping, and the profiles that store them."""
