"""CategoricalNB family methods: report studies."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from bayesnb.families._discrete_report import _DiscreteReport

__all__ = ["CategoricalReport"]


class CategoricalReport(_DiscreteReport):
    """Family methods of CategoricalNB for report; see :class:`bayesnb.families.Family`."""

    report_ranks: ClassVar[dict[str, int]] = {"nuts": 2}

    @staticmethod
    def _information_terms(pi, theta):
        bar = np.einsum("c,cjv->jv", pi, theta)
        return np.nansum(theta * np.log(theta / bar), axis=-1)
