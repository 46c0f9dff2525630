"""Ridge leverage scores, exact and sketched.

The :math:`\\lambda`-ridge leverage score of row :math:`c_i` of
:math:`C \\in \\mathbb{R}^{n \\times p}` (Definition 7 and Lemma 17 of Raj,
Musco and Mackey, "Importance Sampling via Local Sensitivity", AISTATS 2020)
is the sensitivity of the ridge objective :math:`\\|Cz\\|^2 + \\lambda\\|z\\|^2`,

.. math::

    \\ell_i = \\max_{z \\ne 0} \\frac{(c_i^\\top z)^2}{\\|Cz\\|^2 + z^\\top D z}
    = c_i^\\top (C^\\top C + D)^{-1} c_i,
    \\qquad D = \\operatorname{diag}(\\text{ridge}),

here with a per-column ridge :math:`D` as well as a scalar one
(:math:`D = \\lambda I`): the extra column of the local-sensitivity matrix
of Theorem 9 is divided by :math:`\\delta = \\min_B \\gamma`, which is 0 as
soon as the ball meets the minimizer of :math:`\\gamma`; dividing a column
by :math:`\\delta` is scaling its ridge by :math:`\\delta^2`, so the finite
form keeps the column and gives it a zero or small ridge.
:math:`0 \\le \\ell_i \\le 1` and
:math:`\\sum_i \\ell_i = \\operatorname{tr}(C^\\top C (C^\\top C + D)^{-1})`, the
effective dimension, at most :math:`p`.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.linalg import LinAlgError, blas, cholesky, lapack
from sklearn.utils import check_array, check_random_state

from ..utils._blocks import map_row_blocks, scratch_buffer
from ..utils._params import StrictInterval
from ..utils._sklearn_compat import StrOptions, validate_params
from ._sketches import CountSketch

__all__ = [
    "gram_matrix",
    "leverage_from_gram",
    "leverage_from_transform",
    "leverage_transform",
    "ridge_leverage_scores",
    "sketched_leverage",
]


def _dense_rows(C, rows):
    """Rows ``rows`` of ``C`` as a dense float64 array (one block)."""
    block = C[rows]
    if sp.issparse(block):
        block = block.toarray()
    return np.asarray(block, dtype=np.float64)


def gram_matrix(C):
    """:math:`C^\\top C` in float64, accumulated over row blocks.

    float32 rows are promoted one block at a time, so the Gram matrix (the
    only quantity whose rounding the scores inherit) is float64 without a
    float64 copy of ``C``. The blocks run on threads (float64 arrays too:
    callers may hold BLAS to one thread).
    """
    p = C.shape[1]
    if sp.issparse(C):
        gram = (C.T @ C).toarray()
        return np.asarray(gram, dtype=np.float64)

    def block_gram(rows):
        block = _dense_rows(C, rows)
        return block.T @ block

    return sum(map_row_blocks(block_gram, C.shape[0], p), np.zeros((p, p)))


def _row_norms_of_transform(C, transform):
    """``||transform @ c_i||^2`` for every row, over row blocks on threads.

    ``transform`` is a ``(q, p)`` array.
    """
    n = C.shape[0]
    scores = np.empty(n)

    def fill(rows):
        block = _dense_rows(C, rows)
        transformed = np.matmul(
            transform,
            block.T,
            out=scratch_buffer(transform.shape[0], block.shape[0], np.float64, slot=1),
        )
        scores[rows] = np.einsum("ij,ij->j", transformed, transformed)

    map_row_blocks(fill, n, C.shape[1])
    return scores


def _check_ridge(ridge, p):
    """``ridge`` as a float64 vector of length p, or raise naming it."""
    ridge = np.asarray(ridge, dtype=np.float64)
    if ridge.ndim == 0:
        if not (np.isfinite(ridge) and ridge > 0):
            raise ValueError(
                "The 'ridge' parameter of ridge_leverage_scores must be a positive "
                f"finite float or a vector of non-negative floats; got {float(ridge)}."
            )
        return np.full(p, float(ridge))
    if ridge.shape != (p,):
        raise ValueError(
            "The 'ridge' parameter of ridge_leverage_scores must be a scalar or a "
            f"vector with one entry per column of A ({p}); got shape {ridge.shape}."
        )
    if not np.all(np.isfinite(ridge)) or np.any(ridge < 0):
        raise ValueError(
            "The 'ridge' parameter of ridge_leverage_scores must have finite "
            "non-negative entries."
        )
    return ridge


def _not_positive_definite():
    return ValueError(
        "A^T A + diag(ridge) is not positive definite (a column of A with zero "
        "ridge is linearly dependent on the others): give those columns a "
        "positive 'ridge'."
    )


def _triangular_inverse(factor, lower):
    """Inverse of a triangular matrix (LAPACK trtri)."""
    inverse, info = lapack.dtrtri(factor, lower=int(lower))
    if info != 0:
        raise _not_positive_definite()
    return inverse


def leverage_transform(gram, ridge):
    """The matrix :math:`T` with :math:`c^\\top (G + D)^{-1} c = \\|T c\\|^2`.

    Cholesky of the equilibrated :math:`S (G + D) S = L L^\\top`,
    :math:`S = \\operatorname{diag}(s)`, then :math:`T = L^{-1} S`, so
    that :math:`T^\\top T = (G + D)^{-1}`: :math:`O(p^3)` flops, computed
    once and applied to any number of rows (:func:`leverage_from_transform`).
    Not validated; ``ridge`` is a vector.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles._leverage import leverage_transform
    >>> gram = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> T = leverage_transform(gram, np.ones(2))
    >>> bool(np.allclose(T.T @ T, np.linalg.inv(gram + np.eye(2))))
    True
    """
    matrix = gram + np.diag(ridge)
    # Equilibrate: the extra column of the local-sensitivity matrix can be
    # many orders of magnitude smaller than the others, and a Cholesky of the
    # unscaled matrix would then lose its Schur complement to rounding. With
    # S = diag(s), l_i = (S c_i)^T (S (G + D) S)^{-1} (S c_i) is unchanged.
    diagonal = np.diag(matrix).copy()
    if np.any(diagonal <= 0):
        raise _not_positive_definite()
    scale = 1.0 / np.sqrt(diagonal)
    try:
        lower = cholesky(matrix * np.outer(scale, scale), lower=True)
    except LinAlgError as exc:
        raise _not_positive_definite() from exc
    # The explicit triangular inverse (one p^3/3 LAPACK trtri) times the
    # blocks is one triangular matrix product (trmm) per block, much faster
    # than a triangular solve with many right-hand sides, and as accurate here
    # since the equilibrated factor is well scaled.
    return _triangular_inverse(lower, lower=True) * scale


def leverage_from_transform(C, transform):
    """Scores :math:`\\|T c_i\\|^2` of the rows of ``C``, clipped to [0, 1].

    ``transform`` is :func:`leverage_transform`'s, lower triangular: one
    triangular product (BLAS trmm, half the flops of a GEMM) per block of
    rows, memory bounded by the block size.
    """
    n = C.shape[0]
    scores = np.empty(n)

    def fill(rows):
        block = _dense_rows(C, rows)
        product = blas.dtrmm(1.0, transform, block.T, lower=1)
        scores[rows] = np.einsum("ij,ij->j", product, product)

    map_row_blocks(fill, n, C.shape[1])
    return np.clip(scores, 0.0, 1.0, out=scores)


def leverage_from_gram(C, gram, ridge):
    """Exact scores :math:`c_i^\\top (G + D)^{-1} c_i` given :math:`G = C^\\top C`.

    :math:`\\ell_i = \\|T c_i\\|^2` with :func:`leverage_transform`:
    :math:`O(n p^2 + p^3)` flops, memory bounded by the block size.
    Not validated; ``ridge`` is a vector.
    """
    return leverage_from_transform(C, leverage_transform(gram, ridge))


def _default_jl_components(n):
    return max(20, math.ceil(8.0 * math.log(max(n, 2))))


def sketched_leverage(C, ridge, n_components, random_state):
    """CountSketch + QR + Gaussian JL estimate of the ridge leverage scores.

    Returns the scores and the triangular factor :math:`R` of
    :math:`[SC; D^{1/2}]`, so that :math:`R^\\top R - D` is the sketched Gram
    matrix :math:`C^\\top S^\\top S C`.
    """
    n, p = C.shape
    rng = check_random_state(random_state)
    n_rows = n_components if n_components is not None else 20 * p
    if n_rows < n:
        # S C costs O(nnz(C)): S has one non-zero per column (Clarkson and
        # Woodruff); the ridge rows sqrt(D) are appended unsketched.
        sketch = CountSketch(n_rows, random_state=rng).fit(n)
        sketched = sketch.components_ @ C
        sketched = sketched.toarray() if sp.issparse(sketched) else sketched
    else:
        sketched = C.toarray() if sp.issparse(C) else C
    stacked = np.vstack(
        [np.asarray(sketched, dtype=np.float64), np.diag(np.sqrt(ridge))]
    )
    # Equilibrate, as the exact scores do: columns of very different scales
    # (the extra column of the local-sensitivity matrix, a tiny ridge) would
    # otherwise fail the rank test below on rounding alone. With
    # S = diag(scale), [S C; sqrt(D)] S = Q R' and R = R' S^{-1}.
    norms = np.linalg.norm(stacked, axis=0)
    if not np.all(norms > 0):
        raise _not_positive_definite()
    scale = 1.0 / norms
    # [S C; sqrt(D)] = Q R, so that (C^T S^T S C + D)^{-1} = R^{-1} R^{-T} and
    # l_i ~ ||R^{-T} c_i||^2 = ||c_i^T R^{-1}||^2 = ||c_i^T S R'^{-1}||^2.
    upper_scaled = np.linalg.qr(stacked * scale, mode="r")
    diagonal = np.abs(np.diag(upper_scaled))
    if not np.all(diagonal > 1e-13 * diagonal.max(initial=0.0)):
        raise _not_positive_definite()
    inverse = scale[:, None] * _triangular_inverse(upper_scaled, lower=False)
    k = _default_jl_components(n)
    if k < p:
        # Johnson-Lindenstrauss: ||c_i^T R^{-1} G||^2 with G Gaussian of
        # variance 1/k preserves the k-column norms up to 1 +- O(sqrt(log n/k)).
        gaussian = rng.standard_normal((p, k)) / np.sqrt(k)
        projection = inverse @ gaussian
    else:
        projection = inverse
    upper = upper_scaled * norms
    scores = _row_norms_of_transform(C, np.ascontiguousarray(projection.T))
    return np.clip(scores, 0.0, 1.0, out=scores), upper


@validate_params(
    {
        "A": ["array-like", "sparse matrix"],
        "ridge": ["array-like", StrictInterval(Real, 0, None, closed="neither")],
        "method": [StrOptions({"exact", "sketch"})],
        "n_components": [StrictInterval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def ridge_leverage_scores(
    A, ridge, *, method="exact", n_components=None, random_state=None
):
    """Ridge leverage scores of the rows of a matrix.

    .. math::

        \\ell_i = a_i^\\top (A^\\top A + D)^{-1} a_i, \\qquad
        D = \\operatorname{diag}(\\text{ridge}),

    the sensitivities of :math:`\\|Az\\|^2 + z^\\top D z` (Lemma 17 of the
    paper), i.e. the diagonal of the ridge hat matrix
    :math:`A (A^\\top A + D)^{-1} A^\\top`.

    - ``method='exact'``: Cholesky :math:`A^\\top A + D = L L^\\top` (Gram
      accumulated in float64, equilibrated) and
      :math:`\\ell_i = \\|L^{-1} a_i\\|^2`, over blocks of rows;
      :math:`O(n p^2 + p^3)` flops.
    - ``method='sketch'``: the pattern of Drineas et al. (2012), as in the
      subsampled Newton code of Xu et al. (2016), with the
      Johnson-Lindenstrauss step the paper cites (Section 2.1): a
      CountSketch :math:`S` with ``n_components`` rows
      (:class:`~skcgm.oracles.CountSketch`, :math:`O(\\operatorname{nnz}(A))`),
      :math:`R` from the QR of :math:`[SA; D^{1/2}]`, a Gaussian
      :math:`G \\in \\mathbb{R}^{p \\times k}` of variance :math:`1/k`,
      :math:`k = \\max(20, \\lceil 8 \\ln n \\rceil)`, and
      :math:`\\tilde\\ell_i = \\|a_i^\\top R^{-1} G\\|^2`;
      :math:`O(\\operatorname{nnz}(A) \\log n + r p^2)` flops with
      :math:`r` = ``n_components``. When :math:`k \\ge p` the projection is
      skipped (:math:`\\|a_i^\\top R^{-1}\\|^2` exactly); when
      :math:`r \\ge n` the CountSketch is.

    Sketch guarantee: if :math:`S` is a :math:`(1 \\pm \\epsilon)` subspace
    embedding of the column space of :math:`[A; D^{1/2}]` (a CountSketch
    needs :math:`r = O(p^2/\\epsilon^2)` rows for this in theory, Clarkson
    and Woodruff 2017), then
    :math:`\\|a_i^\\top R^{-1}\\|^2 \\in [\\ell_i/(1+\\epsilon),
    \\ell_i/(1-\\epsilon)]`, and the JL step multiplies every score by a
    factor in :math:`[1-\\epsilon', 1+\\epsilon']` with probability
    :math:`1 - \\delta` when :math:`k = O(\\epsilon'^{-2}\\log(n/\\delta))`
    (Spielman and Srivastava 2011; Drineas et al. 2012). The defaults
    (:math:`r = 20p`) are the practical choice of the subsampled-Newton code
    of Xu et al. (2016); on Gaussian data they keep more than 95% of the
    scores within a factor 2 of the exact ones (tested).

    Parameters
    ----------
    A : {array-like, sparse matrix} of shape (n, p)
        The matrix whose rows are scored; CSR (or any scipy sparse format)
        accepted by both methods; float32 or float64 (not copied in float64:
        blocks of rows are promoted as needed). Not modified.
    ridge : float or array-like of shape (p,)
        :math:`D`: a positive float (:math:`\\lambda I`) or one non-negative
        entry per column, with :math:`A^\\top A + D` positive definite.
    method : {'exact', 'sketch'}, default='exact'
        Exact Cholesky scores or the CountSketch + QR + JL estimate.
    n_components : int, default=None
        Rows :math:`r` of the CountSketch for ``method='sketch'``; None means
        :math:`20p`. Unused by 'exact'.
    random_state : int, RandomState instance or None, default=None
        Seeds the CountSketch and the Gaussian projection; unused by
        'exact'.

    Returns
    -------
    scores : ndarray of shape (n,)
        The leverage scores (float64), clipped to [0, 1].

    Raises
    ------
    ValueError
        If ``ridge`` has the wrong shape or sign, or
        :math:`A^\\top A + D` is not positive definite.

    See Also
    --------
    importance_sample : Draw rows with probabilities proportional to scores.
    skcgm.optim.local_sensitivity_scores : Leverage of the local quadratic
        model of a GLM.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import ridge_leverage_scores
    >>> A = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    >>> ridge_leverage_scores(A, 1.0)
    array([0.5       , 0.33333333, 0.33333333])
    >>> ridge_leverage_scores(A, [0.0, 1.0])
    array([1.        , 0.33333333, 0.33333333])
    """
    A = check_array(
        A,
        accept_sparse="csr",
        dtype=[np.float64, np.float32],
        input_name="A",
    )
    ridge = _check_ridge(ridge, A.shape[1])
    if method == "exact":
        return leverage_from_gram(A, gram_matrix(A), ridge)
    return sketched_leverage(A, ridge, n_components, random_state)[0]
