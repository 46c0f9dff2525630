"""Paper experiments and baseline comparisons.

The data generators they use live in :mod:`skcgm.datasets`. Each experiment
returns an :class:`ExperimentResult` (rows, columns, caption, metadata) and
prints nothing; the command line formats, plots and reports progress. The
defaults panels (:data:`DEFAULTS_PANELS`, :func:`run_defaults_panel`) hold the
measurements that chose the estimators' defaults.
"""

from ._baselines import fit_em_mixed_linear
from ._cases import format_cases
from ._compadagrad import progressive_validation, run_compadagrad
from ._compare import (
    COMPARISONS,
    Candidate,
    CompareResult,
    Comparison,
    Metric,
    OnlineComparison,
    plot_compare,
    run_compare,
)
from ._defaults import DEFAULTS_PANELS, DefaultsPanel, run_defaults_panel
from ._gpca_tables import best_matching_accuracy, run_gpca_table1, run_gpca_table2
from ._herding import kernel_thinning, kernel_thinning_available, run_herding
from ._kmeans_seeding import run_kmeans_seeding
from ._local_sensitivity import (
    logistic_objective,
    logistic_optimum,
    run_local_sensitivity,
    signed_design,
)
from ._mlr_table import run_mlr_table3
from ._online import run_dpobga, run_pobga
from ._registry import EXPERIMENTS, Experiment, get_experiment
from ._result import Column, ExperimentResult, format_table
from ._sfwpo import run_sfwpo
from ._verdicts import Claim

__all__ = [
    "COMPARISONS",
    "DEFAULTS_PANELS",
    "EXPERIMENTS",
    "Candidate",
    "Claim",
    "Column",
    "CompareResult",
    "Comparison",
    "DefaultsPanel",
    "Experiment",
    "ExperimentResult",
    "Metric",
    "OnlineComparison",
    "best_matching_accuracy",
    "fit_em_mixed_linear",
    "format_cases",
    "format_table",
    "get_experiment",
    "kernel_thinning",
    "kernel_thinning_available",
    "logistic_objective",
    "logistic_optimum",
    "plot_compare",
    "progressive_validation",
    "run_compadagrad",
    "run_compare",
    "run_defaults_panel",
    "run_dpobga",
    "run_gpca_table1",
    "run_gpca_table2",
    "run_herding",
    "run_kmeans_seeding",
    "run_local_sensitivity",
    "signed_design",
    "run_mlr_table3",
    "run_pobga",
    "run_sfwpo",
]
