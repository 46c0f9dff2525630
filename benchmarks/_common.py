"""Helpers shared by the benchmark scripts: timing, the table, the machine.

The scripts run as ``python benchmarks/bench_<family>.py``, which puts this
folder on ``sys.path``, so they import it as ``_common``.
"""

import json
import os
import platform
import time

import numpy as np
import scipy
import sklearn
from threadpoolctl import threadpool_info

import skcgm


def best_time(func, repeats):
    """Smallest wall time of ``repeats`` calls, and the last call's output."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = func()
        times.append(time.perf_counter() - start)
    return min(times), out


def _format(value, fmt):
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return format(value, fmt)


def format_table(results, rows, repeats):
    """One column per case, one line per ``(key, label, format)`` of ``rows``."""
    names = list(results)
    header = ["measure", *names]
    lines = [[label.replace("best of R", f"best of {repeats}")] for _, label, _ in rows]
    for name in names:
        for line, (key, _, fmt) in zip(lines, rows):
            line.append(_format(results[name][key], fmt))
    widths = [max(len(row[i]) for row in [header, *lines]) for i in range(len(header))]

    def render(row):
        cells = [row[0].ljust(widths[0])]
        cells += [cell.rjust(width) for cell, width in zip(row[1:], widths[1:])]
        return "  ".join(cells)

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([render(header), rule, *map(render, lines)])


def machine_info():
    """Core count, library versions and thread pools, for the record."""
    return {
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "skcgm": skcgm.__version__,
        "threadpools": [
            {key: pool.get(key) for key in ("internal_api", "num_threads", "version")}
            for pool in threadpool_info()
        ],
    }


def machine_caption(machine):
    """One line: cores, thread pools and versions."""
    pools = ", ".join(
        f"{pool['internal_api']} {pool['num_threads']} threads"
        for pool in machine["threadpools"]
    )
    return (
        f"{machine['cpu_count']} cores ({pools}); python {machine['python']}, "
        f"numpy {machine['numpy']}, scipy {machine['scipy']}, scikit-learn "
        f"{machine['scikit-learn']}, skcgm {machine['skcgm']}."
    )


def write_json(path, machine, config, results):
    """Write everything a table came from to ``path``."""
    with open(path, "w") as f:
        json.dump(
            {"machine": machine, "config": config, "results": results},
            f,
            indent=2,
            default=lambda value: value.item(),
        )
