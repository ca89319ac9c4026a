"""The overhead camera's image analysis: markers, homography, the colour
model, live calibration, and the profiles that store them (the reed
matrix's mapping is the drivers': controller/drivers/calibrate_matrix.py)."""

import os

MAX_PIXELS = 50_000_000
"""The most pixels of a picture read (a 50-megapixel photo; a camera over a
board gives 1-8 million).  PNG and JPEG files are refused from their header
(calibration.images); OpenCV refuses other formats when it reads their
header, if this package is imported before cv2 (OpenCV reads the variable
once, when it loads)."""
os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(MAX_PIXELS))
