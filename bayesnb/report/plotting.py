"""The report's figure toolkit: one style, figures outside pyplot, PNG bytes.

Used by :mod:`bayesnb.report.figures` and by the sections families contribute
(:mod:`bayesnb.report.extension`), so every figure of a report looks alike.
"""

from __future__ import annotations

import io
from contextlib import contextmanager

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

__all__ = ["COLORS", "DPI", "style", "subplots", "to_png"]

DPI = 80
COLORS = {
    "mle": "#7f7f7f",
    "map": "#ff7f0e",
    "mean": "#1f77b4",
    "bayes": "#2ca02c",
    "logistic": "#9467bd",
    "held_out": "#000000",
    "laplace": "#d62728",
    "evidence": "#1f77b4",
    "real": "#333333",
    "generated": "#e377c2",
    "supervised": "#7f7f7f",
    "em": "#ff7f0e",
    "vb": "#2ca02c",
}
_STYLE = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.facecolor": "white",
}


@contextmanager
def style():
    """The report's matplotlib style, for the figures drawn inside."""
    with plt.rc_context(_STYLE):
        yield


def subplots(nrows: int = 1, ncols: int = 1, **kwargs):
    """A figure outside pyplot (no backend, no global state: safe in any session)."""
    fig = Figure(figsize=kwargs.pop("figsize", None), layout="constrained")
    return fig, fig.subplots(nrows, ncols, **kwargs)


def to_png(fig, dpi: int = DPI) -> bytes:
    """Render a matplotlib figure to PNG bytes (and release it if pyplot manages it)."""
    buf = io.BytesIO()
    fig.savefig(
        buf,
        format="png",
        dpi=dpi,
        bbox_inches="tight",
        facecolor="white",
        metadata={"Software": None},  # no version string or URL inside the page
    )
    plt.close(fig)
    return buf.getvalue()
