"""The solvers of :class:`~skcgm.linear_model.LocalSensitivityLogistic` by
name, and the rule that ``solver='auto'`` follows."""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import inspect

from ._solvers import LBFGSSolver, ProximalPointSolver, draws_per_round

__all__ = ["SOLVERS", "auto_solver", "make_solver"]

#: The solvers of the ``solver`` option; a new solver is one more entry.
SOLVERS = {solver.name: solver for solver in (ProximalPointSolver, LBFGSSolver)}

# sample_size='auto' fits on all the rows below this many samples. Measured on
# one core (user guide, "Choosing the defaults"): on 2,000 to 10,000 rows of
# make_logistic_classification(n, 20) and make_heavy_tailed_classification(n,
# 20), a sampled fit with the other defaults took 7 to 36 times as long as the
# full-data L-BFGS fit and stopped at a relative objective error of 4e-3 to
# 1e-2, where L-BFGS reaches 1e-7: too few draws per round to pay.
AUTO_FULL_DATA_BELOW = 10_000
# solver='auto' on a dask array (with sample_size='auto') runs one round
# only when it draws at least this many rows per coefficient, and L-BFGS on
# all the rows otherwise. Measured (benchmarks/_defaults_dask_one_round.py,
# benchmarks/HISTORY.md): one round's relative objective error is about
# c (d + 1) / m with c from 0.2 to 12 over the defaults panel's families;
# below 2,000 draws per coefficient it exceeded 1e-3 in 32 of 39 cells (up
# to 1.2), from 2,000 on it stayed at most 5.4e-4 (10 cells).
DASK_DRAWS_PER_COEFFICIENT = 2000


def auto_solver(sampling, sample_size, n_samples, n_coefficients, on_chunks):
    """The solver that ``solver='auto'`` stands for.

    'lbfgs' (:class:`LBFGSSolver`) for ``sampling='full'``, where the
    minimizer on every row is asked for; with ``sample_size='auto'``, also on
    fewer than 10,000 rows in memory (too few draws a round for sampling to
    pay, see :data:`AUTO_FULL_DATA_BELOW`) and on a dask array whose round
    would draw fewer than 2,000 rows per coefficient
    (:data:`DASK_DRAWS_PER_COEFFICIENT`; :func:`draws_per_round`).
    'proximal_point' (:class:`ProximalPointSolver`) otherwise.

    Parameters
    ----------
    sampling : str
        The estimator's ``sampling``.
    sample_size : 'auto', int or float
        The estimator's ``sample_size``.
    n_samples : int
        The number of rows.
    n_coefficients : int
        The number of features, plus one with an intercept.
    on_chunks : bool
        Whether the rows are a dask array's.

    Returns
    -------
    name : {'lbfgs', 'proximal_point'}
        A key of :data:`SOLVERS`.

    Examples
    --------
    >>> from skcgm.optim.proximal_point import auto_solver
    >>> auto_solver("local_sensitivity", "auto", 9_999, 21, on_chunks=False)
    'lbfgs'
    >>> auto_solver("local_sensitivity", "auto", 10_000, 21, on_chunks=False)
    'proximal_point'
    """
    if sampling == "full":
        return "lbfgs"
    if sample_size != "auto":
        return "proximal_point"
    if not on_chunks:
        few = n_samples < AUTO_FULL_DATA_BELOW
    else:
        draws = draws_per_round("auto", n_samples, on_chunks=True)
        few = draws < DASK_DRAWS_PER_COEFFICIENT * n_coefficients
    return "lbfgs" if few else "proximal_point"


def make_solver(name, **options):
    """The solver ``name`` of :data:`SOLVERS`, with the options it takes.

    The callers pass their whole set of options; each solver keeps those
    its constructor names.

    Examples
    --------
    >>> from skcgm.optim.proximal_point import make_solver
    >>> make_solver("lbfgs", max_iter=7, sampling="full").max_iter
    7
    """
    cls = SOLVERS[name]
    accepted = inspect.signature(cls).parameters
    return cls(**{key: value for key, value in options.items() if key in accepted})
