"""Camera tests need OpenCV and numpy (the ``camera`` extra, installed by
``make test``): a missing one fails the import loudly, never skips."""
