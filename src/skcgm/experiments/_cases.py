"""A table with one column per case and one line per measure."""


def _cell(value, fmt):
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return format(value, fmt)


def format_cases(cases, measures):
    """Format measures of a few cases: one column per case, one line per measure.

    The transpose of :func:`format_table`, for many measures of a few cases
    (data sets, sizes), each measure with its own format. Missing values
    show as ``—``, booleans as ``yes`` or ``no``.

    Parameters
    ----------
    cases : dict
        ``{case name: {key: value}}``, in the order of the columns.
    measures : sequence of tuple
        ``(key, label, fmt)`` per line: the key of the value in every case,
        the label of the line and the format specification of its values.

    Returns
    -------
    text : str
        A header, a rule and one line per measure, without a trailing
        newline.

    See Also
    --------
    format_table : One line per row, one column per key.

    Examples
    --------
    >>> from skcgm.experiments import format_cases
    >>> cases = {"n=10": {"t": 0.52, "ok": True}, "n=100": {"t": 4.1, "ok": None}}
    >>> print(format_cases(cases, [("t", "fit time (s)", ".2f"), ("ok", "ok", "")]))
    measure       n=10  n=100
    ------------  ----  -----
    fit time (s)  0.52   4.10
    ok             yes      —
    """
    names = list(cases)
    header = ["measure", *names]
    lines = [[label] for _, label, _ in measures]
    for name in names:
        for line, (key, _, fmt) in zip(lines, measures):
            line.append(_cell(cases[name][key], fmt))
    widths = [max(len(row[i]) for row in [header, *lines]) for i in range(len(header))]

    def render(row):
        cells = [row[0].ljust(widths[0])]
        cells += [cell.rjust(width) for cell, width in zip(row[1:], widths[1:])]
        return "  ".join(cells)

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([render(header), rule, *map(render, lines)])
