"""The round's draws in the centre's pass over a dask array: scores whose
constants are estimated on a sample, an envelope of the exact scores, and
Poisson thinning down to the exact draws."""

import types
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from skcgm.optim.proximal_point._dask import (
    _ENVELOPE,
    _center_sums,
    _chunk_scores,
    _coefficients,
    _Context,
    _envelope_factor,
    _margin_terms,
    _round_setup,
    _speculative_chunk,
    _thinned,
)
from skcgm.optim.proximal_point._in_memory import _matvec, sample_gram
from skcgm.oracles import LogisticLoss
from skcgm.oracles._leverage import leverage_from_transform, leverage_transform


def _setup(gram, lam, gamma, scale, factors, leverage_only):
    """A setup of :func:`_round_setup`'s form; ``gram`` in unscaled units."""
    units = np.ones(gram.shape[0])
    units[-1] = scale
    scaled = gram * np.outer(units, units)
    ridge = np.full(gram.shape[0], lam)
    ridge[-1] = gamma * scale**2
    beta, inverse_eta, cube = factors
    return {
        "ridge": ridge,
        "extra_scale": scale,
        "transform": leverage_transform(scaled, ridge),
        "leverage_only": leverage_only,
        "beta": beta,
        "inverse_eta": inverse_eta,
        "cube_factor": cube,
    }


def _scores(setup, rows, additive, cubes):
    units = np.ones(rows.shape[1])
    units[-1] = setup["extra_scale"]
    leverage = leverage_from_transform(rows * units, setup["transform"])
    beta, inverse_eta, cube = _coefficients(setup)
    return beta * leverage + inverse_eta * additive + cube * cubes


positive = st.floats(1e-4, 10.0)
factors = st.tuples(st.floats(1.0, 10.0), st.floats(0.0, 2.0), st.floats(0.0, 1.0))


def test_the_envelope_factor_bounds_every_row(property_settings):
    @given(
        seed=st.integers(0, 2**31),
        n_features=st.integers(1, 5),
        ridges=st.tuples(positive, positive, st.floats(0.0, 1.0), st.floats(0.0, 1.0)),
        scales=st.tuples(st.floats(1e-3, 1e3), st.floats(1e-3, 1e3)),
        exact_factors=factors,
        speculative_factors=factors,
        leverage_only=st.tuples(st.booleans(), st.booleans()),
    )
    def check(
        seed,
        n_features,
        ridges,
        scales,
        exact_factors,
        speculative_factors,
        leverage_only,
    ):
        rng = np.random.RandomState(seed % 2**31)
        rows = rng.standard_normal((40, n_features + 1))
        rows[::7, -1] = 0.0
        rows[::11] *= 30.0
        # The Gram matrix of a weighted sample of the rows, as leverage='sample'.
        weights = rng.exponential(size=25)
        gram = (rows[:25] * weights[:, None]).T @ rows[:25]
        lam, lam_hat, gamma, gamma_hat = ridges
        exact = _setup(gram, lam, gamma, scales[0], exact_factors, leverage_only[0])
        speculative = _setup(
            gram, lam_hat, gamma_hat, scales[1], speculative_factors, leverage_only[1]
        )
        additive, cubes = rng.exponential(size=40), rng.exponential(size=40)
        rho = _envelope_factor(exact, speculative)
        assert rho >= 0
        if np.isinf(rho):
            # Only a term the speculative scores lack (or hold at a factor so
            # small that the ratio overflows) makes the bound infinite.
            with np.errstate(over="ignore", divide="ignore"):
                assert any(
                    e > 0 and (h == 0 or np.isinf(np.divide(e, h)))
                    for e, h in zip(_coefficients(exact), _coefficients(speculative))
                )
        else:
            with np.errstate(over="ignore"):
                bound = rho * _scores(speculative, rows, additive, cubes)
            assert np.all(
                _scores(exact, rows, additive, cubes) <= bound * (1 + 1e-9) + 1e-300
            )
        # Not vacuous: a setup bounds itself with factor 1.
        assert _envelope_factor(exact, exact) == pytest.approx(1.0, rel=1e-12)

    property_settings(check)()


def test_the_envelope_factor_is_infinite_for_a_missing_term():
    gram = np.eye(3)
    exact = _setup(gram, 1.0, 0.5, 1.0, (1.0, 0.5, 0.0), False)
    speculative = _setup(gram, 1.0, 0.5, 1.0, (1.0, 0.0, 0.0), False)
    assert _envelope_factor(exact, speculative) == np.inf
    assert _envelope_factor(speculative, exact) == 1.0


def test_the_envelope_factor_overflows_to_infinity_without_a_warning():
    # A subnormal speculative cube factor: the ratio overflows, so no finite
    # envelope exists and the round falls back to its own pass.
    gram = np.eye(2)
    exact = _setup(gram, 1.0, 0.0, 1.0, (1.0, 0.0, 1.0), False)
    speculative = _setup(gram, 1.0, 0.0, 1.0, (1.0, 0.0, 2.2250738585e-313), False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _envelope_factor(exact, speculative) == np.inf


@pytest.fixture(scope="module")
def problem():
    """A small logistic problem, its centre, and two setups: the exact one and
    a speculative one whose constants are off (another prox weight, radius,
    objective and scale of the extra column, the same sampled Gram matrix)."""
    loss = LogisticLoss()
    rng = np.random.RandomState(0)
    n, p = 300, 3
    X = rng.standard_normal((n, p)) * rng.exponential(size=(n, 1))
    y = (X[:, 0] + rng.standard_normal(n) > 0).astype(np.float64)
    context = _Context(loss, (np.array([0.0, 1.0]), np.ones(2), 1.0), True, n, n)
    data = types.SimpleNamespace(context=context, n=n, d=p + 1)
    x = np.array([0.5, -0.2, 0.1, 0.05])
    pen = np.array([True, True, True, False])
    alpha = 1.0 / n
    A, u, _, _ = context.bind(X, y, None)
    sums = _center_sums(A, u, _margin_terms(loss, _matvec(A, x)), n, True, False)
    gradient = sums[1] / n
    gradient[pen] += alpha * x[pen]
    half = rng.choice(n, n // 2, replace=False)

    def setup(lam, radius, value_factor, scale_factor):
        scale = scale_factor / sums[3]
        stats = {
            "value": value_factor * sums[0] / n,
            "gram": sample_gram(
                loss, A[half], u[half], np.full(half.size, 2.0), x, n, scale
            ),
            "extra_scale": scale,
            "delta": sums[4] / n,
            "cubes": sums[5],
        }
        return _round_setup(
            data, gradient, stats, x, pen, alpha, lam, radius, "theorem10"
        )

    lam = float(np.sqrt(np.linalg.norm(gradient)))
    radius = np.linalg.norm(gradient) / (lam + alpha)
    exact = setup(lam, radius, 1.0, 1.0)
    speculative = setup(1.1 * lam, 1.1 * radius, 0.95, 4.0)
    return types.SimpleNamespace(
        X=X,
        y=y,
        A=A,
        u=u,
        x=x,
        data=data,
        sums=sums,
        exact=exact,
        speculative=speculative,
    )


def test_the_speculative_pass_sums_the_centre(problem):
    context = problem.data.context
    sums, _, finite = _speculative_chunk(
        problem.X,
        problem.y,
        None,
        0,
        context,
        problem.x,
        True,
        problem.speculative,
        (0, 1),
        50.0,
    )
    assert finite
    for got, expected in zip(sums, problem.sums):
        if got is not None:
            assert_allclose(got, expected, rtol=1e-12)


def test_thinned_draws_are_poisson_with_the_exact_means(problem):
    m = 150.0
    exact, speculative = problem.exact, problem.speculative
    # The envelope holds: m p_i <= r_i = kappa m s^_i / S^ for every row.
    rho = _envelope_factor(exact, speculative)
    assert rho * speculative["total"] / _ENVELOPE <= exact["total"]
    loss, n = problem.data.context.loss, problem.data.n
    means = m * _chunk_scores(problem.A, problem.u, problem.x, loss, n, exact)
    means /= exact["total"]
    envelope = (
        _ENVELOPE
        * m
        * _chunk_scores(problem.A, problem.u, problem.x, loss, n, speculative)
        / speculative["total"]
    )
    assert np.all(means <= envelope)
    n_keys = 3000
    counts = np.zeros((n_keys, n))
    several = 0
    for key in range(n_keys):
        _, candidates, _ = _speculative_chunk(
            problem.X,
            problem.y,
            None,
            0,
            problem.data.context,
            problem.x,
            False,
            speculative,
            (key, 1),
            _ENVELOPE * m,
        )
        several += np.sum(candidates[4] > 1)
        indices, rows, _, _, weights = _thinned(
            problem.data, candidates, problem.x, exact, m
        )
        assert_allclose(rows, problem.X[indices])
        # Importance weights: the kept count over the exact mean.
        kept = weights * means[indices]
        assert_allclose(kept, np.round(kept), rtol=1e-10)
        assert np.all(np.round(kept) >= 1)
        counts[key, indices] = np.round(kept)
    # Both inversions ran: rows with one candidate copy and with several.
    assert several > 0
    standard_error = np.sqrt(means / n_keys)
    assert np.all(np.abs(counts.mean(axis=0) - means) <= 5 * standard_error + 1e-12)
    # The draws in all: Poisson(M), M = sum_i m p_i (m S / S^ with the
    # sampled Gram matrix), with a standard error of sqrt(M / keys).
    total = means.sum()
    assert abs(counts.sum(axis=1).mean() - total) <= 4 * np.sqrt(total / n_keys)
    # Poisson: the variance equals the mean.
    assert counts.var(axis=0).sum() == pytest.approx(means.sum(), rel=0.05)
