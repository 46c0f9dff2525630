"""Build the compiled kernels; everything else is declared in pyproject.toml.

Extension modules are the one thing setuptools cannot yet take from
pyproject.toml without an experimental table, so they stay here. Compiled code
is added only where a benchmark showed NumPy could not reach its target
(ARCHITECTURE.md, "Kernels"); setuptools cythonizes the .pyx sources.

The squared-Euclidean Lloyd pass and the local-sensitivity passes run on
OpenMP threads where the compiler supports them (as scikit-learn's own kernels
do); a compiler without OpenMP builds the same loops single-threaded. The
binary wheels carry the OpenMP runtime they link (pyproject.toml,
``[tool.cibuildwheel]``).
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


# The compile and link flags that turn OpenMP on, by compiler, tried in order:
# GCC and LLVM clang take -fopenmp; Apple's clang takes the flag through its
# preprocessor and links libomp (Homebrew's, found through CPPFLAGS and
# LDFLAGS, as the wheel workflow sets them).
_OPENMP_CANDIDATES = {
    "msvc": [(["/openmp"], [])],
    "unix": [
        (["-fopenmp"], ["-fopenmp"]),
        (["-Xpreprocessor", "-fopenmp"], ["-lomp"]),
    ],
}


def _openmp_works(compiler, compile_flags, link_flags):
    """Whether a source calling the OpenMP runtime compiles and links."""
    source = "#include <omp.h>\nint threads(void) { return omp_get_max_threads(); }\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "check_openmp.c")
        with open(path, "w") as handle:
            handle.write(source)
        try:
            objects = compiler.compile(
                [path], output_dir=tmp, extra_postargs=compile_flags
            )
            # A shared object, linked as the extensions are (with LDFLAGS).
            compiler.link_shared_object(
                objects,
                os.path.join(tmp, "check_openmp.so"),
                extra_postargs=link_flags,
            )
        except Exception:  # noqa: BLE001 - any compiler or linker failure
            return False
    return True


def _openmp_flags(compiler):
    """The compile and link flags of OpenMP, or ([], []) if unsupported."""
    candidates = _OPENMP_CANDIDATES.get(
        compiler.compiler_type, _OPENMP_CANDIDATES["unix"]
    )
    if compiler.compiler_type == "msvc":
        return candidates[0]
    for compile_flags, link_flags in candidates:
        if _openmp_works(compiler, compile_flags, link_flags):
            return compile_flags, link_flags
    warnings.warn(
        "The compiler does not support OpenMP: the compiled passes of skcgm "
        "will run on one thread.",
        stacklevel=1,
    )
    return [], []


class BuildExtWithOpenMP(build_ext):
    """``build_ext`` adding the OpenMP flags (and ``-fno-math-errno``) to the
    modules that use them, and compiling without debug information."""

    def finalize_options(self):
        super().finalize_options()
        # The extensions compile in parallel (setuptools' --parallel), one
        # process per core: the build is most of an install's time.
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def build_extensions(self):
        compile_flags, link_flags = _openmp_flags(self.compiler)
        for extension in self.extensions:
            if extension.name in OPENMP_MODULES:
                extension.extra_compile_args += compile_flags
                extension.extra_link_args += link_flags
            if self.compiler.compiler_type == "msvc":
                continue
            if extension.name in NO_ERRNO_MODULES:
                extension.extra_compile_args += ["-fno-math-errno"]
            # No debug information (Python's flags ask for -g): measured, the
            # build took 36 s instead of 60 s on 2 cores and the wheel weighs
            # 1.4 MB instead of 4.9 MB.
            extension.extra_compile_args += ["-g0"]
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
