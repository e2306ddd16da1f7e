"""Report sections, computed: studies -> numbers, tables and the plain-language readings.

Nothing here draws (that is :mod:`bayesnb.report.figures`) or writes HTML
(:mod:`bayesnb.report.html`): every function takes studies and returns a result object
holding the numbers the figures and the text are made from, so a section can be inspected,
tested or re-plotted without re-running it. Each result has a ``reading``: one paragraph of
plain language generated from its numbers.

One module per group of sections (each says which), the helpers they share in
:mod:`~bayesnb.report.sections.common`; the sections a family contributes live in its folder
(``bayesnb/families/<name>/studies.py``).
"""

from __future__ import annotations

import bayesnb.report.sections.calibration as calibration
import bayesnb.report.sections.common as common
import bayesnb.report.sections.crossval as crossval
import bayesnb.report.sections.labels as labels
import bayesnb.report.sections.mcmc as mcmc
import bayesnb.report.sections.params as params
import bayesnb.report.sections.predictive as predictive
import bayesnb.report.sections.scores as scores
from bayesnb.report.sections.calibration import *  # noqa: F403
from bayesnb.report.sections.common import *  # noqa: F403
from bayesnb.report.sections.crossval import *  # noqa: F403
from bayesnb.report.sections.labels import *  # noqa: F403
from bayesnb.report.sections.mcmc import *  # noqa: F403
from bayesnb.report.sections.params import *  # noqa: F403
from bayesnb.report.sections.predictive import *  # noqa: F403
from bayesnb.report.sections.scores import *  # noqa: F403

# Every submodule's public names, each listed once, in its own module.
__all__ = sorted(
    name
    for module in (calibration, common, crossval, labels, mcmc, params, predictive, scores)
    for name in module.__all__
)
