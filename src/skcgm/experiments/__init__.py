"""Paper experiments and baseline comparisons.

The data generators they use live in :mod:`skcgm.datasets`. Each experiment
returns an :class:`ExperimentResult` (rows, columns, caption, metadata) and
prints nothing; the command line formats, plots and reports progress.
"""

from ._baselines import fit_em_mixed_linear
from ._compadagrad import run_compadagrad
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
from ._gpca_tables import best_matching_accuracy, run_gpca_table1, run_gpca_table2
from ._herding import run_herding
from ._kmeans_seeding import run_kmeans_seeding
from ._local_sensitivity import logistic_optimum, run_local_sensitivity
from ._mlr_table import run_mlr_table3
from ._online import run_dpobga, run_pobga
from ._registry import EXPERIMENTS, Experiment, get_experiment
from ._result import Column, ExperimentResult, format_table
from ._sfwpo import run_sfwpo
from ._verdicts import Claim

__all__ = [
    "COMPARISONS",
    "EXPERIMENTS",
    "Candidate",
    "Claim",
    "Column",
    "CompareResult",
    "Comparison",
    "Experiment",
    "ExperimentResult",
    "Metric",
    "OnlineComparison",
    "best_matching_accuracy",
    "fit_em_mixed_linear",
    "format_table",
    "get_experiment",
    "logistic_optimum",
    "plot_compare",
    "run_compadagrad",
    "run_compare",
    "run_dpobga",
    "run_gpca_table1",
    "run_gpca_table2",
    "run_herding",
    "run_kmeans_seeding",
    "run_local_sensitivity",
    "run_mlr_table3",
    "run_pobga",
    "run_sfwpo",
]
