"""How the report reads each family: a :class:`FamilyReport` registered by family name.

The report plans its generic sections itself and asks a family's :class:`FamilyReport` only
how to read it: whether its features are measurements or token counts, which generic sections
it feeds, its default estimator, its discriminative partners, and the sections it contributes
itself, each a :class:`FamilySection` (Poisson against multinomial from the poisson family,
burstiness from the DCM, the GDA section, ...), computed, drawn and laid out by its own
functions from the toolkit of :mod:`bayesnb.report.sections.common`,
:mod:`bayesnb.report.plotting` and :mod:`bayesnb.report.html`.

A family registers its report with :func:`register`, as it registers itself with
:func:`bayesnb.families.register`; a built-in family does so in ``report.py`` of its folder,
imported on first use. A family that registers none is read with the defaults.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from bayesnb import families

__all__ = [
    "FamilyReport",
    "FamilySection",
    "family_sections",
    "first_study",
    "register",
    "report_of",
]


@dataclass(frozen=True)
class FamilySection:
    """One section of the report contributed by a family.

    Parameters
    ----------
    key : str
        Key of the results in ``ReportBuilder.results`` and id of the HTML section.
    title : str
        Name of its computing steps (``"<title>: <data set>"``).
    run : callable
        ``run(target, seed=..., cfg=...)`` -> result: computes the section for one target
        (``cfg``: the report's size settings).
    layout : callable
        ``layout(results, draw)`` -> :class:`bayesnb.report.html.Section`; ``draw(plot,
        result)`` gives a figure's PNG bytes (a broken figure is recorded, not raised).
    per_dataset : callable, optional
        ``per_dataset(studies)`` -> the target among a data set's discrete studies, or None.
    per_study : callable, optional
        ``per_study(study)`` -> whether ``study`` is a target (after every data set).
    headline : callable, optional
        ``headline(result)`` -> one sentence for the overview.
    """

    key: str
    title: str
    run: Callable
    layout: Callable
    per_dataset: Callable | None = None
    per_study: Callable | None = None
    headline: Callable | None = None


def _as_given(est, X):
    return X


def _no_partners(est) -> dict:
    return {}


@dataclass(frozen=True)
class FamilyReport:
    """How the report reads one family (every field has the default of a plain count model).

    Parameters
    ----------
    name : str
        The family's registry name (set by :func:`register`).
    continuous : bool
        Standardise the features with their training moments (measurements) instead of
        reading them as counts.
    naive : bool
        The class model treats the features as independent given the class; the report names
        that as the cause of over-confident probabilities.
    tokens : bool
        Documents are token counts, one word distribution per class over the V features: the
        MLE divides by token totals (not documents), add-one smooths over V categories (not
        2), and the posterior predictive check compares distinct words per token.
    predictive : str or None
        Name of the full-Bayes posterior predictive quoted by the estimates reading (None:
        the reading does not discuss it).
    ranks : mapping
        Generic sections the family feeds, with its preference among the families that do
        (lower first): ``"parameters"`` (forest, shrinkage, smoothing, informative features),
        ``"nuts"`` (the sampler check), ``"ppc"`` (posterior predictive check), ``"labels"``
        (few labels: EM and VB on text data's unlabelled documents).
    default_params : tuple of (parameter, value)
        Constructor arguments of the family's default estimator.
    default_data_params : tuple of (parameter, Dataset attribute)
        Constructor arguments read from the data set (BernoulliNB's ``binarize``).
    no_default : str or None
        Why the family has no default estimator, so no study names it (None: it has one).
    partners : callable
        ``partners(est)`` -> unfitted discriminative models shown beside the estimates of
        ``est``, by row name.
    observed : callable
        ``observed(est, X)`` -> training documents ``X`` as the configured ``est`` sees them
        (for the posterior predictive check).
    information : callable or None
        ``information(est)`` -> class-specific terms I_cj (K, V) of the class–feature mutual
        information (the features the sampler check keeps); None: the family has none.
    sections : tuple of FamilySection
        The family's own report sections, after the generic ones.
    """

    name: str = ""
    continuous: bool = False
    naive: bool = True
    tokens: bool = False
    predictive: str | None = None
    ranks: Mapping[str, int] = field(default_factory=dict)
    default_params: tuple[tuple[str, object], ...] = ()
    default_data_params: tuple[tuple[str, str], ...] = ()
    no_default: str | None = None
    partners: Callable[..., dict] = _no_partners
    observed: Callable = _as_given
    information: Callable[..., np.ndarray] | None = None
    sections: tuple[FamilySection, ...] = ()

    def default_estimator(self, data=None):
        """The unfitted estimator a study of the family uses when none is given.

        ``data`` (a :class:`bayesnb.report.Dataset`) supplies :attr:`default_data_params`;
        without it the estimator's defaults stand.
        """
        family = families.get(self.name)
        if family.estimator is None or self.no_default is not None:
            why = f" ({self.no_default})" if self.no_default else ""
            raise family.unsupported(f"a default estimator{why}")
        params = dict(self.default_params)
        if data is not None:
            params.update((p, getattr(data, a)) for p, a in self.default_data_params)
        return family.estimator(**params)

    def class_feature_information(self, est) -> np.ndarray:
        """Class-specific terms I_cj (K, V) of the class–feature mutual information."""
        if self.information is None:
            raise families.get(self.name).unsupported("the class-feature mutual information")
        return self.information(est)


_REPORTS: dict[str, FamilyReport] = {}


def register(name: str, report: FamilyReport) -> FamilyReport:
    """Register how the report reads the family registered as ``name``; returns it named."""
    if not isinstance(report, FamilyReport):
        raise TypeError(f"register() takes a FamilyReport, got {type(report).__name__}")
    _REPORTS[name] = replace(report, name=name)
    return _REPORTS[name]


def report_of(name: str) -> FamilyReport:
    """The :class:`FamilyReport` of the family ``name`` (the defaults when it registered none).

    A built-in family's registration, ``report.py`` of its folder, is imported on first use.
    """
    if name not in _REPORTS and name in families.BUILTIN:
        folder = families.BUILTIN[name].rpartition(".")[0]
        importlib.import_module(f"{folder}.report")
    known = _REPORTS.get(name)
    if known is not None:
        return known
    families.get(name)  # a KeyError naming the known families
    return FamilyReport(name=name)


def family_sections() -> list[FamilySection]:
    """Every registered family's own sections, in registry order."""
    return [sec for name in families.names() for sec in report_of(name).sections]


def first_study(studies, model: str):
    """The first of ``studies`` whose model is the family ``model``, or None."""
    return next((s for s in studies if s.model == model), None)
