"""PoissonNB family methods: report studies."""

from __future__ import annotations

__all__ = ["PoissonReport"]


class PoissonReport:
    """Family methods of PoissonNB for report; see :class:`bayesnb.families.Family`."""

    def report_studies(self) -> list:
        """Poisson against multinomial naive Bayes: the length term, measured."""
        from bayesnb.families.poisson.studies import SECTION

        return [SECTION]
