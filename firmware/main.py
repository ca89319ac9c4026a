# Run by MicroPython at boot: the board controller (see app.py).
import app

app.run()
