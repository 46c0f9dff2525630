"""The defaults panels: the measurements that chose the estimators' defaults.

A defaults panel scores the candidate defaults of one estimator (the paper's
literal variant among them) on a panel of data families, at equal budget
with the baseline the paper claims to beat. Rerunning a panel checks the
choice of the defaults on this machine and this release.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from . import (
    _defaults_compadagrad,
    _defaults_dask_one_round,
    _defaults_herding,
    _defaults_local_sensitivity,
    _defaults_mixed_mlp,
    _defaults_momentum,
)


@dataclass(frozen=True)
class DefaultsPanel:
    """A panel of measurements that chose the defaults of one estimator.

    :data:`DEFAULTS_PANELS` holds one per estimator; the benchmark scripts
    run them through :func:`run_defaults_panel` and print ``format`` of the
    results.

    Parameters
    ----------
    name : str
        Name of the panel.
    estimator : str
        The estimator (or solver) whose defaults the panel chose.
    description : str
        One line: what the candidates are scored against.
    run : callable
        ``run(*, full=False, progress=None, **options)`` returns the panel's
        results (rows or a dict of cases, as its docstring says); quick size
        unless ``full``, one progress line per step to ``progress``.
    format : callable
        ``format(results)`` returns the results as text: captions and
        tables.
    settings : dict, default={}
        The panel's declaration: its candidates, fixed parameters, seeds.

    See Also
    --------
    run_defaults_panel : Runs the panel of a name.

    Examples
    --------
    >>> from skcgm.experiments import DEFAULTS_PANELS
    >>> sorted(DEFAULTS_PANELS)
    ['compadagrad', 'dask-one-round', 'herding', 'local-sensitivity',
     'mixed-mlp', 'momentum']
    >>> DEFAULTS_PANELS["momentum"].settings["defaults"]
    {'momentum': 0.5, 'size_change_factor': 1.9}
    """

    name: str
    estimator: str
    description: str
    run: Callable
    format: Callable
    settings: dict = field(default_factory=dict)


DEFAULTS_PANELS = {
    panel.name: panel
    for panel in (
        DefaultsPanel(
            "local-sensitivity",
            "LocalSensitivityLogistic",
            "its candidate samplers against uniform sampling at equal draws: "
            "relative objective error after 15 and 100 rounds",
            _defaults_local_sensitivity.run_local_sensitivity_panel,
            _defaults_local_sensitivity.format_local_sensitivity_panel,
            _defaults_local_sensitivity.SETTINGS,
        ),
        DefaultsPanel(
            "compadagrad",
            "CompAdaGradClassifier",
            "its candidate settings against diagonal AdaGrad with the same "
            "others: test error under fit, at equal epochs and equal tuning",
            _defaults_compadagrad.run_compadagrad_panel,
            _defaults_compadagrad.format_compadagrad_panel,
            _defaults_compadagrad.SETTINGS,
        ),
        DefaultsPanel(
            "herding",
            "KernelHerdingSampler",
            "the exact scan, random features and the LSH index (fit time and "
            "squared MMD), and refine='swap' against plain herding: the "
            "thresholds of the 'auto' options",
            _defaults_herding.run_herding_panel,
            _defaults_herding.format_herding_panel,
            _defaults_herding.SETTINGS,
        ),
        DefaultsPanel(
            "momentum",
            "MomentumLloyd",
            "SumOfMinKMeans(solver='momentum') at a grid of its parameters "
            "against solver='exact' from the same seeding: final inertia",
            _defaults_momentum.run_momentum_panel,
            _defaults_momentum.format_momentum_panel,
            _defaults_momentum.SETTINGS,
        ),
        DefaultsPanel(
            "mixed-mlp",
            "MixedMLPRegressor",
            "its candidate settings beside one MLPRegressor: held-out oracle "
            "error, or R^2 with one network",
            _defaults_mixed_mlp.run_mixed_mlp_panel,
            _defaults_mixed_mlp.format_mixed_mlp_panel,
            _defaults_mixed_mlp.SETTINGS,
        ),
        DefaultsPanel(
            "dask-one-round",
            "LocalSensitivityLogistic",
            "the default fit on dask arrays (one round, or L-BFGS) against "
            "the optimum: relative objective error",
            _defaults_dask_one_round.run_dask_one_round_panel,
            _defaults_dask_one_round.format_dask_one_round_panel,
            _defaults_dask_one_round.SETTINGS,
        ),
    )
}


def run_defaults_panel(name, *, full=False, progress=None, **options):
    """Run the defaults panel called ``name``.

    Parameters
    ----------
    name : str
        One of ``DEFAULTS_PANELS``.
    full : bool, default=False
        The full panel (more sizes, seeds or candidates) instead of the
        quick one.
    progress : callable, default=None
        Called with one line per step of the panel.
    **options : dict
        The panel's own options (families, seeds, candidates, ...), as its
        ``run`` documents them.

    Returns
    -------
    results : list or dict
        The panel's results; ``DEFAULTS_PANELS[name].format(results)`` shows
        them.

    Raises
    ------
    KeyError
        If no panel has that name; the message lists those that exist.

    See Also
    --------
    DefaultsPanel : A panel, with its formatter and settings.

    Examples
    --------
    >>> from skcgm.experiments import run_defaults_panel
    >>> defaults = "defaults (b=0.5, a=1.9, r=1)"
    >>> results = run_defaults_panel(
    ...     "momentum", seeds=1, families=["iris"], settings=[defaults]
    ... )
    >>> results["settings"][defaults]["iris"]["n_runs"]
    1
    """
    try:
        panel = DEFAULTS_PANELS[name]
    except KeyError:
        raise KeyError(
            f"Unknown defaults panel {name!r}; registered: {sorted(DEFAULTS_PANELS)}."
        ) from None
    return panel.run(full=full, progress=progress, **options)
