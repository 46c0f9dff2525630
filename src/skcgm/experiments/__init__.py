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
from ._kmeans_seeding import plot_kmeans_seeding, run_kmeans_seeding, theorem_4_1_bound
from ._registry import EXPERIMENTS, Experiment, get_experiment
from ._result import Column, ExperimentResult, format_table

__all__ = [
    "COMPARISONS",
    "EXPERIMENTS",
    "Candidate",
    "Column",
    "Comparison",
    "Experiment",
    "ExperimentResult",
    "Metric",
    "format_table",
    "get_experiment",
    "plot_compare",
    "plot_kmeans_seeding",
    "run_compare",
    "run_kmeans_seeding",
    "theorem_4_1_bound",
]
