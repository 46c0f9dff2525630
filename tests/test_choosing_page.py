"""The "Choosing an estimator" page: first in the user guide, figures generated.

Its tables are rendered by ``doc/_ext/choosing.py`` from the result files in
``benchmarks/results``; these tests hold the page, the renderer and the
recorded compare run to each other and to compare's registry.
"""

import importlib.util
import json
import re
from pathlib import Path

import pytest

from skcgm.experiments import COMPARISONS

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"

if not (ROOT / "doc" / "_ext" / "choosing.py").exists():
    pytest.skip("needs the repository's doc/ folder", allow_module_level=True)


def _renderer():
    path = ROOT / "doc" / "_ext" / "choosing.py"
    spec = importlib.util.spec_from_file_location("choosing", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_is_first_in_the_user_guide():
    index = (ROOT / "doc" / "user_guide" / "index.rst").read_text()
    toctree = index[index.index(".. toctree::") :].splitlines()
    entries = [line.strip() for line in toctree[1:] if line.strip()]
    entries = [e for e in entries if not e.startswith(":")]
    assert entries[0] == "choosing"
    page = (ROOT / "doc" / "user_guide" / "choosing.rst").read_text()
    assert ".. include:: _generated/choosing_use.inc" in page
    assert ".. include:: _generated/choosing_keep.inc" in page
    # No hand-typed figure: the page's own text holds no decimal number.
    assert not re.search(r"\d\.\d", page)


def test_the_recorded_compare_run_covers_every_comparison():
    recorded = json.loads((RESULTS / "compare.json").read_text())
    verdicts = [v["dataset"] for v in recorded["metadata"]["verdicts"]]
    assert verdicts == [c.dataset for c in COMPARISONS]
    pairs = [(r["dataset"], r["estimator"]) for r in recorded["rows"]]
    assert pairs == [(c.dataset, e.name) for c in COMPARISONS for e in c.candidates]
    # A run with the repeats: every row carries them.
    assert all(len(r["fit_time_repeats"]) >= 3 for r in recorded["rows"])


def test_every_figure_of_the_tables_comes_from_the_results():
    choosing = _renderer()
    results = choosing.Results(RESULTS)
    use, keep = choosing.render(results)
    assert use.count("   * - ") == len(choosing.SITUATIONS) + 1
    assert keep.count("   * - ") == len(choosing.BASELINE_BETTER) + 1
    # The verdict of each data set a row quotes, with its numbers.
    for dataset in ("subspaces", "mixed-lines", "mixed-mlp", "online-nqp"):
        verdict = results.verdicts[dataset]
        line = results.verdict(dataset)
        fmt = verdict["fmt"]
        assert f"{verdict['ours']:{fmt}} vs {verdict['theirs']:{fmt}}" in line
        assert line in use
    assert results.verdict("logistic") in keep


def test_the_renderer_fails_on_a_missing_figure(tmp_path):
    choosing = _renderer()
    recorded = json.loads((RESULTS / "compare.json").read_text())
    recorded["metadata"]["verdicts"] = recorded["metadata"]["verdicts"][:-1]
    (tmp_path / "compare.json").write_text(json.dumps(recorded))
    for path in RESULTS.glob("*.json"):
        if path.name != "compare.json":
            (tmp_path / path.name).write_text(path.read_text())
    with pytest.raises(KeyError, match="online-nqp"):
        choosing.render(choosing.Results(tmp_path))
