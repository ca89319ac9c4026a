"""The overhead camera's image analysis: markers, homography, the colour
model, live calibration, and the profiles that store them (the reed
matrix's mapping is the drivers': controller/drivers/calibrate_matrix.py)."""
