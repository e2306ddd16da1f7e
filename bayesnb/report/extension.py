"""Report sections a family contributes: what :meth:`Family.report_studies` returns.

The report plans its generic sections itself; after them come the families' own, in
registry order, each a :class:`FamilySection` (Poisson against multinomial from the poisson
family, burstiness from the DCM, the GDA section, ...). A family section is computed for the
studies it picks, drawn and laid out by its own functions, from the toolkit of
:mod:`bayesnb.report.sections.common`, :mod:`bayesnb.report.plotting` and
:mod:`bayesnb.report.html`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bayesnb import families

__all__ = ["FamilySection", "family_sections", "first_study"]


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


def family_sections() -> list[FamilySection]:
    """Every registered family's own sections, in registry order."""
    return [sec for name in families.names() for sec in families.get(name).report_studies()]


def first_study(studies, model: str):
    """The first of ``studies`` whose model is the family ``model``, or None."""
    return next((s for s in studies if s.model == model), None)
