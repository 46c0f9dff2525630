"""The defaults panel: each estimator's candidate defaults against its baseline.

Every panel scores the candidate defaults of one estimator (the paper's
literal variant among them) on a panel of data families, at equal budget
with the baseline the paper claims to beat, and prints one table:

- ``local-sensitivity``: LocalSensitivityLogistic against uniform sampling at
  equal draws (relative objective error after 15 and 100 rounds);
- ``compadagrad``: CompAdaGradClassifier against diagonal AdaGrad at equal
  epochs (test error);
- ``herding``: KernelHerdingSampler's exact scan, random features and the LSH
  index (fit time and squared MMD), which sets the thresholds of ``'auto'``;
- ``momentum``: the momentum Lloyd solver against exact Lloyd from the same
  seeding (inertia);
- ``mixed-mlp``: MixedMLPRegressor's candidate settings beside one
  MLPRegressor (held-out oracle error, or R^2 with one network).

Usage, from the project root::

    python benchmarks/bench_defaults.py                    # every panel, quick
    python benchmarks/bench_defaults.py compadagrad        # one panel
    python benchmarks/bench_defaults.py herding --full     # options go to the panel

The options after the panel names (``--full``, ``--json PATH``,
``--record``) are passed to each panel; give ``--json`` with one panel at a
time. ``--record`` writes each panel's ``benchmarks/results/defaults_<panel>.json``
(see ``benchmarks/summary.py``).
"""

import importlib
import sys

PANELS = {
    "local-sensitivity": "_defaults_local_sensitivity",
    "compadagrad": "_defaults_compadagrad",
    "herding": "_defaults_herding",
    "momentum": "_defaults_momentum",
    "mixed-mlp": "_defaults_mixed_mlp",
}
# Passed on to every panel, which records itself under defaults_<panel>.
RECORD_OPTION = "--record"


def main(argv=None):
    """Run the named panels (all by default) with the remaining options."""
    argv = sys.argv[1:] if argv is None else list(argv)
    names = [arg for arg in argv if arg in PANELS] or list(PANELS)
    options = [arg for arg in argv if arg not in PANELS]
    for name in names:
        print(f"== {name} ==", flush=True)
        importlib.import_module(PANELS[name]).main(options)
        print()


if __name__ == "__main__":
    main()
