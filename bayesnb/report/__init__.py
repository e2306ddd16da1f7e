"""Report: studies (data set × model) -> one self-contained HTML page with figures.

``build(out, studies)`` computes every section (:mod:`bayesnb.report.sections`), draws its
figures (:mod:`bayesnb.report.figures`) and writes ``out/index.html`` (figures embedded as
base64 PNG, no external URL, no JavaScript) plus the same figures as files in
``out/figures/``. :class:`ReportBuilder` (:mod:`bayesnb.report.builder`) exposes the steps,
so a caller can show progress; :mod:`bayesnb.report.layout` turns results into the page.

Sections: overview, the saved model (when reporting one), data, estimates side by side
(metrics table from :func:`bayesnb.compare`, reliability diagrams), parameters (ArviZ forest
plot, shrinkage), most informative features (posterior log-odds ratios with intervals),
smoothing diagnostics (deleted estimation, log evidence over α), sampler diagnostics (NUTS
against the exact posterior; optional), posterior predictive checks, event models compared,
then the sections each family contributes (:mod:`bayesnb.report.extension`): naive Bayes
against scikit-learn baselines (ComplementNB, logistic regression), Poisson against
multinomial (the length term), burstiness (the DCM's distinct-words check), and GDA (linear
link, learning curve, decision regions).
"""

from __future__ import annotations

from bayesnb.report.builder import Progress, ReportBuilder, build
from bayesnb.report.data import Dataset, Study

__all__ = ["Dataset", "Progress", "ReportBuilder", "Study", "build"]
