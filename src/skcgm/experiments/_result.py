"""What an experiment returns: rows of numbers, their columns and a caption."""

import platform
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
import scipy
import sklearn

from .._version import __version__


@dataclass(frozen=True)
class Column:
    """How one column of an experiment's table is shown.

    The rows of an :class:`ExperimentResult` keep every number; its columns
    choose which to print, under which header, in which format, and whether
    a standard deviation follows the value.

    Parameters
    ----------
    key : str
        Row key of the value (the mean when ``std_key`` is set).
    header : str
        Column header, with the unit when the value has one.
    fmt : str or callable, default=""
        Format specification of numbers, e.g. ``".3f"``, or a function
        from a number to its text.
    std_key : str or None, default=None
        Row key of a standard deviation, shown as ``mean ± std``.
    group : bool, default=False
        Leave the cell blank when it repeats the cell above, for the leading
        columns that group rows (the dataset of a comparison).
    range_keys : tuple of str or None, default=None
        Row keys of a low and a high value, shown as ``value (low-high)``
        (the median and interquartile range of repeated timings).

    See Also
    --------
    ExperimentResult : Rows and the columns that show them.
    format_table : Formats rows as an aligned table.

    Examples
    --------
    >>> from skcgm.experiments import Column, format_table
    >>> rows = [{"k": 2, "acc": 98.2, "se": 0.1}, {"k": 2, "acc": 81.9, "se": 0.4}]
    >>> columns = [Column("k", "k", group=True), Column("acc", "acc (%)", ".1f", "se")]
    >>> print(format_table(rows, columns))
    k  acc (%)
    -  ----------
    2  98.2 ± 0.1
       81.9 ± 0.4
    >>> times = [{"t": 0.52, "lo": 0.5, "hi": 0.61}]
    >>> median = Column("t", "time (s)", ".2f", range_keys=("lo", "hi"))
    >>> print(format_table(times, [median]))
    time (s)
    ----------------
    0.52 (0.50-0.61)
    """

    key: str
    header: str
    fmt: str | Callable = ""
    std_key: str | None = None
    group: bool = False
    range_keys: tuple | None = None


@dataclass
class ExperimentResult:
    """Rows of an experiment with how to show them.

    What every experiment and comparison returns, printing nothing: the
    command line prints :meth:`to_text` or dumps :meth:`to_dict` as JSON,
    and the metadata make the run reproducible.

    Parameters
    ----------
    name : str
        Name of the experiment, e.g. ``"compare"`` or ``"kmeans-seeding"``.
    rows : list of dict
        One dict per table row; values are numbers, strings, None or lists.
    columns : list of Column
        The columns of the printed table, in order.
    caption : str
        The protocol in one paragraph: data, splits, seeds, machine.
    metadata : dict, default={}
        Everything else needed to rerun the experiment (options, versions).

    See Also
    --------
    Column : How one column is shown.
    run_compare : Returns one for the comparisons.

    Examples
    --------
    >>> import numpy as np
    >>> from skcgm.experiments import Column, ExperimentResult
    >>> result = ExperimentResult(
    ...     "demo",
    ...     rows=[{"name": "a", "x": np.float64(1.5), "missing": np.nan}],
    ...     columns=[Column("name", "name"), Column("x", "x", ".1f")],
    ...     caption="Demo.",
    ...     metadata={"trials": np.int64(3)},
    ... )
    >>> result.to_dict()["rows"], result.to_dict()["metadata"]
    ([{'name': 'a', 'x': 1.5, 'missing': None}], {'trials': 3})
    """

    name: str
    rows: list
    columns: list
    caption: str
    metadata: dict = field(default_factory=dict)

    def to_dict(self):
        """The result as plain Python types, ready for :func:`json.dumps`.

        Returns
        -------
        result : dict
            Keys ``experiment``, ``caption``, ``metadata`` and ``rows``.
        """
        return {
            "experiment": self.name,
            "caption": self.caption,
            "metadata": _plain(self.metadata),
            "rows": _plain(self.rows),
        }

    def to_text(self, width=100):
        """The caption and an aligned table, as one would paste it in a paper.

        Parameters
        ----------
        width : int, default=100
            Width the caption is wrapped to.

        Returns
        -------
        text : str
            Caption, header, rule and one line per row.

        Examples
        --------
        >>> from skcgm.experiments import Column, ExperimentResult
        >>> result = ExperimentResult(
        ...     "demo",
        ...     rows=[{"name": "a", "x": 1.0, "s": 0.5}, {"name": "bb", "x": 12.25}],
        ...     columns=[Column("name", "name"), Column("x", "x (s)", ".2f", "s")],
        ...     caption="Demo.",
        ... )
        >>> print(result.to_text())
        Demo.
        name  x (s)
        ----  ------------
        a      1.00 ± 0.50
        bb    12.25 ±    —
        """
        blocks = _blocks_by_columns(self.rows, self.columns)
        if len(blocks) <= 1:
            return format_table(self.rows, self.columns, self.caption, width=width)
        # Rows measured on different columns (a comparison's clustering and
        # regression families) get a table each, so no column is all dashes.
        parts = ["\n".join(textwrap.wrap(self.caption, width=width))]
        parts += [format_table(rows, columns) for rows, columns in blocks]
        return "\n\n".join(part for part in parts if part)


def format_table(rows, columns, caption="", *, width=100):
    """Format rows as an aligned plain-text table under a caption.

    Text is left-aligned and numbers right-aligned; ``mean ± std`` cells are
    aligned on the ``±``. Missing values show as ``—``.

    Parameters
    ----------
    rows : list of dict
        Table rows.
    columns : list of Column
        Columns to show, in order.
    caption : str, default=""
        Paragraph printed above the table, wrapped to ``width``.
    width : int, default=100
        Width the caption is wrapped to.

    Returns
    -------
    text : str
        The caption (if any) and the table, without a trailing newline.
    """
    cells = [_column_cells(rows, column) for column in columns]
    numeric = [_is_numeric_column(rows, column) for column in columns]
    widths = [
        max([len(column.header)] + [len(cell) for cell in column_cells])
        for column, column_cells in zip(columns, cells)
    ]
    lines = textwrap.wrap(caption, width=width) if caption else []
    lines.append("  ".join(c.header.ljust(w) for c, w in zip(columns, widths)).rstrip())
    lines.append("  ".join("-" * w for w in widths))
    for i in range(len(rows)):
        line = "  ".join(
            (cell[i].rjust(w) if is_number else cell[i].ljust(w))
            for cell, w, is_number in zip(cells, widths, numeric)
        )
        lines.append(line.rstrip())
    return "\n".join(lines)


def _present(row, column):
    value = row.get(column.key)
    return value is not None and not (isinstance(value, Real) and np.isnan(value))


def _blocks_by_columns(rows, columns):
    """Consecutive rows sharing their set of measured columns, with those columns.

    Grouping columns are kept in every block; the others are kept where the
    block measures them.
    """
    blocks = []
    for row in rows:
        measured = tuple(
            column.key
            for column in columns
            if not column.group and _present(row, column)
        )
        if blocks and blocks[-1][0] == measured:
            blocks[-1][1].append(row)
        else:
            blocks.append((measured, [row]))
    return [
        (block_rows, [c for c in columns if c.group or c.key in measured])
        for measured, block_rows in blocks
    ]


def _column_cells(rows, column):
    values = [_format_value(row.get(column.key), column.fmt) for row in rows]
    if column.std_key is not None:
        stds = [_format_value(row.get(column.std_key), column.fmt) for row in rows]
        mean_width = max(map(len, values), default=0)
        std_width = max(map(len, stds), default=0)
        # A missing mean shows as one dash, not "— ± —".
        values = [
            f"{value.rjust(mean_width)} ± {std.rjust(std_width)}"
            if value != "—"
            else value
            for value, std in zip(values, stds)
        ]
    if column.range_keys is not None:
        low, high = (
            [_format_value(row.get(key), column.fmt) for row in rows]
            for key in column.range_keys
        )
        width = max(map(len, values), default=0)
        values = [
            f"{value.rjust(width)} ({lo}-{hi})" if value != "—" else value
            for value, lo, hi in zip(values, low, high)
        ]
    if column.group:
        values = [
            "" if i and rows[i].get(column.key) == rows[i - 1].get(column.key) else v
            for i, v in enumerate(values)
        ]
    return values


def _is_numeric_column(rows, column):
    values = [row.get(column.key) for row in rows]
    return any(isinstance(v, Real) for v in values) and all(
        v is None or isinstance(v, Real) for v in values
    )


def _format_value(value, fmt):
    if value is None or (isinstance(value, Real) and np.isnan(value)):
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if callable(fmt) and isinstance(value, Real):
        return fmt(value)
    if isinstance(value, Real) and not isinstance(value, Integral):
        return format(float(value), fmt)
    return str(value)


def _plain(value):
    """Numpy scalars and arrays to Python numbers and lists, recursively."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    # NaN is not JSON: a missing number is null.
    if isinstance(value, float) and np.isnan(value):
        return None
    return value


def _versions():
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "skcgm": __version__,
    }
