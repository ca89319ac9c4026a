"""Build settings that pyproject.toml cannot express: the compiled rules
core (controller/rules/_ccore.c) and the engine's search in C
(controller/engine/_csearch*.c), both optional so that an install without a C
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

CSEARCH = Extension(
    "controller.engine._csearch",
    sources=[
        "controller/engine/_csearch.c",
        "controller/engine/_csearch_search.c",
        "controller/engine/_csearch_eval.c",
        "controller/engine/_csearch_root.c",
        "controller/rules/_ccore_rules.c",
    ],
    depends=[
        "controller/engine/_csearch.h",
        "controller/engine/_csearch_ctx.h",
        "controller/rules/_ccore_rules.h",
    ],
    extra_compile_args=["-O2", "-std=c11", "-pthread"],
    extra_link_args=["-pthread"],
    optional=True,
)

setup(ext_modules=[CCORE, CSEARCH])
