"""The verdicts under compare's tables: a claim, its best opponent, the time clause.

A family of comparisons declares what its paper claims (:class:`Claim`); the
verdict of a data set sets our estimator against the best competitor on that
axis, says whether it wins, ties or loses, and adds a time clause only when
the repeated fit times leave no doubt.
"""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Claim:
    """What a family's paper claims, as the verdicts under its table test it.

    The verdict of a data set compares our estimator (the comparison's first
    candidate) with the best competitor on :attr:`metric`, among those on
    the same :attr:`budget`; competitors that do better on a larger budget,
    and the comparison's baseline when it is not that opponent, get a clause
    of their own.

    Parameters
    ----------
    axis : str
        The claim in words, for the protocol, e.g. ``"held-out accuracy at
        an equal number of training points"``.
    metric : str or None, default=None
        Key of the quality metric; None takes the comparison's first metric.
    tolerance : float, default=0.01
        Practical tie threshold: a relative difference of the means
        :math:`|\\bar a - \\bar b| \\le \\tau |\\bar b|` is a tie whatever
        the folds say.
    budget : str or None, default=None
        Key of a metric that competitors must match to be the opponent (the
        number of training points of a subset); competitors above our budget
        that do better are quoted with their budget.
    costs : tuple of str, default=()
        Keys of count metrics stated beside the time (LMO calls,
        projections).

    See Also
    --------
    skcgm.experiments.Comparison : Declares one per data set.
    skcgm.experiments.run_compare : Writes the verdicts.

    Examples
    --------
    >>> from skcgm.experiments import Claim
    >>> Claim("held-out accuracy at equal subset size", budget="n_fit").tolerance
    0.01
    """

    axis: str
    metric: str | None = None
    tolerance: float = 0.01
    budget: str | None = None
    costs: tuple = ()


def ratio_text(ratio):
    """A fit-time ratio as printed: two decimals, ``<0.01x`` below that.

    Examples
    --------
    >>> from skcgm.experiments._verdicts import ratio_text
    >>> ratio_text(0.004), ratio_text(0.36), ratio_text(41.1)
    ('<0.01x', '0.36x', '41.10x')
    """
    return "<0.01x" if ratio < 0.01 else f"{ratio:.2f}x"


# Fit times within this factor of each other are about the same time.
TIME_TOLERANCE = 1.5


def time_clause(ours, theirs, tolerance=TIME_TOLERANCE):
    """Whether one estimator is faster, from the spreads of repeated fit times.

    A ratio :math:`r` of the medians is claimed only when the interquartile
    ranges of the repeats do not overlap (of five repeats, one disturbed one
    moves neither quartile) and the ratio is a practical difference:

    .. math::

        q_3(t^{\\text{ours}}) < q_1(t^{\\text{theirs}}),\\ r \\le 1 / \\rho
        \\quad\\text{(faster)}, \\qquad
        q_1(t^{\\text{ours}}) > q_3(t^{\\text{theirs}}),\\ r \\ge \\rho
        \\quad\\text{(slower)},

    otherwise the two take about the same time. On a busy machine the fit
    times of a few milliseconds move by tens of percent from run to run;
    :math:`\\rho` keeps the verdict from following them.

    Parameters
    ----------
    ours, theirs : array-like of float
        The repeated fit times (s) of the two estimators.
    tolerance : float, default=1.5
        The factor :math:`\\rho \\ge 1` within which the medians are about
        the same time.

    Returns
    -------
    clause : dict
        ``speed`` (``"faster"``, ``"slower"`` or ``"same"``), ``ratio`` (of
        the medians, ours over theirs) and ``text``.

    Examples
    --------
    >>> from skcgm.experiments._verdicts import time_clause
    >>> time_clause([1.0, 1.1, 1.2], [2.0, 2.2, 2.1])["text"]
    'faster (0.52x its fit time)'
    >>> time_clause([1.0, 1.5, 2.0], [1.4, 1.6, 1.8])["text"]
    'in about the same time'
    """
    low, median, high = np.percentile(ours, [25, 50, 75])
    their_low, their_median, their_high = np.percentile(theirs, [25, 50, 75])
    ratio = float(median / their_median)
    if high < their_low and ratio <= 1 / tolerance:
        speed = "faster"
    elif low > their_high and ratio >= tolerance:
        speed = "slower"
    else:
        return {"speed": "same", "ratio": ratio, "text": "in about the same time"}
    text = f"{speed} ({ratio_text(ratio)} its fit time)"
    return {"speed": speed, "ratio": ratio, "text": text}


def outcome(ours, theirs, greater_is_better, tolerance):
    """Wins, ties or loses on paired fold scores, with a practical tolerance.

    .. math::

        \\text{tie} \\iff |\\bar d| \\le 2 \\, s_d / \\sqrt{K}
        \\ \\text{or}\\ |\\bar a - \\bar b| \\le \\tau |\\bar b|,

    with :math:`\\bar d` and :math:`s_d` the mean and standard deviation of
    the :math:`K` paired per-fold differences (the same split and seed for
    both) and :math:`\\tau` the claim's tolerance.

    Parameters
    ----------
    ours, theirs : array-like of float
        Scores per fold, paired.
    greater_is_better : bool
        Orientation of the score.
    tolerance : float
        Relative difference of the means below which they tie.

    Returns
    -------
    outcome : {"wins", "ties", "loses"}

    Examples
    --------
    >>> from skcgm.experiments._verdicts import outcome
    >>> outcome([0.4555, 0.4560], [0.4551, 0.4552], False, 0.01)
    'ties'
    >>> outcome([0.91, 0.81, 0.71], [0.90, 0.80, 0.70], True, 0.0)
    'wins'
    """
    a, b = np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float)
    diff = (a - b) if greater_is_better else (b - a)
    margin = 2.0 * diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else 0.0
    if abs(diff.mean()) <= margin or abs(a.mean() - b.mean()) <= tolerance * abs(
        b.mean()
    ):
        return "ties"
    return "wins" if diff.mean() > 0 else "loses"


_AGAINST = {"wins": "wins against", "ties": "ties with", "loses": "loses to"}


def verdict(dataset, claim, metric, rows, competitors, baseline, headers):
    """The verdict of one data set: our estimator against the best competitor.

    Parameters
    ----------
    dataset : str
        Name of the data set, which the text opens with.
    claim : Claim
        The family's axis.
    metric : Metric
        The claim's quality metric.
    rows : list of dict
        The comparison's rows, ours first, with ``<key>_folds``,
        ``<key>_mean`` and ``fit_time_repeats``.
    competitors : list of str
        Names of the rows that are not our estimators.
    baseline : str
        The comparison's baseline, quoted when it is not the opponent.
    headers : dict
        Short names of the cost and budget metrics by key.

    Returns
    -------
    verdict : dict
        ``opponent``, ``metric_name``, ``fmt`` (the metric's format),
        ``outcome``, ``ours``, ``theirs``, ``speed``, ``fit_time_ratio``,
        ``clauses`` (one per further competitor quoted, with its
        ``estimator``, ``outcome``, ``speed``, ``fit_time_ratio`` and
        ``theirs``) and ``text``.
    """
    ours = rows[0]
    by_name = {row["estimator"]: row for row in rows}
    key = metric.key
    sign = 1.0 if metric.greater_is_better else -1.0
    rivals = [by_name[name] for name in competitors]
    budget = claim.budget
    same = [
        r
        for r in rivals
        if budget is None or r[f"{budget}_mean"] == ours[f"{budget}_mean"]
    ]
    opponent = max(same, key=lambda row: sign * row[f"{key}_mean"])
    value = f"{{:{metric.fmt}}}"
    name = metric.header.split(" (")[0]

    def against(row):
        result = outcome(
            ours[f"{key}_folds"],
            row[f"{key}_folds"],
            metric.greater_is_better,
            claim.tolerance,
        )
        speed = time_clause(ours["fit_time_repeats"], row["fit_time_repeats"])
        costs = [
            f"{headers[c]} {ours[f'{c}_mean']:.0f} vs {row[f'{c}_mean']:.0f}"
            for c in claim.costs
        ]
        return result, speed, ", ".join([speed["text"], *costs])

    result, speed, tail = against(opponent)
    text = (
        f"{dataset}: {ours['estimator']} {_AGAINST[result]} {opponent['estimator']} "
        f"on {name}, {value.format(ours[f'{key}_mean'])} vs "
        f"{value.format(opponent[f'{key}_mean'])}, {tail}"
    )
    clauses = []
    for row in rivals:
        if row is opponent:
            continue
        better = sign * (row[f"{key}_mean"] - ours[f"{key}_mean"]) > 0
        if row["estimator"] == baseline:
            other, other_speed, other_tail = against(row)
            clauses.append(
                {
                    "estimator": row["estimator"],
                    "outcome": other,
                    "speed": other_speed["speed"],
                    "fit_time_ratio": other_speed["ratio"],
                    "theirs": float(row[f"{key}_mean"]),
                }
            )
            text += (
                f"; against the baseline {row['estimator']}: {other}, "
                f"{value.format(ours[f'{key}_mean'])} vs "
                f"{value.format(row[f'{key}_mean'])}, {other_tail}"
            )
        elif budget is not None and better and row not in same:
            other_speed = time_clause(ours["fit_time_repeats"], row["fit_time_repeats"])
            clauses.append(
                {
                    "estimator": row["estimator"],
                    "outcome": "loses",
                    "speed": other_speed["speed"],
                    "fit_time_ratio": other_speed["ratio"],
                    "theirs": float(row[f"{key}_mean"]),
                }
            )
            pace = (
                "takes about the same time"
                if other_speed["speed"] == "same"
                else f"is {other_speed['text']}"
            )
            score = value.format(row[f"{key}_mean"])
            text += (
                f"; {row['estimator']} does better, {score}, "
                f"with {row[f'{budget}_mean']:.0f} {headers[budget]} against "
                f"{ours[f'{budget}_mean']:.0f}, and ours {pace}"
            )
    return {
        "dataset": dataset,
        "estimator": ours["estimator"],
        "opponent": opponent["estimator"],
        "metric": key,
        "metric_name": name,
        "fmt": metric.fmt,
        "outcome": result,
        "ours": float(ours[f"{key}_mean"]),
        "theirs": float(opponent[f"{key}_mean"]),
        "speed": speed["speed"],
        "fit_time_ratio": speed["ratio"],
        "clauses": clauses,
        "text": text,
    }
