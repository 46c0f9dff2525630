"""Algorithm 2 of Raj, Musco and Mackey on a dask array, chunk by chunk.

The rows of a :class:`dask.array.Array` stay on the workers. A round of the
approximate proximal point method needs two passes over them:

1. at the centre :math:`x_{t-1}`: the objective, its gradient, the sum
   :math:`\\Delta` and the constants of Theorem 10, all sums over the rows,
   added up on the client, and with ``leverage='exact'`` the Gram matrix of
   the local quadratic model's leverage matrix :math:`C_0` (:math:`O(d^2)`
   numbers per chunk, :math:`O(nd^2)` work); with ``leverage='sample'`` the
   client estimates that Gram matrix from the last draws and the pass is
   :math:`O(nd)`;
2. the local-sensitivity scores of every row (Theorem 9, plus Theorem 10's
   term), and the draws: only the sampled rows reach the client, where the
   round's subproblem is solved as in memory.

The total of the scores is known after the first pass (the leverage scores
add up to :math:`\\operatorname{tr}((G + D)^{-1} G)`, estimated by
:math:`\\operatorname{tr}((\\hat G + D)^{-1} \\hat G)` with a sampled
:math:`\\hat G`, which moves the expected number of draws from :math:`m` to
:math:`m S / \\hat S` and leaves them unbiased), so the second pass draws
each row's number of copies independently, :math:`c_i \\sim
\\operatorname{Poisson}(m p_i)` with weight :math:`c_i / (m p_i)`: Definition
2's :math:`m` independent draws with a Poisson number of draws, unbiased in
the same sense, and computable chunk by chunk. The uniform numbers behind the
draws come from a counter-based generator indexed by the global row, so the
sample depends on ``random_state`` and not on the chunk layout.

With ``leverage='sample'`` the two passes are one. The constants of the
scores (the prox weight, radius, :math:`\\eta`, :math:`\\beta`) are estimated
on the last draws before the pass, which draws each row
:math:`k_i \\sim \\operatorname{Poisson}(r_i)` times from those speculative
scores, with :math:`r_i = \\kappa m \\hat s_i / \\hat S` and
:math:`\\kappa = 1.4`. Once the pass has summed the exact constants, the
client bounds the exact scores by the speculative ones for every row at once
(:func:`_envelope_factor`); if :math:`m p_i \\le r_i` for all rows, it keeps
:math:`\\operatorname{Binomial}(k_i, m p_i / r_i)` of each candidate's
copies, which are :math:`\\operatorname{Poisson}(m p_i)`, the exact draws'
distribution (Poisson thinning); if not, a second pass draws the rows from
the exact scores as above. On the benchmark's families the bound held in
every round tried (see :data:`_ENVELOPE`); in the tests, one later round on
heavy-tailed rows, whose importance weights overstated the gradient's
noise, needed the second pass.

Two fallbacks keep degenerate data from dividing by zero. When the sampled
Gram matrix estimates a total of zero (a few sampled rows, all of vanishing
:math:`f''`), the round sums the Gram matrix over every row in a pass of its
own, as ``leverage='exact'`` does; when no row has a positive score, the
round draws uniformly.

The first centre is the minimizer of the objective on a uniform sample of the
same size, unless a starting point is given. That pass reads only the rows
it draws (a row's count depends on its own uniform number, not on its
values), so it is short next to a round's; it is counted as a pass all the
same, since every chunk is loaded. Algorithm 2 from
zero spends its first rounds, a pass or two each, in balls far from the
minimizer (on the issue's panel, 6 rounds from zero left a relative objective
error of 0.04 to 0.16, one round from the uniform sample's minimizer 1e-4 to
1e-3).
"""

# Authors: The skcgm developers
# SPDX-License-Identifier: BSD-3-Clause

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom, poisson

from ...oracles._leverage import leverage_transform
from ...utils._blocks import row_blocks, single_threaded_blas
from ...utils._chunks import RowChunks
from ._in_memory import (
    ProximalPointResult,
    _ball_prox_fista,
    _floored_ridge,
    _largest_eigenvalue,
    _loss_terms,
    _matvec,
    _Problem,
    _rmatvec,
    _row_norms,
    _trust_region_minimum,
    sample_gram,
)
from ._lbfgs import full_batch_lbfgs
from ._problem import row_weights
from ._signed_rows import scaled_gram, scaled_leverage, signed_rows

# Counter-based draws: 4 uniforms per Philox counter step.
_PHILOX_WIDTH = 4


def row_stream(key, start):
    """The Philox stream of ``key`` from the global row ``start`` on.

    Its uniforms, drawn in order in pieces of any size, are those of
    :func:`row_uniforms` for the consecutive rows: a chunk's sub-blocks draw
    from one stream instead of building a generator each (about 60
    microseconds a generator, a tenth of a sub-block's draws).

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.proximal_point._dask import row_stream, row_uniforms
    >>> stream = row_stream((0, 1), 5)
    >>> pieces = np.concatenate([stream.random(3), stream.random(9)])
    >>> bool(np.array_equal(pieces, row_uniforms((0, 1), 5, 17)))
    True
    """
    block = start // _PHILOX_WIDTH
    generator = np.random.Generator(
        np.random.Philox(key=np.asarray(key, dtype=np.uint64), counter=[block, 0, 0, 0])
    )
    # A Philox step gives 4 numbers; the rows before ``start`` in its first
    # step are skipped.
    generator.random(start - block * _PHILOX_WIDTH)
    return generator


def row_uniforms(key, start, stop):
    """Uniforms on [0, 1) of the global rows ``start`` to ``stop - 1``.

    Row :math:`i` always gets the :math:`i`-th number of the Philox stream
    of ``key``, whichever chunk holds it.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.optim.proximal_point._dask import row_uniforms
    >>> whole = row_uniforms((0, 1), 0, 10)
    >>> head, tail = row_uniforms((0, 1), 0, 3), row_uniforms((0, 1), 3, 10)
    >>> bool(np.array_equal(whole, np.concatenate([head, tail])))
    True
    """
    return row_stream(key, start).random(stop - start)


# Means above this are inverted by scipy (whose ppf is exact but slow);
# below, by summing the probabilities, a few terms each.
_SMALL_MEAN = 30.0


def _poisson_counts(uniforms, means):
    """Poisson counts by inversion of the CDF at the given uniforms."""
    counts = np.zeros(means.shape[0], dtype=np.int64)
    large = np.flatnonzero(means > _SMALL_MEAN)
    if large.size:
        counts[large] = poisson.ppf(uniforms[large], means[large]).astype(np.int64)
    term = np.exp(-np.minimum(means, _SMALL_MEAN))
    cdf = term.copy()
    active = np.flatnonzero((uniforms > cdf) & (means <= _SMALL_MEAN))
    k = 0
    while active.size:
        k += 1
        counts[active] = k
        term[active] *= means[active] / k
        cdf[active] += term[active]
        # A CDF that rounds below U near 1 stops where its terms vanish.
        active = active[(uniforms[active] > cdf[active]) & (term[active] > 0)]
    return counts


def _rows_checked(block, check_finite=True):
    """A chunk's rows, C-contiguous, refused when not finite."""
    X = np.ascontiguousarray(block)
    # The sum is finite for finite rows unless it overflows: only then is
    # every entry checked, without an n x d temporary in the common case.
    if check_finite and not np.isfinite(X.sum()) and not np.isfinite(X).all():
        raise ValueError("Input X contains NaN or infinity.")
    return X


def _bind(block, y_block, w_block, labels, fit_intercept, check_finite=True):
    """The chunk's signed rows, raw weights :math:`s_i`, rows and signs."""
    X = _rows_checked(block, check_finite)
    classes, class_weight, positive = labels
    y = np.asarray(y_block)
    weights = row_weights(y, w_block, classes, class_weight)
    signs = np.where(y == positive, 1.0, -1.0)
    return signed_rows(X, signs, fit_intercept), weights, X, signs


# The rows a chunk's task handles at once. dask's nanny starts its workers
# with MALLOC_TRIM_THRESHOLD_ set, which also pins glibc's mmap threshold at
# 128 KiB: every temporary as long as a whole chunk is then a fresh mapping
# whose pages fault in on first touch. On 250,000 x 32 chunks that made each
# pass 1.6x slower (56 ms a chunk against 35 ms); vectors of at most 4,096
# float64 (32 KiB) come from the heap and are reused.
_SUB_BLOCK_ROWS = 4096


def _sub_blocks(n_rows, n_features):
    """Slices of at most ``_SUB_BLOCK_ROWS`` rows (fewer for wide rows).

    Sized for the widest matrix built on them, :math:`C_0` with an
    intercept and the extra column (``n_features + 2`` columns), within
    the memory of one :func:`~skcgm.utils._blocks.row_blocks` block.
    """
    # The first row block of C_0, capped.
    first = row_blocks(n_rows, n_features + 2)[:1]
    if not first:
        return [slice(0, 0)]
    step = min(_SUB_BLOCK_ROWS, first[0].stop)
    return [slice(start, min(start + step, n_rows)) for start in range(0, n_rows, step)]


def _by_sub_blocks(func, block, y_block, w_block, start, *args):
    """``func`` on every sub-block of a chunk, with its global first row."""
    return [
        func(
            block[rows],
            y_block[rows],
            None if w_block is None else w_block[rows],
            start + rows.start,
            *args,
        )
        for rows in _sub_blocks(block.shape[0], block.shape[1])
    ]


def _concatenated(parts):
    """The draws of several blocks of rows (sub-blocks or chunks), as one."""
    return tuple(
        np.concatenate([part[k] for part in parts]) for k in range(len(parts[0]))
    )


class _Context:
    """What a chunk's task needs besides its rows: small, sent with every task."""

    def __init__(self, loss, labels, fit_intercept, n, total_weight):
        self.loss, self.labels, self.fit_intercept, self.n = (
            loss,
            labels,
            fit_intercept,
            n,
        )
        # u_i = s_i n / S, the solver's mean form (as in memory).
        self.u_scale = n / total_weight
        # The first pass checks the rows; the later ones read the same rows.
        self.check_finite = True

    def bind(self, block, y_block, w_block):
        A, weights, X, signs = _bind(
            block,
            y_block,
            w_block,
            self.labels,
            self.fit_intercept,
            self.check_finite,
        )
        return A, weights * self.u_scale, X, signs


class _Data:
    """The dask arrays of a problem and the passes over them.

    The passes alternate their direction over the chunks
    (:class:`~skcgm.utils._chunks.RowChunks`).
    """

    def __init__(self, X, y, w, context):
        self.X, self.y, self.w, self.context = X, y, w, context
        # A task gets a chunk's rows, labels, sample weights and first row.
        self.chunks = RowChunks(X, y, w)
        self.n = X.shape[0]
        self.d = X.shape[1] + int(context.fit_intercept)
        self.n_passes = 0

    def tasks(self, func, *args):
        return self.chunks.tasks(func, self.context, *args)

    def run(self, func, *args, reads_all=True):
        """One pass: ``func`` on every chunk, computed.

        The first pass whose tasks read every row (``reads_all``) checks
        that they are finite.
        """
        self.n_passes += 1
        results = self.chunks.compute(func, self.context, *args)
        if reads_all:
            self.context.check_finite = False
        return results

    def sample(self, func, *args, reads_all=True):
        """The rows ``func`` draws on every chunk, gathered on the client."""
        return _concatenated(self.run(func, *args, reads_all=reads_all))


def _drawn(start, X, signs, u, uniforms, means):
    counts = _poisson_counts(uniforms, means)
    chosen = np.flatnonzero(counts)
    return (
        start + chosen,
        X[chosen],
        signs[chosen],
        u[chosen],
        counts[chosen] / means[chosen],
    )


# Below 1 by more than the rounding of exp: the candidates of a uniform draw
# include every row whose count is at least one.
_CANDIDATE_MARGIN = 1.0 - 1e-12


def _uniform_rows(block, y_block, w_block, start, context, stream, rate):
    uniforms = stream.random(block.shape[0])
    # The count of a row of positive weight inverts its own uniform at the
    # same mean, and is 0 unless the uniform exceeds P(0) = e^{-rate}: only
    # the candidates are read (weights, signs and the finite check of the
    # first full pass), about m / n of the rows.
    rows = np.arange(block.shape[0])
    if rate <= _SMALL_MEAN:
        rows = np.flatnonzero(uniforms > math.exp(-rate) * _CANDIDATE_MARGIN)
    _, u, X, signs = context.bind(
        block[rows], y_block[rows], None if w_block is None else w_block[rows]
    )
    means = np.where(u > 0, rate, 0.0)
    drawn, X, signs, u, weights = _drawn(0, X, signs, u, uniforms[rows], means)
    return start + rows[drawn], X, signs, u, weights


def _uniform_chunk(block, y_block, w_block, start, context, key, rate):
    """Draws of a chunk's rows with mean ``rate`` each (rows of positive weight)."""
    return _concatenated(
        _by_sub_blocks(
            _uniform_rows,
            block,
            y_block,
            w_block,
            start,
            context,
            row_stream(key, start),
            rate,
        )
    )


def _margin_terms(loss, margins):
    """:math:`f, f', f''` and the extra column's root at the margins."""
    return (*_loss_terms(loss, margins), loss.sqrt_derivative_ratio(margins))


def _center_sums(A, u, terms, n, with_cubes, with_gram):
    """The sums of :func:`_center_pass` over the signed rows ``A``, whose
    :func:`_margin_terms` at the centre are ``terms``."""
    value, derivative, second, root = terms
    fractions = u / n
    with np.errstate(over="ignore"):
        delta_terms = value - 0.5 * np.square(root)
    positive = u > 0
    extra = root * np.sqrt(fractions)
    scale = float(np.max(np.abs(extra), initial=0.0))
    gram = None
    if with_gram:
        gram = scaled_gram(
            A, np.sqrt(fractions * second), extra / scale if scale > 0 else extra
        )
    cubes = 0.0
    if with_cubes:
        cubes = float(u @ _row_norms(A) ** 3)
    return (
        float(u @ value),
        _rmatvec(A, u * derivative),
        gram,
        scale,
        float(u[positive] @ delta_terms[positive]),
        cubes,
    )


def _center_rows(block, y_block, w_block, start, context, x, with_cubes, with_gram):
    A, u, _, _ = context.bind(block, y_block, w_block)
    terms = _margin_terms(context.loss, _matvec(A, x))
    return _center_sums(A, u, terms, context.n, with_cubes, with_gram)


def _merged_sums(parts):
    """The sums of :func:`_center_rows` over blocks of rows, added up.

    Each block scales the extra column of its Gram matrix to its own unit
    max-norm; the merged matrix rescales every block's row and column of it
    to the largest scale (factors at most 1, so nothing overflows).
    """
    scales = np.array([part[3] for part in parts])
    largest = float(scales.max())
    gram = None
    if parts[0][2] is not None:
        gram = np.zeros_like(parts[0][2])
        for part, scale in zip(parts, scales):
            factor = scale / largest if largest > 0 else 1.0
            block_gram = part[2].copy()
            block_gram[:, -1] *= factor
            block_gram[-1, :] *= factor
            gram += block_gram
    return (
        sum(part[0] for part in parts),
        sum(part[1] for part in parts),
        gram,
        largest,
        sum(part[4] for part in parts),
        sum(part[5] for part in parts),
    )


def _center_chunk(block, y_block, w_block, start, context, x, with_cubes, with_gram):
    """Sums over a chunk's rows at the centre ``x`` (see :func:`_center_pass`)."""
    return _merged_sums(
        _by_sub_blocks(
            _center_rows,
            block,
            y_block,
            w_block,
            start,
            context,
            x,
            with_cubes,
            with_gram,
        )
    )


def _speculative_pass(data, x, with_cubes, setup, key, m):
    """:func:`_center_pass` and the draws of the speculative ``setup``.

    Returns the sums, the candidate draws (rows, signs, weights, counts,
    means and thinning uniforms) and whether every mean was finite.
    """
    sums, candidates, finite = _merged_speculation(
        data.run(_speculative_chunk, x, with_cubes, setup, key, m)
    )
    return _center_stats(data, sums), candidates, finite


def _center_pass(data, x, with_cubes, with_gram):
    """Objective, gradient, Gram matrix of :math:`C_0` and sums at ``x``.

    The extra column of :math:`C_0` is scaled to unit max-norm as in memory
    (see :func:`_merged_sums`). Without ``with_gram`` the pass is
    :math:`O(nd)` and the Gram matrix None.
    """
    return _center_stats(
        data, _merged_sums(data.run(_center_chunk, x, with_cubes, with_gram))
    )


def _center_stats(data, sums):
    """The means of :func:`_merged_sums`' sums."""
    value, gradient, gram, largest, delta, cubes = sums
    return {
        "value": value / data.n,
        "gradient": gradient / data.n,
        "gram": gram,
        "extra_scale": 1.0 / largest if largest > 0 else 1.0,
        "delta": delta / data.n,
        "cubes": cubes,
    }


def _chunk_scores(A, u, x, loss, n, setup, terms=None):
    """The sensitivity bounds of a chunk's rows, as in memory; ``terms``
    are :func:`_margin_terms` at the centre ``x`` when known."""
    if terms is None:
        terms = _margin_terms(loss, _matvec(A, x))
    value, _, second, root = terms
    fractions = u / n
    extra = root * np.sqrt(fractions)
    extra *= setup["extra_scale"]
    scores = scaled_leverage(A, np.sqrt(fractions * second), extra, setup["transform"])
    if setup["leverage_only"]:
        return scores
    scores *= setup["beta"]
    scores += fractions * value * setup["inverse_eta"]
    if setup["cube_factor"]:
        scores += u * _row_norms(A) ** 3 * setup["cube_factor"]
    return scores


def _sensitivity_rows(block, y_block, w_block, start, context, x, setup, stream, m):
    A, u, X, signs = context.bind(block, y_block, w_block)
    means = _chunk_scores(A, u, x, context.loss, context.n, setup) * (
        m / setup["total"]
    )
    return _drawn(start, X, signs, u, stream.random(len(u)), means)


def _sensitivity_chunk(block, y_block, w_block, start, context, x, setup, key, m):
    """Local-sensitivity draws of a chunk's rows (means :math:`m s_i / S`)."""
    return _concatenated(
        _by_sub_blocks(
            _sensitivity_rows,
            block,
            y_block,
            w_block,
            start,
            context,
            x,
            setup,
            row_stream(key, start),
            m,
        )
    )


def _probability_rows(block, y_block, w_block, start, context, x, setup):
    A, u, _, _ = context.bind(block, y_block, w_block)
    return _chunk_scores(A, u, x, context.loss, context.n, setup) / setup["total"]


def _probability_chunk(block, y_block, w_block, start, context, x, setup):
    return np.concatenate(
        _by_sub_blocks(
            _probability_rows, block, y_block, w_block, start, context, x, setup
        )
    )


def _penalty(x, pen, alpha):
    return 0.5 * alpha * float(x[pen] @ x[pen])


def _round_setup(data, gradient, stats, x, pen, alpha, lam, radius, scores):
    """The client's part of the scores: ridge, eta, beta and their total.

    The same quantities as :func:`~skcgm.optim.local_sensitivity_scores`
    from the sums of :func:`_center_pass`; the total of the leverage scores
    is :math:`\\operatorname{tr}((G + D)^{-1} G)`.
    """
    d = data.d
    gram, extra_scale = stats["gram"], stats["extra_scale"]
    c_pen = float(np.linalg.norm(x[pen]))
    gamma_min = 0.5 * alpha * max(0.0, c_pen - radius) ** 2
    ridge = np.full(d + 1, lam)
    ridge[d] = gamma_min * extra_scale**2
    if gram[d, d] == 0 and gamma_min == 0:
        ridge[d] = 1.0
    leverage = _leverage_map(gram, ridge)
    if leverage is None:
        ridge = _floored_ridge(ridge, np.diag(gram))
        leverage = _leverage_map(gram, ridge)
    transform, total_leverage = leverage
    setup = {
        "transform": transform,
        "ridge": ridge,
        "extra_scale": extra_scale,
        "leverage_only": scores == "leverage_only",
        "total": total_leverage,
    }
    if scores == "leverage_only":
        return setup
    const = stats["value"] + 0.5 * alpha * c_pen**2
    Q = gram[:d, :d] + 2.0 * lam * np.eye(d)
    Q[pen, pen] += alpha
    eta = const + _trust_region_minimum(Q, gradient, radius)[0]
    beta, inverse_eta = 1.0, 0.0
    if eta > 0:
        beta, inverse_eta = max(1.0, 1.0 - stats["delta"] / eta), 1.0 / eta
    cube_factor = 0.0
    if scores == "theorem10":
        factor = np.float64(radius) / lam
        if eta > 0:
            factor = min(factor, np.float64(radius) ** 3 / eta)
        cube_factor = float(
            factor * data.context.loss.third_derivative_bound / (6.0 * data.n)
        )
    total = beta * total_leverage + stats["value"] * inverse_eta
    total += cube_factor * stats["cubes"]
    if not (np.isfinite(total) and total > 0):
        # As in memory: an infinite beta makes the scores proportional to the
        # leverage.
        return {**setup, "leverage_only": True}
    return {
        **setup,
        "beta": beta,
        "inverse_eta": inverse_eta,
        "cube_factor": cube_factor,
        "total": float(total),
    }


def _positive_total(setup):
    """Whether the scores' total can normalize the draws."""
    return bool(np.isfinite(setup["total"]) and setup["total"] > 0)


def _leverage_map(gram, ridge):
    """:func:`~skcgm.oracles._leverage.leverage_transform` :math:`T` and the
    total of the scores, :math:`\\operatorname{tr}(T G T^\\top) =
    \\operatorname{tr}((G + D)^{-1} G)`; None if :math:`G + D` is not
    positive definite."""
    try:
        transform = leverage_transform(gram, ridge)
    except ValueError:
        return None
    return transform, float(np.einsum("ij,ij->", transform @ gram, transform))


def _client_gram(data, gram_rows, x, extra_scale):
    """:func:`~skcgm.optim.proximal_point._in_memory.sample_gram` of drawn rows."""
    rows, signs, u, weights = gram_rows
    A_s = signed_rows(np.ascontiguousarray(rows), signs, data.context.fit_intercept)
    return sample_gram(data.context.loss, A_s, u, weights, x, data.n, extra_scale)


# The speculative draws' expected number, as a multiple of the round's m:
# the room the estimated constants leave the exact scores. On the benchmark's
# three families (1e6 rows; m of 0.2%, 1% and 10% of them; one and three
# rounds) the envelope needed 1.03 to 1.20 times m; the gradient norm of a
# uniform sample's minimizer, a sum of d squared errors, varies by about
# sqrt(2 / d) from one sample to the next, and the prox weight with it.
_ENVELOPE = 1.4
# The thinning's uniforms: a Philox stream of its own for each round's key.
_THINNING_STREAM = 1 << 62
# The envelope's test leaves the rounding of the scores this much room.
_ENVELOPE_ROUNDING = 1.0 - 1e-9
# The largest scale of the extra column in the speculative scores.
_LARGEST_EXTRA_SCALE = 1e100


def _thinning_key(key):
    return key[0], key[1] + _THINNING_STREAM


def _speculative_setup(data, gram_rows, x, pen, alpha, prox_weight, scores):
    """:func:`_round_setup` from the sample ``gram_rows`` alone, before the
    centre's pass.

    The sums over all rows are estimated by the weighted sums over the
    sample. The gradient norm is not: at the minimizer of the sample's
    objective (the uniform start) the sample's gradient vanishes, and the
    gradient over all rows is the sampling error, whose squared norm is
    estimated by :math:`\\sum_j w_j^2 \\|z_j\\|^2` (:math:`z_j` the rows'
    gradient terms). :math:`\\eta` takes the worst direction of that
    gradient, the model's flattest (the smallest :math:`\\eta`, the largest
    weight of the additive term). None when the sample cannot estimate
    them (no rows, a gradient of norm 0, which would make the prox weight 0,
    or scores of total 0).
    """
    rows, signs, u, weights = gram_rows
    if len(weights) == 0:
        return None
    loss, n, d = data.context.loss, data.n, data.d
    A = signed_rows(np.ascontiguousarray(rows), signs, data.context.fit_intercept)
    terms = _margin_terms(loss, _matvec(A, x))
    largest = float(np.max(np.abs(terms[3]) * np.sqrt(u / n), initial=0.0))
    # The scores do not depend on this scale (the column's ridge scales with
    # its square); bounded, so that the square stays finite when the few
    # rows of a small sample all have tiny extra entries.
    extra_scale = min(1.0 / largest if largest > 0 else 1.0, _LARGEST_EXTRA_SCALE)
    sums = _center_sums(A, weights * u, terms, n, scores == "theorem10", False)
    gradient_terms = weights * u * terms[1] / n
    gradient = sums[1] / n
    gradient[pen] += alpha * x[pen]
    noise = float(np.square(gradient_terms) @ np.square(_row_norms(A)))
    grad_norm = math.sqrt(float(gradient @ gradient) + noise)
    if not (math.isfinite(grad_norm) and grad_norm > 0):
        return None
    lam = float(math.sqrt(grad_norm) if prox_weight == "sqrt_grad" else prox_weight)
    radius = grad_norm / (lam + alpha)
    stats = {
        "value": sums[0] / n,
        "gram": sample_gram(loss, A, u, weights, x, n, extra_scale),
        "extra_scale": extra_scale,
        "delta": sums[4] / n,
        "cubes": sums[5],
    }
    Q = stats["gram"][:d, :d] + 2.0 * lam * np.eye(d)
    Q[pen, pen] += alpha
    flattest = np.linalg.eigh(Q)[1][:, 0]
    setup = _round_setup(
        data, grad_norm * flattest, stats, x, pen, alpha, lam, radius, scores
    )
    return setup if _positive_total(setup) else None


def _coefficients(setup):
    """The factors of the leverage, additive and cube terms of the scores."""
    if setup["leverage_only"]:
        return 1.0, 0.0, 0.0
    return setup["beta"], setup["inverse_eta"], setup["cube_factor"]


def _ratio(numerator, denominator):
    if numerator == 0:
        return 0.0
    return numerator / denominator if denominator > 0 else np.inf


def _envelope_factor(exact, speculative):
    """A factor :math:`\\rho` with :math:`s_i \\le \\rho \\hat s_i` for every row.

    :math:`s_i` are the scores of the ``exact`` setup, :math:`\\hat s_i`
    those of the ``speculative`` one, both of the form :math:`\\beta l_i(D)
    + a_i / \\eta + c\\, q_i` with the same Gram matrix :math:`G`
    (``leverage='sample'``, the same sample at the same centre) and
    ridges :math:`D`, :math:`\\hat D`, once the extra column is brought to
    the same scale. Since :math:`G + \\hat D \\preceq G + D + (\\hat D -
    D)_+ \\preceq (1 + \\epsilon)(G + D)` with :math:`\\epsilon` the largest
    eigenvalue of :math:`(\\hat D - D)_+` relative to :math:`G + D`,

    .. math::

        l_i(D) = c_i^\\top (G + D)^{-1} c_i \\le (1 + \\epsilon)\\, l_i(\\hat D),

    (also after both are clipped to 1), and :math:`\\rho` is the largest
    ratio of the terms' factors, the leverage's times :math:`1 + \\epsilon`.
    """
    units = np.ones(exact["ridge"].shape[0])
    units[-1] = speculative["extra_scale"] / exact["extra_scale"]
    ridge = exact["ridge"] * np.square(units)
    excess = np.sqrt(np.maximum(speculative["ridge"] - ridge, 0.0))
    epsilon = 0.0
    if np.any(excess > 0):
        # In the speculative units G + D becomes U (G + D) U, whose
        # transform is T U^{-1} with the exact setup's T: the largest
        # eigenvalue of E (U (G + D) U)^{-1} E is that of (T U^{-1} E)^T
        # (T U^{-1} E).
        scaled = exact["transform"] * (excess / units)
        epsilon = float(np.linalg.norm(scaled, ord=2) ** 2)
    beta, inverse_eta, cube = _coefficients(exact)
    beta_hat, inverse_eta_hat, cube_hat = _coefficients(speculative)
    return max(
        _ratio(beta * (1.0 + epsilon), beta_hat),
        _ratio(inverse_eta, inverse_eta_hat),
        _ratio(cube, cube_hat),
    )


def _speculative_rows(
    block, y_block, w_block, start, context, x, with_cubes, setup, streams, m
):
    A, u, X, signs = context.bind(block, y_block, w_block)
    terms = _margin_terms(context.loss, _matvec(A, x))
    sums = _center_sums(A, u, terms, context.n, with_cubes, False)
    means = _chunk_scores(A, u, x, context.loss, context.n, setup, terms)
    means *= m / setup["total"]
    finite = bool(np.isfinite(means).all())
    if not finite:
        means[~np.isfinite(means)] = 0.0
    counts = _poisson_counts(streams[0].random(len(u)), means)
    chosen = np.flatnonzero(counts)
    draws = (
        start + chosen,
        X[chosen],
        signs[chosen],
        u[chosen],
        counts[chosen],
        means[chosen],
        streams[1].random(len(u))[chosen],
    )
    return sums, draws, finite


def _merged_speculation(parts):
    return (
        _merged_sums([part[0] for part in parts]),
        _concatenated([part[1] for part in parts]),
        all(part[2] for part in parts),
    )


def _speculative_chunk(
    block, y_block, w_block, start, context, x, with_cubes, setup, key, m
):
    """:func:`_center_chunk`'s sums and draws of a chunk's rows with means
    :math:`m \\hat s_i / \\hat S` (scores of the speculative ``setup``)."""
    return _merged_speculation(
        _by_sub_blocks(
            _speculative_rows,
            block,
            y_block,
            w_block,
            start,
            context,
            x,
            with_cubes,
            setup,
            (row_stream(key, start), row_stream(_thinning_key(key), start)),
            m,
        )
    )


def _thinned(data, candidates, x, setup, m):
    """The round's draws from the speculative ones, by Poisson thinning.

    A candidate drawn :math:`k_i \\sim \\operatorname{Poisson}(r_i)` times
    keeps :math:`\\operatorname{Binomial}(k_i, m p_i / r_i)` of its copies,
    which is :math:`\\operatorname{Poisson}(m p_i)`: the draws of the exact
    scores' pass, whenever :math:`m p_i \\le r_i` for every row. The
    binomial inverts each row's own uniform of the thinning stream.
    """
    indices, rows, signs, u, counts, means, uniforms = candidates
    context = data.context
    A = signed_rows(np.ascontiguousarray(rows), signs, context.fit_intercept)
    targets = _chunk_scores(A, u, x, context.loss, data.n, setup)
    targets *= m / setup["total"]
    keep = np.minimum(targets / means, 1.0)
    kept = (uniforms > 1.0 - keep).astype(np.int64)
    several = np.flatnonzero(counts > 1)
    if several.size:
        kept[several] = binom.ppf(
            uniforms[several], counts[several], keep[several]
        ).astype(np.int64)
    chosen = np.flatnonzero(kept)
    return (
        indices[chosen],
        rows[chosen],
        signs[chosen],
        u[chosen],
        kept[chosen] / targets[chosen],
    )


def _sampled_problem(loss, rows, signs, u, pen, alpha, fit_intercept):
    A_s = signed_rows(np.ascontiguousarray(rows), signs, fit_intercept)
    return _Problem(loss, A_s, u, pen, alpha), A_s


def dask_proximal_point(
    loss,
    X,
    y,
    sample_weight,
    labels,
    *,
    alpha,
    total_weight,
    n_positive,
    fit_intercept,
    sample_size,
    sampling,
    scores,
    prox_weight,
    max_iter,
    tol,
    n_iter_no_change,
    max_inner_iter,
    leverage="exact",
    inner_tol=1e-3,
    x0=None,
    random_state=0,
    verbose=0,
):
    """Algorithm 2 on a dask array (see the module docstring).

    The objective is :func:`~skcgm.optim.approximate_proximal_point`'s with
    :math:`a_i = b_i [x_i, 1]`, :math:`b_i = \\pm 1` from ``labels`` and
    :math:`u_i = s_i n / S`. A round from the centre :math:`x_{t-1}` reads
    the data twice (the sums, then the scores and draws), or once with
    ``leverage='sample'`` when its speculative draws bound the exact ones
    (see the module docstring); the last iterate
    is not evaluated (that would be a pass of its own), so ``history``
    describes the centres :math:`x_0, \\dots, x_{T-1}`, and the run stops
    at a centre whose gradient norm is at most ``tol`` or whose objective
    has not improved for ``n_iter_no_change`` rounds.

    Parameters
    ----------
    loss : object
        The per-sample loss (:class:`~skcgm.oracles.LogisticLoss`).
    X : dask array of shape (n_samples, n_features)
        Row-chunked, one chunk across the columns.
    y : dask array of shape (n_samples,)
        Class labels, chunked as the rows of ``X``.
    sample_weight : dask array of shape (n_samples,) or None
        Chunked as ``y``; None means ones.
    labels : tuple
        ``(classes, class_weight, positive)``: the sorted classes, their
        weights and the class of sign +1.
    alpha : float
        The penalty of the mean form, :math:`1 / (C S)`.
    total_weight : float
        :math:`S = \\sum_i s_i`.
    n_positive : int
        Number of rows of positive weight.
    fit_intercept : bool
        Append the unpenalized constant coordinate.
    sample_size : int
        Expected draws :math:`m` per round (and of the first uniform sample).
    sampling : {'local_sensitivity', 'uniform'}
        The distribution of the rounds' draws.
    scores : {'theorem9', 'theorem10', 'leverage_only'}
        The sensitivity bound.
    prox_weight : 'sqrt_grad' or float
        :math:`\\lambda_t`.
    max_iter : int
        Maximum number of rounds.
    tol : float
        Stop at a centre with :math:`\\|\\nabla F\\| \\le` ``tol``.
    n_iter_no_change : int or None
        Stop at a centre after this many rounds without a better objective.
    max_inner_iter : int
        Gradient steps of the round's subproblem.
    leverage : {'exact', 'sample'}, default='exact'
        The Gram matrix of :math:`C_0` in the scores: summed over all rows
        in the centre's pass (:math:`O(nd^2)`), or estimated on the client
        from the last draws (the uniform start's in the first round, drawn
        for it when ``x0`` is given), which leaves the sums :math:`O(nd)`
        and lets their pass draw the round's rows as well.
    inner_tol : float, default=1e-3
        Its relative tolerance.
    x0 : ndarray of shape (n_features + fit_intercept,), default=None
        First centre; None means the minimizer on a uniform sample.
    random_state : int, default=0
        Key of the draws.
    verbose : int, default=0
        One line per pass.

    Returns
    -------
    result : ProximalPointResult
        ``sampling_probabilities`` is a lazy dask array (None when the last
        round drew uniformly or no round ran).
    n_passes : int
        Passes over the chunks of ``X``.
    """
    options = _RoundOptions(
        sample_size=int(sample_size),
        sampling=sampling,
        scores=scores,
        prox_weight=prox_weight,
        max_iter=max_iter,
        tol=tol,
        n_iter_no_change=n_iter_no_change,
        max_inner_iter=max_inner_iter,
        leverage=leverage,
        inner_tol=inner_tol,
        verbose=verbose,
    )
    context = _Context(loss, labels, fit_intercept, X.shape[0], total_weight)
    data = _Data(X, y, sample_weight, context)
    run = _DaskRounds(data, alpha, n_positive, options, int(random_state))
    with single_threaded_blas(), np.errstate(all="ignore"):
        run.start(x0)
        while run.centre() and run.round():
            pass
    return run.result(), data.n_passes


@dataclass
class _RoundOptions:
    """The hyper-parameters of :func:`dask_proximal_point` (see there)."""

    sample_size: int
    sampling: str
    scores: str
    prox_weight: object
    max_iter: int
    tol: float
    n_iter_no_change: object
    max_inner_iter: int
    leverage: str
    inner_tol: float
    verbose: int


class _DaskRounds:
    """Algorithm 2 on a dask array, step by step.

    The constructor sets the run up; :meth:`start` finds the first centre,
    :meth:`centre` makes the centre's pass and applies the stopping rules,
    :meth:`round` draws the round's rows and solves its subproblem, and
    :meth:`result` gives the :class:`ProximalPointResult`. As in memory,
    entry ``t`` of the history describes :math:`x_t` and the round that
    produced it.

    Parameters
    ----------
    data : _Data
        The dask arrays and their passes.
    alpha : float
        The penalty of the mean form; also the :math:`\\mu` of the radius.
    n_positive : int
        Number of rows of positive weight.
    options : _RoundOptions
        The hyper-parameters.
    seed : int
        The key of the draws.
    """

    def __init__(self, data, alpha, n_positive, options, seed):
        self.data, self.alpha, self.options, self.seed = data, alpha, options, seed
        self.pen = np.ones(data.d, dtype=bool)
        if data.context.fit_intercept:
            self.pen[-1] = False
        self.m = options.sample_size
        # The mean count of every row in a uniform sample of m rows.
        self.rate = self.m / n_positive
        loss = data.context.loss
        self.smoothness = float(getattr(loss, "second_derivative_bound", 0.25))
        self.alpha_curvature = alpha if np.any(self.pen) else 0.0
        self.history = {
            "objective": [],
            "grad_norm": [],
            "prox_weight": [np.nan],
            "radius": [np.nan],
            "total_sensitivity": [np.nan],
            "n_inner_iter": [0],
            "n_distinct": [0],
        }
        self.indices = self.draw_weights = np.empty(0)
        self.probabilities = None
        self.scored = options.sampling == "local_sensitivity"
        self.with_cubes = self.scored and options.scores == "theorem10"
        # The rows whose Gram matrix stands for C_0's with leverage='sample'.
        self.gram_rows = None
        self.converged = self.stalled = False
        self.best, self.n_no_change, self.total_inner, self.t = np.inf, 0, 0, 0
        # The centre and what its pass found: set by start and centre.
        self.x = self.stats = self.gradient = self.grad_norm = None
        self.speculation = self.candidates = None

    def start(self, x0):
        """The first centre: ``x0``, or the minimizer on a uniform sample."""
        options, data = self.options, self.data
        if x0 is not None:
            self.x = np.array(x0, dtype=np.float64)
            if self.scored and options.leverage == "sample":
                self.gram_rows = data.sample(
                    _uniform_chunk, (self.seed, 0), self.rate, reads_all=False
                )[1:]
            return
        self.indices, rows, signs, u, self.draw_weights = data.sample(
            _uniform_chunk, (self.seed, 0), self.rate, reads_all=False
        )
        self.gram_rows = rows, signs, u, self.draw_weights
        self.x = np.zeros(data.d)
        if self.indices.size:
            # The minimizer of (1/n) sum_S w_i u_i f + penalty, in the mean
            # form of the solver over the sample's rows.
            self.x = full_batch_lbfgs(
                data.context.loss,
                np.ascontiguousarray(rows),
                alpha=self.alpha,
                sample_weight=self.draw_weights * u * (self.indices.size / data.n),
                penalized=self.pen[: data.X.shape[1]],
                signs=signs,
                fit_intercept=data.context.fit_intercept,
                max_iter=options.max_inner_iter * 10,
                tol=options.tol,
            ).coef
        if options.verbose:
            print(f"Dask pass {data.n_passes}: uniform start, {self.indices.size} rows")

    def centre(self):
        """The centre's pass and the stopping rules at :math:`x_t`; whether a
        round follows.

        With ``leverage='sample'`` the pass also draws the next round's rows
        from scores whose constants are estimated on the last draws; they
        are kept if they bound the exact scores, else drawn again in a pass
        of their own (see :meth:`round`).
        """
        options, data, x, t = self.options, self.data, self.x, self.t
        self.speculation = None
        if self.scored and options.leverage == "sample" and t < options.max_iter:
            self.speculation = _speculative_setup(
                data,
                self.gram_rows,
                x,
                self.pen,
                self.alpha,
                options.prox_weight,
                options.scores,
            )
        if self.speculation is not None:
            self.stats, self.candidates, finite = _speculative_pass(
                data,
                x,
                self.with_cubes,
                self.speculation,
                (self.seed, t + 1),
                _ENVELOPE * self.m,
            )
            if not finite:
                self.speculation = None
        else:
            self.stats = _center_pass(
                data, x, self.with_cubes, self.scored and options.leverage == "exact"
            )
        objective = self.stats["value"] + _penalty(x, self.pen, self.alpha)
        self.gradient = self.stats["gradient"].copy()
        self.gradient[self.pen] += self.alpha * x[self.pen]
        self.grad_norm = float(np.linalg.norm(self.gradient))
        if not (np.isfinite(objective) and np.isfinite(self.grad_norm)):
            raise ValueError(
                f"Floating-point overflow at round {t} of the proximal point "
                "method: scale the data, for example with "
                "sklearn.preprocessing.StandardScaler."
            )
        self.history["objective"].append(objective)
        self.history["grad_norm"].append(self.grad_norm)
        if options.verbose:
            print(
                f"Dask pass {data.n_passes}: centre {t}, objective "
                f"{objective:.8g}, grad {self.grad_norm:.3g}"
            )
        self.converged = self.grad_norm <= options.tol
        if objective < self.best:
            self.best, self.n_no_change = objective, 0
        else:
            self.n_no_change += 1
        patience = options.n_iter_no_change
        self.stalled = patience is not None and self.n_no_change >= patience
        return not (self.converged or self.stalled or t == options.max_iter)

    def round(self):
        """Round :math:`t`: its draws and its subproblem from the centre;
        whether the next centre is evaluated (not after ``max_iter``
        rounds: that would be a pass of its own)."""
        options, data = self.options, self.data
        self.t += 1
        t = self.t
        lam = float(
            math.sqrt(self.grad_norm)
            if options.prox_weight == "sqrt_grad"
            else options.prox_weight
        )
        radius = self.grad_norm / (lam + self.alpha)
        total_sensitivity, how, rows, signs, u = self._draws(
            lam, radius, (self.seed, t)
        )
        self.gram_rows = rows, signs, u, self.draw_weights
        problem, A_s = _sampled_problem(
            data.context.loss,
            rows,
            signs,
            u,
            self.pen,
            self.alpha,
            data.context.fit_intercept,
        )
        coef = self.draw_weights * u / data.n
        lipschitz = self.smoothness * _largest_eigenvalue(A_s, coef)
        lipschitz += self.alpha_curvature + 2.0 * lam
        self.x, n_steps = _ball_prox_fista(
            problem,
            A_s,
            coef,
            lam,
            self.x,
            radius,
            lipschitz,
            options.max_inner_iter,
            options.inner_tol * self.grad_norm,
        )
        self.total_inner += n_steps
        for key, value in (
            ("prox_weight", lam),
            ("radius", radius),
            ("total_sensitivity", total_sensitivity),
            ("n_inner_iter", self.total_inner),
            ("n_distinct", len(self.indices)),
        ):
            self.history[key].append(value)
        if options.verbose:
            print(
                f"Dask pass {data.n_passes}: round {t}, lambda {lam:.3g}, radius "
                f"{radius:.3g}, sampled {len(self.indices)} ({how}), inner steps "
                f"{n_steps}"
            )
        if t == options.max_iter:
            # The last iterate is not evaluated: a pass of its own.
            self.history["objective"].append(np.nan)
            self.history["grad_norm"].append(np.nan)
            return False
        return True

    def _draws(self, lam, radius, key):
        """The round's draws: by the scores at the centre, thinned from the
        speculative ones when they bound them, else in a pass of their own;
        uniform without positive scores.

        Sets the draws' indices, weights and lazy probabilities, and returns
        the total of the scores, how the rows were drawn and their rows,
        signs and weights :math:`u`.
        """
        options, data, x, stats = self.options, self.data, self.x, self.stats
        total_sensitivity = np.nan
        how = "drawn uniformly"
        setup = None
        if self.scored:
            if options.leverage == "sample":
                stats["gram"] = _client_gram(
                    data, self.gram_rows, x, stats["extra_scale"]
                )
            setup = _round_setup(
                data,
                self.gradient,
                stats,
                x,
                self.pen,
                self.alpha,
                lam,
                radius,
                options.scores,
            )
            if not _positive_total(setup) and options.leverage == "sample":
                # The sample saw no curvature (a few rows of vanishing f''):
                # the Gram matrix of every row, in a pass of its own; the
                # speculative scores assumed the sample's.
                stats["gram"] = _center_pass(data, x, self.with_cubes, True)["gram"]
                setup = _round_setup(
                    data,
                    self.gradient,
                    stats,
                    x,
                    self.pen,
                    self.alpha,
                    lam,
                    radius,
                    options.scores,
                )
                self.speculation = None
            if not _positive_total(setup):
                # No row has a positive score: nothing to weigh the draws by,
                # and this round draws uniformly.
                setup = None
                how = "drawn uniformly, no positive score"
        if setup is None:
            self.probabilities = None
            draws = data.sample(_uniform_chunk, key, self.rate, reads_all=False)
        else:
            total_sensitivity = setup["total"]
            speculation = self.speculation
            if speculation is not None and (
                _envelope_factor(setup, speculation) * speculation["total"] / _ENVELOPE
                <= setup["total"] * _ENVELOPE_ROUNDING
            ):
                draws = _thinned(data, self.candidates, x, setup, self.m)
                how = f"thinned from {len(self.candidates[0])} candidates"
            else:
                draws = data.sample(_sensitivity_chunk, x, setup, key, self.m)
                how = "drawn in a pass of their own"
            self.probabilities = _lazy_probabilities(data, x, setup)
        self.indices, rows, signs, u, self.draw_weights = draws
        return total_sensitivity, how, rows, signs, u

    def result(self):
        """The last iterate, the history and the last round's draws."""
        history = {
            key: np.asarray(
                value, dtype=np.intp if key.startswith("n_") else np.float64
            )
            for key, value in self.history.items()
        }
        return ProximalPointResult(
            coef=self.x,
            n_iter=self.t,
            converged=bool(self.converged),
            history=history,
            sample_indices=np.asarray(self.indices, dtype=np.intp),
            sample_weight=np.asarray(self.draw_weights, dtype=np.float64),
            sampling_probabilities=self.probabilities,
            stalled=self.stalled,
        )


def _lazy_probabilities(data, x, setup):
    """The round's sampling distribution as a lazy dask array, one block per chunk.

    The blocks are :math:`s_i / \\hat S`; their sum is 1 with the exact
    total, and :math:`S / \\hat S` with the sample's estimate (leverage=
    'sample'), hence the normalization, which costs nothing more when the
    array is computed.
    """
    import dask.array as da

    tasks = data.tasks(_probability_chunk, x, setup)
    scores = da.concatenate(
        [
            da.from_delayed(task, shape=(rows,), dtype=np.float64)
            for task, rows in zip(tasks, data.X.chunks[0])
        ]
    )
    return scores / scores.sum()
