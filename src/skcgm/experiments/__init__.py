"""Paper experiments and baseline comparisons.

Each experiment returns an :class:`ExperimentResult` (rows, columns, caption,
metadata) and prints nothing; the command line formats, plots and reports
progress.
"""

from ._compare import (
    COMPARISONS,
    Candidate,
    Comparison,
    Metric,
    plot_compare,
    run_compare,
)
from ._em_baseline import MixedLinearEMResult, fit_em_mixed_linear
from ._gpca_tables import (
    best_matching_accuracy,
    plot_gpca_table,
    run_gpca_table1,
    run_gpca_table2,
)
from ._herding import (
    kernel_thinning_available,
    make_gaussian_mixture,
    plot_herding,
    run_herding,
    squared_mmd,
)
from ._kmeans_seeding import plot_kmeans_seeding, run_kmeans_seeding, theorem_4_1_bound
from ._mlr_table import (
    plot_mlr_table3,
    regularized_objective,
    run_failed,
    run_mlr_table3,
)
from ._registry import EXPERIMENTS, Experiment, get_experiment
from ._result import Column, ExperimentResult, format_table
from ._sfwpo import plot_sfwpo, run_sfwpo

__all__ = [
    "COMPARISONS",
    "EXPERIMENTS",
    "Candidate",
    "Column",
    "Comparison",
    "Experiment",
    "ExperimentResult",
    "Metric",
    "MixedLinearEMResult",
    "best_matching_accuracy",
    "fit_em_mixed_linear",
    "format_table",
    "get_experiment",
    "kernel_thinning_available",
    "make_gaussian_mixture",
    "plot_compare",
    "plot_gpca_table",
    "plot_herding",
    "plot_kmeans_seeding",
    "plot_mlr_table3",
    "plot_sfwpo",
    "regularized_objective",
    "run_compare",
    "run_failed",
    "run_gpca_table1",
    "run_gpca_table2",
    "run_herding",
    "run_kmeans_seeding",
    "run_mlr_table3",
    "run_sfwpo",
    "squared_mmd",
    "theorem_4_1_bound",
]
