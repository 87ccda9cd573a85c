"""Build hook for the optional compiled search core (engine/_dvonncore.c).

Everything else is in pyproject.toml. The extension is optional: without a C compiler or the
Python headers, ``pip install`` still succeeds and the pure-Python engine is used (it gives
identical results, only slower; see engine/accel.py).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "engine._dvonncore",
            sources=["engine/_dvonncore.c"],
            depends=["engine/_dvonnboard.h", "engine/_dvonneval.h", "engine/_dvonnsearch.h",
                     "engine/_dvonnshared.h", "engine/_dvonnsmp.h"],
            extra_compile_args=["-O2", "-std=c99"],
            optional=True,
        )
    ]
)
