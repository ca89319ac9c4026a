"""The board service: wiring sensors, reconciler, records and the web page."""
