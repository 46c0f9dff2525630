"""Named paper experiments that ``python -m skcgm reproduce NAME`` runs."""

from collections.abc import Callable
from dataclasses import dataclass

from ._kmeans_seeding import plot_kmeans_seeding, run_kmeans_seeding


@dataclass(frozen=True)
class Experiment:
    """A paper experiment the command line can rerun.

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
