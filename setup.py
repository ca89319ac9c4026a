"""Build settings that pyproject.toml cannot express: the compiled rules
core (controller/rules/_ccore.c), optional so that an install without a C
compiler or Python's headers still succeeds on the pure-Python core
(controller/rules/accel.py picks whichever is there; see docs/core.md)."""

from setuptools import Extension, setup

CCORE = Extension(
    "controller.rules._ccore",
    sources=["controller/rules/_ccore.c", "controller/rules/_ccore_rules.c"],
    depends=[
        "controller/rules/_ccore_rules.h",
        "controller/rules/_ccore_state.h",
        "controller/rules/_ccore_api.h",
    ],
    extra_compile_args=["-O2", "-std=c11"],
    optional=True,
)

setup(ext_modules=[CCORE])
