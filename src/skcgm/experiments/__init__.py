"""Paper experiments and baseline comparisons.

The data generators they use live in :mod:`skcgm.datasets`. Each experiment
returns an :class:`ExperimentResult` (rows, columns, caption, metadata) and
prints nothing; the command line formats, plots and reports progress.
"""

from ._baselines import MixedLinearEMResult, fit_em_mixed_linear
from ._compadagrad import (
    plot_compadagrad,
    progressive_validation,
    run_compadagrad,
)
from ._compare import (
    COMPARISONS,
    Candidate,
    Comparison,
    Metric,
    plot_compare,
    run_compare,
)
from ._gpca_tables import (
    best_matching_accuracy,
    plot_gpca_table,
    run_gpca_table1,
    run_gpca_table2,
)
from ._herding import (
    kernel_thinning_available,
    plot_herding,
    run_herding,
    squared_mmd,
)
from ._kmeans_seeding import plot_kmeans_seeding, run_kmeans_seeding, theorem_4_1_bound
from ._local_sensitivity import (
    keel_available,
    logistic_objective,
    logistic_optimum,
    plot_local_sensitivity,
    run_local_sensitivity,
)
from ._mlr_table import (
    plot_mlr_table3,
    regularized_objective,
    run_failed,
    run_mlr_table3,
)
from ._online import loglog_slope, plot_dpobga, plot_pobga, run_dpobga, run_pobga
from ._registry import EXPERIMENTS, Experiment, get_experiment
from ._result import Column, ExperimentResult, format_table
from ._sfwpo import plot_sfwpo, run_sfwpo

__all__ = [
    "COMPARISONS",
    "Candidate",
    "Column",
    "Comparison",
    "EXPERIMENTS",
    "Experiment",
    "ExperimentResult",
    "Metric",
    "MixedLinearEMResult",
    "best_matching_accuracy",
    "fit_em_mixed_linear",
    "format_table",
    "get_experiment",
    "keel_available",
    "kernel_thinning_available",
    "logistic_objective",
    "logistic_optimum",
    "loglog_slope",
    "plot_compadagrad",
    "plot_compare",
    "plot_dpobga",
    "plot_gpca_table",
    "plot_herding",
    "plot_kmeans_seeding",
    "plot_local_sensitivity",
    "plot_mlr_table3",
    "plot_pobga",
    "plot_sfwpo",
    "progressive_validation",
    "regularized_objective",
    "run_compadagrad",
    "run_compare",
    "run_dpobga",
    "run_failed",
    "run_gpca_table1",
    "run_gpca_table2",
    "run_herding",
    "run_kmeans_seeding",
    "run_local_sensitivity",
    "run_mlr_table3",
    "run_pobga",
    "run_sfwpo",
    "squared_mmd",
    "theorem_4_1_bound",
]
