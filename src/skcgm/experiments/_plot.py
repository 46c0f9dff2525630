"""Figures of experiment results, declared as panels of curves."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Panel:
    """One axes: a curve of ``y`` against ``x`` per value of ``by``.

    Parameters
    ----------
    x, y : str
        Row keys of the abscissa and the ordinate.
    by : str or None
        Row key whose values name the curves (in their first-seen order);
        None draws one curve.
    xlabel, ylabel : str
        Axis labels.
    title : str
        Axes title, formatted with the first row of the panel
        (``"d = {n_features}"``).
    where : dict
        Rows kept: those whose values equal these.
    split : str or None
        Row key with one panel per value, side by side; the panel's ``where``
        gains that value.
    band : tuple of str or None
        Row keys of a shaded lower and upper bound.
    yerr : str or callable or None
        Row key (or ``row -> value``) of symmetric error bars.
    xscale, yscale : str or dict
        Axis scales; a dict gives the scale's keyword arguments (its
        ``"value"`` entry is the scale's name).
    ylim : tuple or None
        Limits of the ordinate.
    ticks : bool
        Whether the abscissa's ticks are the values of ``x``.
    positive : bool
        Drop points whose ordinate is not positive (for log axes).
    label : str or callable or None
        Curve label: a format string filled with the curve's last row, or
        ``row -> str`` of that row; None labels the curve by its ``by``
        value.
    curve : callable or None
        ``row -> (x values, y values)``: the curve is the list-valued
        series of the last row of each ``by`` value (a trajectory stored in
        one row) instead of one point per row.
    styles : dict
        Keyword arguments of matplotlib per curve, by ``by`` value
        (``{"exact": {"linestyle": "--", "fillstyle": "none"}}``).
    markevery : int or float or None
        matplotlib's ``markevery`` of every curve (a fraction of a long
        curve's length keeps its markers readable).
    extra : callable or None
        ``extra(ax, rows)`` draws what the declaration does not (reference
        lines, shaded regions).

    Examples
    --------
    >>> from skcgm.experiments._plot import Panel
    >>> Panel("m", "mmd2", "method", "subset size m", "MMD^2").where
    {}
    """

    x: str
    y: str
    by: str | None
    xlabel: str
    ylabel: str
    title: str = ""
    where: dict = field(default_factory=dict)
    split: str | None = None
    band: tuple | None = None
    yerr: object = None
    xscale: object = "linear"
    yscale: object = "linear"
    ylim: tuple | None = None
    ticks: bool = False
    positive: bool = False
    label: object = None
    curve: object = None
    styles: dict = field(default_factory=dict)
    markevery: object = None
    extra: object = None

    def rows(self, result, where):
        """The result's rows that match ``where``."""
        return [r for r in result.rows if all(r.get(k) == v for k, v in where.items())]

    def draw(self, ax, result, where):
        """Draw the panel's curves on ``ax``."""
        rows = self.rows(result, where)
        keys = list(dict.fromkeys(r[self.by] for r in rows)) if self.by else [None]
        for i, key in enumerate(keys):
            curve = [r for r in rows if self.by is None or r[self.by] == key]
            if self.positive:
                curve = [r for r in curve if r[self.y] is not None and r[self.y] > 0]
            if not curve:
                continue
            if self.curve is not None:
                x, y = self.curve(curve[-1])
            else:
                x, y = [r[self.x] for r in curve], [r[self.y] for r in curve]
            label = self.label
            if label is None:
                label = key
            elif callable(label):
                label = label(curve[-1])
            else:
                label = label.format(**curve[-1])
            style = {"marker": "os^vDP*X"[i % 8], "color": f"C{i}", "label": label}
            style.update(markevery=self.markevery, **self.styles.get(key, {}))
            if self.yerr is not None:
                err = self.yerr if callable(self.yerr) else lambda r: r[self.yerr]
                yerr = [err(r) or 0.0 for r in curve]
                ax.errorbar(x, y, yerr=yerr, capsize=3, **style)
            else:
                ax.plot(x, y, **style)
            if self.band is not None and curve[0].get(self.band[0]) is not None:
                low, high = ([r[k] for r in curve] for k in self.band)
                ax.fill_between(x, low, high, color=style["color"], alpha=0.2)
        if self.extra is not None:
            self.extra(ax, rows)
        for axis, scale in (("x", self.xscale), ("y", self.yscale)):
            options = dict(scale) if isinstance(scale, dict) else {"value": scale}
            getattr(ax, f"set_{axis}scale")(**options)
        if self.ticks:
            values = sorted({r[self.x] for r in rows})
            ax.set_xticks(values, [str(v) for v in values])
            ax.minorticks_off()
        if self.ylim is not None:
            ax.set_ylim(*self.ylim)
        ax.set_xlabel(self.xlabel)
        ax.set_ylabel(self.ylabel)
        if self.title and rows:
            ax.set_title(self.title.format(**rows[0]), fontsize="medium")
        ax.legend(fontsize="small")

    def expand(self, result):
        """The ``where`` filter of each axes this panel spans."""
        if self.split is None:
            return [self.where]
        values = dict.fromkeys(r[self.split] for r in self.rows(result, self.where))
        return [{**self.where, self.split: value} for value in values]


def draw(result, figure, *panels, size=(5.0, 4.0), title=None, ncols=None):
    """Draw ``panels`` side by side on ``figure``, ``ncols`` to a row.

    Parameters
    ----------
    result : ExperimentResult
        The rows to draw.
    figure : matplotlib.figure.Figure
        Figure to draw on.
    *panels : Panel
        The panels, left to right (a split panel spans one axes per value).
    size : tuple of float, default=(5.0, 4.0)
        Width and height of one axes, in inches.
    title : str or None, default=None
        Figure title.
    ncols : int or None, default=None
        Axes per row; None puts them all in one row.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from skcgm.experiments._plot import Panel, draw
    >>> from skcgm.experiments._result import ExperimentResult
    >>> rows = [{"m": m, "e": 1.0 / m, "method": "a"} for m in (1, 2, 4)]
    >>> result = ExperimentResult("toy", rows, [], "", {})
    >>> figure = Figure()
    >>> draw(result, figure, Panel("m", "e", "method", "m", "error"))
    >>> len(figure.axes)
    1
    """
    cells = [(panel, where) for panel in panels for where in panel.expand(result)]
    ncols = len(cells) if ncols is None else ncols
    nrows = -(-len(cells) // ncols)
    figure.set_size_inches(size[0] * ncols, size[1] * nrows)
    axes = figure.subplots(nrows, ncols, squeeze=False).ravel()
    for ax, (panel, where) in zip(axes, cells):
        panel.draw(ax, result, where)
    for ax in axes[len(cells) :]:
        ax.set_visible(False)
    if title is not None:
        figure.suptitle(title)
    figure.tight_layout()
