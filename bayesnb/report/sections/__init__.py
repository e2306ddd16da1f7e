"""Report sections, computed: studies -> numbers, tables and the plain-language readings.

Nothing here draws (that is :mod:`bayesnb.report.figures`) or writes HTML
(:mod:`bayesnb.report.html`): every function takes studies and returns a result object
holding the numbers the figures and the text are made from, so a section can be inspected,
tested or re-plotted without re-running it. Each result has a ``reading``: one paragraph of
plain language generated from its numbers.

One module per group of sections: :mod:`~bayesnb.report.sections.scores` (data, estimates,
a saved model), :mod:`~bayesnb.report.sections.params` (parameters, smoothing, informative
features), :mod:`~bayesnb.report.sections.mcmc` (NUTS against the exact posterior),
:mod:`~bayesnb.report.sections.predictive` (posterior predictive checks, event models),
:mod:`~bayesnb.report.sections.crossval` (exact LOO against PSIS-LOO, predictive uncertainty,
the smoothing α chosen three ways), :mod:`~bayesnb.report.sections.calibration` (the
likelihood temperature against calibration by refits), and
the helpers they share in :mod:`~bayesnb.report.sections.common`. The sections a family
contributes (baselines, Poisson against multinomial, burstiness, GDA) live in that family's
folder (``bayesnb/families/<name>/studies.py``).
"""

from __future__ import annotations

from bayesnb.report.sections.calibration import TemperatureResult, temperature
from bayesnb.report.sections.common import (
    ESTIMATE_LABELS,
    GDA_MAP_PRIOR,
    MAP_PRIOR,
    fmt,
    split_xy,
    words,
)
from bayesnb.report.sections.crossval import (
    AlphaChoiceResult,
    LOOCheckResult,
    UncertaintyResult,
    alpha_choice,
    loo_check,
    predictive_uncertainty,
)
from bayesnb.report.sections.mcmc import SamplerResult, discriminative_features, sampler
from bayesnb.report.sections.params import (
    InformativeResult,
    ParameterResult,
    SmoothingResult,
    deleted_estimation,
    informative,
    parameters,
    smoothing,
    smoothing_headline,
)
from bayesnb.report.sections.predictive import (
    EventModelResult,
    PPCResult,
    event_models,
    posterior_predictive,
)
from bayesnb.report.sections.scores import (
    DataSummary,
    EstimateResult,
    SavedModelResult,
    best_estimate,
    data_summary,
    estimates,
    overconfidence,
    reliability,
    saved_model,
)

__all__ = [
    "ESTIMATE_LABELS",
    "GDA_MAP_PRIOR",
    "MAP_PRIOR",
    "AlphaChoiceResult",
    "DataSummary",
    "EstimateResult",
    "EventModelResult",
    "InformativeResult",
    "LOOCheckResult",
    "PPCResult",
    "ParameterResult",
    "SamplerResult",
    "SavedModelResult",
    "SmoothingResult",
    "TemperatureResult",
    "UncertaintyResult",
    "alpha_choice",
    "best_estimate",
    "data_summary",
    "deleted_estimation",
    "discriminative_features",
    "estimates",
    "event_models",
    "fmt",
    "informative",
    "loo_check",
    "overconfidence",
    "parameters",
    "posterior_predictive",
    "predictive_uncertainty",
    "reliability",
    "sampler",
    "saved_model",
    "smoothing",
    "smoothing_headline",
    "split_xy",
    "temperature",
    "words",
]
