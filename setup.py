"""Build the compiled kernels; everything else is declared in pyproject.toml.

Extension modules are the one thing setuptools cannot yet take from
pyproject.toml without an experimental table, so they stay here. Compiled code
is added only where a benchmark showed NumPy could not reach its target
(ARCHITECTURE.md, "Kernels"); setuptools cythonizes the .pyx sources.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "skcgm.optim._sum_of_min_fast",
            sources=["src/skcgm/optim/_sum_of_min_fast.pyx"],
        ),
        Extension(
            "skcgm.optim._signed_rows_fast",
            sources=["src/skcgm/optim/_signed_rows_fast.pyx"],
        ),
        Extension(
            "skcgm.optim._eigen_update",
            sources=["src/skcgm/optim/_eigen_update.pyx"],
        ),
        Extension(
            "skcgm.oracles._glm_loss_fast",
            sources=["src/skcgm/oracles/_glm_loss_fast.pyx"],
        ),
        Extension(
            "skcgm.oracles._mips_fast",
            sources=["src/skcgm/oracles/_mips_fast.pyx"],
        ),
    ]
)
