"""Build the compiled kernels; everything else is declared in pyproject.toml.

Extension modules are the one thing setuptools cannot yet take from
pyproject.toml without an experimental table, so they stay here. Compiled code
is added only where a benchmark showed NumPy could not reach its target
(ARCHITECTURE.md, "Kernels"); setuptools cythonizes the .pyx sources.

The squared-Euclidean Lloyd pass and the CompAdaGrad step run on OpenMP
threads where the compiler supports them (as scikit-learn's own kernels do);
a compiler without OpenMP builds the same loops single-threaded.
"""

import os
import tempfile
import warnings

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# Modules whose loops use cython.parallel.
OPENMP_MODULES = {
    "skcgm.optim.proximal_point._signed_rows_fast",
    "skcgm.optim.sum_of_min._fast",
    "skcgm.utils._openmp",
}
# Modules whose loops of square roots should run on vector registers: C's
# sqrt sets errno on a negative argument, which keeps GCC and Clang from
# vectorizing it; these modules never read errno.
NO_ERRNO_MODULES = {"skcgm.optim.compadagrad._fast"}


def _openmp_flags(compiler):
    """The compile and link flags of OpenMP, or ([], []) if unsupported."""
    if compiler.compiler_type == "msvc":
        return ["/openmp"], []
    flags = ["-fopenmp"]
    source = "#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "check_openmp.c")
        with open(path, "w") as handle:
            handle.write(source)
        try:
            objects = compiler.compile([path], output_dir=tmp, extra_postargs=flags)
            compiler.link_executable(
                objects, "check_openmp", output_dir=tmp, extra_postargs=flags
            )
        except Exception:  # noqa: BLE001 - any compiler or linker failure
            warnings.warn(
                "The compiler does not support OpenMP: the Lloyd pass and the "
                "CompAdaGrad step of skcgm will run on one thread.",
                stacklevel=1,
            )
            return [], []
    return flags, flags


class BuildExtWithOpenMP(build_ext):
    """``build_ext`` adding the OpenMP flags (and ``-fno-math-errno``) to the
    modules that use them."""

    def build_extensions(self):
        compile_flags, link_flags = _openmp_flags(self.compiler)
        for extension in self.extensions:
            if extension.name in OPENMP_MODULES:
                extension.extra_compile_args += compile_flags
                extension.extra_link_args += link_flags
            if (
                extension.name in NO_ERRNO_MODULES
                and self.compiler.compiler_type != "msvc"
            ):
                extension.extra_compile_args += ["-fno-math-errno"]
        super().build_extensions()


setup(
    cmdclass={"build_ext": BuildExtWithOpenMP},
    ext_modules=[
        Extension(
            "skcgm.optim.sum_of_min._fast",
            sources=["src/skcgm/optim/sum_of_min/_fast.pyx"],
        ),
        Extension(
            "skcgm.optim.proximal_point._signed_rows_fast",
            sources=["src/skcgm/optim/proximal_point/_signed_rows_fast.pyx"],
        ),
        Extension(
            "skcgm.optim.compadagrad._eigen_update",
            sources=["src/skcgm/optim/compadagrad/_eigen_update.pyx"],
        ),
        Extension(
            "skcgm.optim.compadagrad._fast",
            sources=["src/skcgm/optim/compadagrad/_fast.pyx"],
        ),
        Extension(
            "skcgm.oracles._glm_loss_fast",
            sources=["src/skcgm/oracles/_glm_loss_fast.pyx"],
        ),
        Extension(
            "skcgm.oracles._mips_fast",
            sources=["src/skcgm/oracles/_mips_fast.pyx"],
        ),
        Extension(
            "skcgm.utils._openmp",
            sources=["src/skcgm/utils/_openmp.pyx"],
        ),
        Extension(
            "skcgm.utils._magnitude",
            sources=["src/skcgm/utils/_magnitude.pyx"],
        ),
    ],
)
