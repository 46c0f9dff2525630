"""Random sketches: the fast Walsh-Hadamard transform, the SRHT and CountSketch.

CompAdaGrad (Mehta, Rendell, Varghese and Webers, 2016) keeps full-matrix
AdaGrad in the :math:`k`-dimensional subspace spanned by the rows of a
subsampled randomized Hadamard transform (SRHT, Section 2 of the paper)

.. math::

    \\Pi = \\sqrt{n / k}\\, R H \\Sigma \\in \\mathbb{R}^{k \\times n},

with :math:`H` the orthonormal :math:`n \\times n` Walsh-Hadamard matrix
(:math:`n` a power of two: features are zero-padded), :math:`\\Sigma` a
diagonal of i.i.d. Rademacher signs and :math:`R` a uniformly random
selection of :math:`k` of the :math:`n` rows, drawn once and fixed for the
whole run (Section 2 of the paper). :func:`fwht` applies :math:`H` in
:math:`O(n \\log n)`; :class:`SRHT` draws and applies :math:`\\Pi`;
:class:`CountSketch` is the sparse sketch of Clarkson and Woodruff, applied
in time proportional to the number of non-zeros.

Sketches are small picklable objects holding hyper-parameters only, with
``get_params``/``set_params`` (clonable with :func:`sklearn.base.clone`),
drawn in ``fit`` and stored in attributes ending in ``_``.
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import functools
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array, check_random_state
from sklearn.utils.validation import check_is_fitted

from ..utils._math import next_power_of_two
from ..utils._params import ParamsMixin, StrictInterval
from ..utils._sklearn_compat import StrOptions, validate_params

__all__ = ["SRHT", "CountSketch", "fwht"]

# Elements of one block of rows transformed together by SRHT.transform and
# SRHT.inverse_transform: 2**20 float64 values are 8 MiB.
_BLOCK_ELEMENTS = 2**20


# Butterfly passes over bits below this block are done by one product with
# the 64 x 64 Hadamard matrix: the Sylvester matrix factors as
# W_d = W_{d/h} (x) W_h, and BLAS does those six passes in one call, where
# six NumPy butterflies would cost six rounds of temporaries.
_BLOCK = 64


@functools.cache
def _hadamard(h, dtype):
    """The +-1 Sylvester matrix of order ``h`` (a power of two), read-only."""
    W = np.ones((1, 1), dtype=dtype)
    while W.shape[0] < h:
        W = np.block([[W, W], [W, -W]])
    W.setflags(write=False)
    return W


def _fwht_inplace(a):
    """Unnormalized Walsh-Hadamard transform of the rows of a 2-D float array.

    Sylvester (natural) ordering: row ``x`` becomes ``x @ H`` with
    ``H[i, j] = (-1) ** popcount(i & j)``. With ``h = min(d, 64)``, the row
    seen as a ``(d/h, h)`` matrix :math:`X` becomes :math:`W_{d/h} X W_h`;
    :math:`X W_h` is one matrix product, and :math:`W_{d/h}` is a second one
    when ``d/h <= 64``, otherwise one butterfly per remaining bit, vectorized
    over the rows and the blocks. ``a`` must be C-contiguous.
    """
    n_rows, d = a.shape
    h = min(d, _BLOCK)
    low = a.reshape(n_rows * (d // h), h)
    low[...] = low @ _hadamard(h, a.dtype)
    if d == h:
        return a
    m = d // h
    if m <= _BLOCK:
        blocks = a.reshape(n_rows, m, h)
        blocks[...] = np.matmul(_hadamard(m, a.dtype), blocks)
        return a
    step = h
    while step < d:
        blocks = a.reshape(n_rows, d // (2 * step), 2, step)
        top = blocks[:, :, 0, :]
        bottom = blocks[:, :, 1, :]
        # (top, bottom) <- (top + bottom, top - bottom), one temporary of half
        # the data; computing bottom from the updated top would round twice.
        saved = top.copy()
        top += bottom
        np.subtract(saved, bottom, out=bottom)
        step *= 2
    return a


def _as_float_array(X, name):
    """``X`` as a float32 or float64 ndarray (other dtypes become float64)."""
    if sp.issparse(X):
        raise TypeError(
            f"{name} must be a dense array; a sparse matrix was given. Convert it "
            "with X.toarray()."
        )
    X = np.asarray(X)
    if X.dtype not in (np.float32, np.float64):
        try:
            X = X.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"{name} must be a numeric array; got dtype {X.dtype}."
            ) from exc
    return X


def fwht(X, *, normalize=True):
    """Fast Walsh-Hadamard transform along the last axis.

    Computes :math:`y = H x` for every vector :math:`x` along the last axis
    of ``X`` (the leading axes are a batch), in :math:`O(d \\log d)` per
    vector, with the Sylvester-ordered Hadamard matrix

    .. math::

        H_{ij} = \\frac{1}{\\sqrt{d}} (-1)^{\\operatorname{popcount}(i \\wedge j)},
        \\qquad 0 \\le i, j < d,

    so that ``fwht(X)`` equals ``X @ scipy.linalg.hadamard(d) / sqrt(d)``
    (:math:`H` is symmetric). With ``normalize=True`` :math:`H` is orthogonal
    and an involution, ``fwht(fwht(X)) == X``; the SRHT of the CompAdaGrad
    paper (Section 2) uses this orthonormal :math:`H`.

    Parameters
    ----------
    X : array-like of shape (..., d)
        Vectors to transform along the last axis; ``d`` must be a power of
        two. float32 is kept; other dtypes are converted to float64. ``X``
        is never modified.
    normalize : bool, default=True
        Whether to divide by :math:`\\sqrt{d}` (the orthonormal transform);
        False gives the :math:`\\pm 1` matrix of :func:`scipy.linalg.hadamard`.

    Returns
    -------
    Y : ndarray of shape (..., d)
        The transformed vectors, a new array.

    See Also
    --------
    SRHT : Subsampled randomized Hadamard transform built on it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import fwht
    >>> fwht(np.array([1.0, 0.0, 0.0, 0.0]), normalize=False)
    array([1., 1., 1., 1.])
    >>> fwht(np.array([[1.0, 2.0], [3.0, 4.0]]), normalize=False)
    array([[ 3., -1.],
           [ 7., -1.]])
    >>> x = np.arange(8.0)
    >>> bool(np.allclose(fwht(fwht(x)), x))
    True
    """
    X = _as_float_array(X, "X")
    if X.ndim == 0:
        raise ValueError("X must have at least one dimension; got a scalar.")
    d = X.shape[-1]
    if d == 0 or d & (d - 1):
        raise ValueError(
            "The last dimension of X must be a power of two (zero-pad it, e.g. "
            f"to {next_power_of_two(d)}); got {d}."
        )
    # A C-contiguous working copy: the input is never modified.
    out = np.array(X, dtype=X.dtype, order="C", copy=True)
    if out.size == 0:
        return out
    _fwht_inplace(out.reshape(-1, d))
    if normalize:
        out *= 1.0 / np.sqrt(d)
    return out


# The argument of the sketches' fit.
_FIT_CONSTRAINTS = {"n_features": [StrictInterval(Integral, 1, None, closed="left")]}
_NOT_FITTED = (
    "This %(name)s instance is not fitted yet. Call 'fit' with the number of "
    "features before using it."
)


def _fit_start(sketch, n_features):
    """Validate the sketch's parameters; the ``(n_features, rng)`` of its fit."""
    sketch._validate_params()
    return int(n_features), check_random_state(sketch.random_state)


class SRHT(ParamsMixin):
    """Subsampled randomized Hadamard transform, with zero padding.

    The map :math:`\\Pi : \\mathbb{R}^n \\to \\mathbb{R}^k` of the CompAdaGrad
    paper (Section 2):

    .. math::

        \\Pi = c\\, R H \\Sigma, \\qquad
        c = \\sqrt{n / k} \\;\\; (\\text{scaling='srht'}) \\quad \\text{or}
        \\quad c = 1 \\;\\; (\\text{scaling='orthonormal'}),

    where :math:`n` is the number of features zero-padded to a power of two,
    :math:`H` the orthonormal Walsh-Hadamard matrix (:func:`fwht`),
    :math:`\\Sigma = \\operatorname{diag}(\\sigma)` Rademacher signs and
    :math:`R` keeps a uniformly random set of :math:`k` rows (sorted). The
    rows are orthogonal:

    .. math::

        \\Pi \\Pi^\\top = c^2 I_k = \\frac{n}{k} I_k \\;\\; \\text{('srht')}
        \\quad \\text{or} \\quad I_k \\;\\; \\text{('orthonormal')},

    so :math:`P = \\Pi^\\top \\Pi / c^2` is the orthogonal projector onto the
    sketched subspace. 'srht' is the map of the paper's algorithm and
    experiments; 'orthonormal' is :math:`\\tilde\\Pi = R H \\Sigma` of its
    regret analysis (Section 3 of the paper, which bounds the regret of
    this unscaled variant).

    Parameters
    ----------
    n_components : int
        Number :math:`k` of rows kept; capped at the padded dimension
        :math:`n`. 0 keeps none (the empty subspace).
    scaling : {'srht', 'orthonormal'}, default='srht'
        The factor :math:`c`: :math:`\\sqrt{n/k}` or 1.
    random_state : int, RandomState instance or None, default=None
        Seeds the signs and the rows.

    Attributes
    ----------
    n_features_in_ : int
        Number of features before padding.
    n_padded_ : int
        :math:`n`, the smallest power of two at least ``n_features_in_``.
    n_components_ : int
        :math:`k = \\min(\\text{n\\_components}, n)`.
    signs_ : ndarray of shape (n_padded,)
        The Rademacher signs :math:`\\sigma`, float64 :math:`\\pm 1`.
    rows_ : ndarray of shape (n_components,)
        The rows of :math:`H` kept by :math:`R`, sorted.
    scale_ : float
        :math:`c` (1 when ``n_components_`` is 0).
    components_ : ndarray of shape (n_components, n_padded)
        The explicit matrix :math:`\\Pi`, float64, C-contiguous; for small
        :math:`k` a matrix product with it is the fastest way to apply
        :math:`\\Pi` and :math:`\\Pi^\\top`. It holds :math:`k n` floats
        (8 MiB for :math:`k = 32`, :math:`n = 2^{15}`).

    See Also
    --------
    fwht : The fast Walsh-Hadamard transform.
    CountSketch : Sparse sketch applied in time proportional to the non-zeros.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import SRHT
    >>> srht = SRHT(4, random_state=0).fit(10)
    >>> srht.n_padded_, srht.n_components_, srht.components_.shape
    (16, 4, (4, 16))
    >>> Pi = srht.components_
    >>> bool(np.allclose(Pi @ Pi.T, (16 / 4) * np.eye(4)))
    True
    >>> X = np.random.RandomState(0).standard_normal((3, 10))
    >>> bool(np.allclose(srht.transform(X), X @ Pi[:, :10].T))
    True
    """

    _parameter_constraints: dict = {
        "n_components": [StrictInterval(Integral, 0, None, closed="left")],
        "scaling": [StrOptions({"srht", "orthonormal"})],
        "random_state": ["random_state"],
    }

    def __init__(self, n_components, *, scaling="srht", random_state=None):
        self.n_components = n_components
        self.scaling = scaling
        self.random_state = random_state

    @validate_params(_FIT_CONSTRAINTS, prefer_skip_nested_validation=True)
    def fit(self, n_features):
        """Draw the signs and the rows for vectors of ``n_features`` entries.

        Parameters
        ----------
        n_features : int
            Dimension of the vectors to sketch, at least 1; padded to the next
            power of two.

        Returns
        -------
        self : SRHT
            The fitted sketch.
        """
        n_features, rng = _fit_start(self, n_features)
        n = next_power_of_two(n_features)
        k = min(int(self.n_components), n)
        self.n_features_in_ = n_features
        self.n_padded_ = n
        self.n_components_ = k
        self.signs_ = rng.choice(np.array([-1.0, 1.0]), size=n)
        self.rows_ = np.sort(rng.choice(n, size=k, replace=False)).astype(np.intp)
        self.scale_ = float(np.sqrt(n / k)) if self.scaling == "srht" and k else 1.0
        # Rows of the unnormalized H from one-hot vectors (H is symmetric), then
        # the orthonormal factor, the scale and the signs: exact +-1 arithmetic.
        one_hot = np.zeros((k, n))
        one_hot[np.arange(k), self.rows_] = 1.0
        components = _fwht_inplace(one_hot)
        components *= self.scale_ / np.sqrt(n)
        components *= self.signs_
        self.components_ = components
        return self

    def _check_X(self, X, name, widths):
        X = check_array(
            X,
            accept_sparse="csr",
            dtype=[np.float64, np.float32],
            ensure_2d=False,
            input_name=name,
        )
        if X.ndim not in (1, 2) or X.shape[-1] not in widths:
            expected = " or ".join(str(w) for w in sorted(set(widths)))
            raise ValueError(
                f"{name} must be a 1-D or 2-D array with {expected} columns; got "
                f"shape {X.shape}."
            )
        return X

    def transform(self, X):
        """Sketch vectors: :math:`y = \\Pi x` for every row :math:`x` of ``X``.

        Dense input is zero-padded, sign-flipped and transformed with
        :func:`fwht` in :math:`O(n \\log n)` per row; sparse input is
        multiplied by :attr:`components_`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) or \
                (n_features,)
            Vectors with ``n_features_in_`` or ``n_padded_`` entries; CSR
            accepted; float32 is kept.

        Returns
        -------
        Y : ndarray of shape (n_samples, n_components) or (n_components,)
            The sketches, dense, same number of dimensions as ``X``.
        """
        check_is_fitted(self, "n_features_in_", msg=_NOT_FITTED)
        X = self._check_X(X, "X", (self.n_features_in_, self.n_padded_))
        width = X.shape[-1]
        components = self.components_[:, :width].astype(X.dtype, copy=False)
        if sp.issparse(X):
            return np.asarray((X @ components.T), dtype=X.dtype)
        squeeze = X.ndim == 1
        X2 = X[np.newaxis, :] if squeeze else X
        n_samples, n = X2.shape[0], self.n_padded_
        Y = np.empty((n_samples, self.n_components_), dtype=X.dtype)
        factor = X.dtype.type(self.scale_ / np.sqrt(n))
        step = max(1, _BLOCK_ELEMENTS // n)
        signs = self.signs_[:width].astype(X.dtype)
        for start in range(0, n_samples, step):
            block = X2[start : start + step]
            work = np.zeros((block.shape[0], n), dtype=X.dtype)
            np.multiply(block, signs, out=work[:, :width])
            _fwht_inplace(work)
            Y[start : start + step] = work[:, self.rows_] * factor
        return Y[0] if squeeze else Y

    def inverse_transform(self, Y):
        """Map sketches back: :math:`x = \\Pi^\\top y` (the adjoint of Pi).

        Not an inverse of :meth:`transform`: :math:`\\Pi^\\top \\Pi = c^2 P`
        with :math:`P` the orthogonal projector onto the sketched subspace, so
        ``inverse_transform(transform(x)) / scale_**2`` is :math:`P x`.

        Parameters
        ----------
        Y : array-like of shape (n_samples, n_components) or (n_components,)
            Sketches; float32 is kept.

        Returns
        -------
        X : ndarray of shape (n_samples, n_padded) or (n_padded,)
            :math:`\\Pi^\\top y` for every row, in the padded dimension.
        """
        check_is_fitted(self, "n_features_in_", msg=_NOT_FITTED)
        Y = check_array(
            Y,
            dtype=[np.float64, np.float32],
            ensure_2d=False,
            ensure_min_features=0,
            input_name="Y",
        )
        k = self.n_components_
        if Y.ndim not in (1, 2) or Y.shape[-1] != k:
            raise ValueError(
                f"Y must be a 1-D or 2-D array with n_components_={k} columns; "
                f"got shape {Y.shape}."
            )
        squeeze = Y.ndim == 1
        Y2 = Y[np.newaxis, :] if squeeze else Y
        n_samples, n = Y2.shape[0], self.n_padded_
        X = np.zeros((n_samples, n), dtype=Y.dtype)
        factor = Y.dtype.type(self.scale_ / np.sqrt(n))
        signs = self.signs_.astype(Y.dtype)
        step = max(1, _BLOCK_ELEMENTS // n)
        for start in range(0, n_samples, step):
            work = X[start : start + step]
            work[:, self.rows_] = Y2[start : start + step] * factor
            _fwht_inplace(work)
            work *= signs
        return X[0] if squeeze else X


class CountSketch(ParamsMixin):
    """CountSketch: hash every feature to one of k buckets with a random sign.

    The sparse embedding of Clarkson and Woodruff,

    .. math::

        y_b = \\sum_{j : h(j) = b} \\sigma_j x_j, \\qquad b = 0, \\dots, k - 1,

    with independent uniform buckets :math:`h(j)` and Rademacher signs
    :math:`\\sigma_j`, drawn once in :meth:`fit`. The sketching matrix
    :math:`S` (:attr:`components_`, :math:`k \\times d`) has one non-zero
    per column, so :math:`Sx` costs :math:`O(\\operatorname{nnz}(x))` and
    :math:`E[S^\\top S] = I`.

    Parameters
    ----------
    n_components : int
        Number of buckets :math:`k`, at least 1.
    random_state : int, RandomState instance or None, default=None
        Seeds the buckets and the signs.

    Attributes
    ----------
    n_features_in_ : int
        Dimension :math:`d` of the vectors sketched.
    n_components_ : int
        :math:`k`.
    hashes_ : ndarray of shape (n_features,)
        The bucket :math:`h(j)` of every feature.
    signs_ : ndarray of shape (n_features,)
        The signs :math:`\\sigma_j`, float64 :math:`\\pm 1`.
    components_ : scipy.sparse.csr_matrix of shape (n_components, n_features)
        The sketching matrix :math:`S`, float64.

    See Also
    --------
    SRHT : Dense sketch with orthogonal rows.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.oracles import CountSketch
    >>> cs = CountSketch(3, random_state=0).fit(5)
    >>> X = np.arange(10.0).reshape(2, 5)
    >>> Y = cs.transform(X)
    >>> Y.shape
    (2, 3)
    >>> bool(np.allclose(Y, X @ cs.components_.T.toarray()))
    True
    """

    _parameter_constraints: dict = {
        "n_components": [StrictInterval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, n_components, random_state=None):
        self.n_components = n_components
        self.random_state = random_state

    @validate_params(_FIT_CONSTRAINTS, prefer_skip_nested_validation=True)
    def fit(self, n_features):
        """Draw the bucket and the sign of every feature.

        Parameters
        ----------
        n_features : int
            Dimension of the vectors to sketch, at least 1.

        Returns
        -------
        self : CountSketch
            The fitted sketch.
        """
        n_features, rng = _fit_start(self, n_features)
        k = int(self.n_components)
        self.n_features_in_ = n_features
        self.n_components_ = k
        self.hashes_ = rng.randint(k, size=n_features).astype(np.intp)
        self.signs_ = rng.choice(np.array([-1.0, 1.0]), size=n_features)
        # Column j holds sigma_j in row h(j): built as the CSR of S^T (one entry
        # per row) and transposed.
        S_T = sp.csr_matrix(
            (self.signs_, self.hashes_, np.arange(n_features + 1)),
            shape=(n_features, k),
        )
        self.components_ = S_T.T.tocsr()
        return self

    def transform(self, X):
        """Sketch vectors: :math:`y = S x` for every row :math:`x` of ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Vectors to sketch; CSR (or any scipy sparse format) accepted,
            in :math:`O(\\operatorname{nnz}(X))`; float32 is kept.

        Returns
        -------
        Y : ndarray of shape (n_samples, n_components)
            The sketches, dense.
        """
        check_is_fitted(self, "n_features_in_", msg=_NOT_FITTED)
        X = check_array(
            X, accept_sparse="csr", dtype=[np.float64, np.float32], input_name="X"
        )
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X must have n_features_in_={self.n_features_in_} columns; got "
                f"{X.shape[1]}."
            )
        S = self.components_.astype(X.dtype)
        if sp.issparse(X):
            return np.asarray((X @ S.T).toarray(), dtype=X.dtype)
        # Sparse S times dense X^T visits each of the d stored entries of S
        # once per row of X: O(n_samples * d), no dense k x d matrix.
        return np.ascontiguousarray((S @ X.T).T, dtype=X.dtype)
