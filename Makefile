PY ?= python3
VENV = .venv
BIN = $(VENV)/bin

# Stamp files: reinstall only when pyproject.toml, setup.py or the compiled
# rules core's C sources change, or a compiled part is missing where it can
# now be built (editable installs pick up Python source changes by
# themselves; the C core is built again on install).
STAMP_INSTALL = $(VENV)/.installed
STAMP_TEST = $(VENV)/.installed-test

.PHONY: install install-test install-pi install-camera browser broker run test bench arm-check page-shots clean

install: $(STAMP_INSTALL)

install-test: $(STAMP_TEST)

# A real board: the web service with the GPIO, LED (SPI) and serial
# libraries (`run --board gpio` or `serial:PORT`, `doctor`, `calibrate`).
install-pi: $(STAMP_INSTALL)
	$(BIN)/python -m pip install -e '.[web,pi]'

# A camera board: the web service with OpenCV (`run --board camera:DEV`,
# `calibrate camera`, `camera read`).
install-camera: $(STAMP_INSTALL)
	$(BIN)/python -m pip install -e '.[web,camera]'

$(BIN)/python:
	$(PY) -m venv $(VENV)

CCORE_SOURCES = setup.py $(wildcard controller/rules/_ccore*.c controller/rules/_ccore*.h \
	controller/engine/_csearch*.c controller/engine/_csearch*.h)

# Installed before a C compiler and Python's headers were (the service's
# log then says "install gcc and python3-dev, then make install"): with
# both there now and a compiled part missing, install again to build it.
# Without them nothing is forced: `make run` does not reinstall every time.
CCORE_BUILT = $(wildcard controller/rules/_ccore*.so controller/engine/_csearch*.so)
CAN_BUILD = $(shell $(PY) -c "import os, shutil, sysconfig; print('yes' if (shutil.which('cc') \
	or shutil.which('gcc')) and os.path.exists(os.path.join(sysconfig.get_paths()['include'], \
	'Python.h')) else '')" 2>/dev/null)
ifneq ($(words $(CCORE_BUILT)),2)
ifeq ($(CAN_BUILD),yes)
$(STAMP_INSTALL): FORCE
endif
endif
FORCE:

$(STAMP_INSTALL): pyproject.toml $(CCORE_SOURCES) | $(BIN)/python
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e '.[web]'
	touch $@

$(STAMP_TEST): pyproject.toml $(STAMP_INSTALL)
	$(BIN)/python -m pip install -e '.[test,web]'
	touch $@

run: install
	$(BIN)/kharbga-board run

# The browser tests drive Debian's chromium (never a downloaded browser).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

# The broadcast tests and benchmark start Debian's Mosquitto on a free port
# (over TLS too, with certificates openssl makes).
broker:
	@test -x /usr/sbin/mosquitto || command -v mosquitto >/dev/null 2>&1 || { \
		echo "installing Debian's mosquitto for the broadcast tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mosquitto; }
	@command -v openssl >/dev/null 2>&1 || { \
		echo "installing Debian's openssl for the broadcast tests over TLS"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssl; }

test: install-test browser broker
	$(BIN)/python -m pytest -n auto --dist worksteal
	$(BIN)/ruff check controller calibration scripts tests firmware
	$(BIN)/mypy --strict controller calibration scripts

# The benchmarks drive the parts the tests drive (OpenCV for the camera's,
# gpiozero's mock pins, MicroPython's unix port, Mosquitto): the test extras.
bench: install-test broker
	$(BIN)/python -m controller.bench

# The compiled rules core and C search built by setup.py for a Raspberry
# Pi's processor (arm64 and armhf) and tested there, under qemu-user
# (apt-get installs the cross compilers and qemu as root): docs/engine-c.md.
arm-check: install-test
	$(BIN)/python scripts/arm_check.py

# docs/page.md's pictures taken again of the page as it is (docs/page.md).
page-shots: install-test browser
	$(BIN)/python scripts/page_shots.py --jobs 2

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
