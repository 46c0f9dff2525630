"""The figures of the "Choosing an estimator" page, from the recorded results.

At every build, before the pages are read, this extension renders the page's
tables into ``user_guide/_generated/*.inc`` from the result files kept in the
repository: ``benchmarks/results/compare.json`` (written by ``python -m skcgm
compare --json``) and the benchmarks' ``benchmarks/results/<key>.json``
(written by ``python benchmarks/bench_<key>.py --record``). No figure of the
page is typed by hand; a result file that lacks one fails the build.
"""

import json
from dataclasses import dataclass
from pathlib import Path

from skcgm.experiments._verdicts import ratio_text

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
OUTPUT = Path(__file__).resolve().parents[1] / "user_guide" / "_generated"


@dataclass(frozen=True)
class Situation:
    """One row: where a user is, what to use, instead of what, and the gain."""

    situation: str
    estimator: str
    baseline: str
    gain: object  # callable(Results) -> str
    page: str


class Results:
    """The recorded results, with the lookups the rows need."""

    def __init__(self, directory=RESULTS):
        self.directory = directory
        compare = json.loads((directory / "compare.json").read_text())
        self.compare_version = compare["metadata"]["versions"]["skcgm"]
        self.verdicts = {v["dataset"]: v for v in compare["metadata"]["verdicts"]}
        self.rows = {(r["dataset"], r["estimator"]): r for r in compare["rows"]}
        self.benchmarks = {}
        for path in sorted(directory.glob("*.json")):
            record = json.loads(path.read_text())
            if "headline" in record:
                self.benchmarks[record["key"]] = record

    def verdict(self, dataset):
        """``ours vs theirs (opponent)``, the time clause, the baseline's clause."""
        v = self.verdicts[dataset]
        fmt = v["fmt"]
        text = (
            f"{v['outcome']}: {v['metric_name']} {v['ours']:{fmt}} vs "
            f"{v['theirs']:{fmt}} ({v['opponent']}), {_speed(v)}"
        )
        for clause in v["clauses"]:
            if clause["outcome"] != "loses":
                text += (
                    f"; {clause['outcome']} against {clause['estimator']}, "
                    f"{v['ours']:{fmt}} vs {clause['theirs']:{fmt}}, {_speed(clause)}"
                )
        return text

    def score(self, dataset, estimator, key, fmt=".3g"):
        return format(self.rows[dataset, estimator][f"{key}_mean"], fmt)

    def headline(self, key, label):
        """The headline row of a benchmark whose label starts with ``label``."""
        record = self.benchmarks[key]
        for row in record["headline"]:
            if row["label"].startswith(label):
                return row, record
        raise KeyError(f"no headline {label!r} in benchmarks/results/{key}.json")

    def command(self, key):
        """The recorded command of a benchmark, as a literal."""
        return f"``{self.benchmarks[key]['command']}``"

    def ratio(self, key, label, loaded=False):
        row, record = self.headline(key, label)
        value = row["loaded"]["ratio"] if loaded else row["ratio"]
        return f"{ratio_text(value)} ({record['date']})"


def _speed(verdict):
    if verdict["speed"] == "same":
        return "about the same fit time"
    return f"{ratio_text(verdict['fit_time_ratio'])} its fit time"


def _compare_link(*datasets):
    return f"``python -m skcgm compare --datasets {' '.join(datasets)}``"


SITUATIONS = (
    Situation(
        "Data larger than memory (a dask array or DataFrame)",
        ":class:`~skcgm.cluster.SumOfMinKMeans`, "
        ":class:`~skcgm.linear_model.LocalSensitivityLogistic`",
        "dask-ml's ``KMeans`` and ``LogisticRegression``",
        lambda r: (
            f"fit time {r.ratio('dask_kmeans', 'each one')} of dask-ml's KMeans "
            f"(each one's seeding, to convergence), {r.command('dask_kmeans')}; "
            f"time to a 1e-3 relative objective error "
            f"{r.ratio('dask_logistic', 'time to 0.001')} of dask-ml's "
            f"LogisticRegression, {r.command('dask_logistic')}; to 1e-6 on all "
            f"the rows {r.ratio('dask_full', 'time to 1e-06')} of its fastest "
            f"solver, {r.command('dask_full')}"
        ),
        ":doc:`larger_than_memory`",
    ),
    Situation(
        "Points on a union of low-dimensional subspaces",
        ":class:`~skcgm.cluster.GPCAClusterer`",
        ":class:`~sklearn.cluster.SpectralClustering`",
        lambda r: (
            f"{r.verdict('subspaces')}; KMeans "
            f"{r.score('subspaces', 'KMeans', 'accuracy')}; "
            + _compare_link("subspaces")
        ),
        ":doc:`gpca`",
    ),
    Situation(
        "Targets from a mixture of linear models",
        ":class:`~skcgm.linear_model.MixedLinearRegressor`",
        ":class:`~sklearn.linear_model.LinearRegression`, or EM",
        lambda r: (
            f"{r.verdict('mixed-lines')}; LinearRegression "
            f"{r.score('mixed-lines', 'LinearRegression', 'oracle_residual')}; "
            + _compare_link("mixed-lines")
        ),
        ":doc:`mixed_linear`",
    ),
    Situation(
        "Targets from a mixture of non-linear models",
        ":class:`~skcgm.neural_network.MixedMLPRegressor`",
        ":class:`~sklearn.neural_network.MLPRegressor`",
        lambda r: f"{r.verdict('mixed-mlp')}; " + _compare_link("mixed-mlp"),
        ":doc:`mixed_mlp`",
    ),
    Situation(
        "Shrinking a data set for an expensive model",
        ":class:`~skcgm.sampling.KernelHerdingSampler`",
        "a random subsample",
        lambda r: (
            f"{r.verdict('digits-herding')} (100 points); "
            f"{r.verdict('mixture-herding')} (200 points); "
            + _compare_link("digits-herding", "mixture-herding")
            + f"; squared MMD {r.ratio('herding', 'MMD^2 at m=256')} of i.i.d. "
            f"subsampling's; {r.command('herding')}"
        ),
        ":doc:`kernel_herding`",
    ),
    Situation(
        "Correlated, ill-conditioned features, learned online",
        ":class:`~skcgm.linear_model.CompAdaGradClassifier`",
        ":class:`~sklearn.linear_model.SGDClassifier`",
        lambda r: (
            f"{r.verdict('correlated')}; SGDClassifier "
            f"{r.score('correlated', 'SGDClassifier', 'test_accuracy')}; "
            + _compare_link("correlated")
        ),
        ":doc:`compadagrad`",
    ),
    Situation(
        "A stream of monotone DR-submodular rewards under linear constraints",
        ":class:`~skcgm.online.POBGA`",
        "Mono-FW (projection-free), OBGA (projected)",
        lambda r: (
            f"{r.verdict('online-nqp')}; Mono-FW "
            f"{r.score('online-nqp', 'Mono-FW', 'regret1_per_round')} with "
            f"{r.score('online-nqp', 'Mono-FW', 'n_lmo_calls', '.0f')} LMO calls "
            f"against {r.score('online-nqp', 'POBGA', 'n_lmo_calls', '.0f')}; "
            + _compare_link("online-nqp")
        ),
        ":doc:`online`",
    ),
)

BASELINE_BETTER = (
    (
        "Euclidean k-means on data in memory",
        ":class:`~sklearn.cluster.KMeans`",
        lambda r: (
            "SumOfMinKMeans "
            + "; ".join(f"{d}: {r.verdict(d)}" for d in ("iris", "digits", "blobs"))
            + "; KMeans keeps the best of several seedings per center"
        ),
    ),
    (
        "Logistic regression on data in memory",
        ":class:`~sklearn.linear_model.LogisticRegression`",
        lambda r: f"LocalSensitivityLogistic {r.verdict('logistic')}",
    ),
    (
        "The lowest regret, whatever the cost of projections",
        "OBGA (a projection every round)",
        lambda r: (
            f"OBGA {r.score('online-nqp', 'OBGA', 'regret1_per_round')} against "
            f"POBGA's {r.score('online-nqp', 'POBGA', 'regret1_per_round')}"
        ),
    ),
    (
        "Well-conditioned features",
        "diagonal AdaGrad (``n_components=0``) or SGDClassifier",
        lambda r: "; ".join(
            f"{d}: CompAdaGradClassifier {r.verdict(d)}"
            for d in ("digits-compadagrad", "breast-cancer")
        ),
    ),
)


def _list_table(header, rows, widths):
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        f"   :widths: {' '.join(map(str, widths))}",
        "",
    ]
    for row in [header, *rows]:
        first, *rest = row
        lines.append(f"   * - {first}")
        lines += [f"     - {cell}" for cell in rest]
    return "\n".join(lines) + "\n"


def render(results):
    """The two tables of the page, as reStructuredText."""
    use = _list_table(
        ("Situation", "Use", "Instead of", "Measured", "Page"),
        [
            (s.situation, s.estimator, s.baseline, s.gain(results), s.page)
            for s in SITUATIONS
        ],
        (18, 18, 16, 40, 8),
    )
    keep = _list_table(
        ("Situation", "Keep", "Measured"),
        [(s, keep, gain(results)) for s, keep, gain in BASELINE_BETTER],
        (22, 22, 56),
    )
    return use, keep


def write(app=None):
    """Render the tables into ``user_guide/_generated``."""
    use, keep = render(Results())
    OUTPUT.mkdir(exist_ok=True)
    (OUTPUT / "choosing_use.inc").write_text(use)
    (OUTPUT / "choosing_keep.inc").write_text(keep)


def setup(app):
    app.connect("builder-inited", write)
    return {"parallel_read_safe": True}
