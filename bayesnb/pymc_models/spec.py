"""The numpy description of a PyMC declaration: :class:`ModelSpec` and its argument checks.

A family's declaration (``Family.pymc_spec``) computes a :class:`ModelSpec` with numpy: the
value of every ``pm.Data``, the observations in the DataTree layout, the layout variables and
the builder that declares the ``pm.Model``. PyMC is imported by the builder only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "DEFAULT_ALPHA_PRIOR",
    "LIKELIHOODS",
    "Completion",
    "ModelSpec",
    "check_alpha_prior",
    "check_likelihood",
]

LIKELIHOODS = ("sufficient", "data")

#: Hyperprior of a learned symmetric α (``alpha_prior={}`` uses it): α ~ Gamma(shape=2, rate=1),
#: mean 2, mode 1 (Laplace), weakly informative on the scale of pseudo-counts; one α shared by
#: every class (``per_class=True``: one α per class, each with this prior).
DEFAULT_ALPHA_PRIOR: dict[str, Any] = {"alpha": 2.0, "beta": 1.0, "per_class": False}


def check_likelihood(likelihood: str) -> str:
    """Return ``likelihood`` if it is ``"sufficient"`` or ``"data"``, else raise ValueError."""
    if not isinstance(likelihood, str) or likelihood not in LIKELIHOODS:
        raise ValueError(f"likelihood must be one of {LIKELIHOODS}, got {likelihood!r}")
    return likelihood


def check_alpha_prior(alpha_prior) -> dict[str, Any] | None:
    """None (α fixed at ``est.alpha``) or the Gamma(alpha, beta) hyperprior of a learned α.

    Keys ``alpha`` (shape) and ``beta`` (rate), floats > 0, and ``per_class`` (bool: one α
    per class instead of one shared by every class); missing keys take
    :data:`DEFAULT_ALPHA_PRIOR`.
    """
    if alpha_prior is None:
        return None
    if not isinstance(alpha_prior, Mapping):
        raise TypeError(
            "alpha_prior must be None or a dict(alpha=..., beta=..., per_class=...), got "
            f"{alpha_prior!r}"
        )
    unknown = set(alpha_prior) - set(DEFAULT_ALPHA_PRIOR)
    if unknown:
        raise ValueError(
            f"alpha_prior takes the keys 'alpha', 'beta' and 'per_class', got {sorted(unknown)}"
        )
    per_class = alpha_prior.get("per_class", False)
    if not isinstance(per_class, bool | np.bool_):
        raise ValueError(f"alpha_prior['per_class'] must be True or False, got {per_class!r}")
    values = {k: float(alpha_prior.get(k, DEFAULT_ALPHA_PRIOR[k])) for k in ("alpha", "beta")}
    if not all(np.isfinite(v) and v > 0 for v in values.values()):
        raise ValueError(f"alpha_prior values must be finite and > 0, got {values}")
    return values | {"per_class": bool(per_class)}


@dataclass(frozen=True)
class Completion:
    """Layout variables drawn after sampling, from the sampler's draws of other variables.

    ``draw(values, rng)`` takes the draws (chain, draw, ...) of ``needs`` and returns those
    of ``gives``: for variables whose exact conditional given ``needs`` is cheaper to draw
    with numpy than to compute inside the model for every draw (the unseen cells of
    :func:`bayesnb.pymc_models.simplex.collapsed_dirichlet`).
    """

    needs: tuple[str, ...]
    gives: tuple[str, ...]
    draw: Callable[[dict[str, np.ndarray], np.random.Generator], dict[str, np.ndarray]]


@dataclass
class ModelSpec:
    """Everything needed to declare one model, computed with numpy before PyMC is touched.

    Attributes
    ----------
    kind : str
        The name of the estimator's family (``"bernoulli"``, ..., ``"columnwise"``).
    likelihood : str
    structure : tuple
        Hashable description of what ``pm.Data`` cannot change (prior form, groups); together
        with the shapes of :attr:`data` it is the cache key of a compiled model.
    coords : dict
        Model coordinates (``class``, ``feature``, and ``doc``/``value`` where used).
    data : dict of str -> ndarray
        The value of every ``pm.Data`` of the model (observations and prior hyperparameters).
    observed : dict of str -> (ndarray, list of dims)
        The observations in the DataTree layout (``observed_data`` group).
    codes : ndarray of int
        Class code of every document (after integer sample weights are expanded).
    X : ndarray or csr_matrix
        The documents as the estimator checks them (binarised; expanded by integer weights),
        all columns: what the label log-likelihood of :mod:`bayesnb.loo` scores.
    var_names : list of str
        The posterior variables of the layout (``class_prior``, ``feature_prob``, ``alpha``;
        GDA ``class_prior``, ``mean``, ``cov``).
    dims : dict of str -> list of dims
        Dims of the posterior variables.
    extra : dict
        Model-specific arrays (categorical groups and offsets, GDA covariance type).
    hyperparameter_dims : dict of str -> list of dims or None
        The prior's ``pm.Data`` names, each with its dims (None: a scalar, or dims the layout
        has no coordinate for): the family says which data are hyperparameters.
    auxiliary : dict of str -> list of dims or None
        The free variables of the parametrisation that are not layout variables (the
        log-Gamma variates of a Dirichlet, GDA's Bartlett factors), with their dims: left out
        of the posterior unless :meth:`with_auxiliary` adds them to :attr:`var_names`.
    completion : Completion or None
        Layout variables the sampler does not report, drawn from its draws afterwards.
    missing : None or list
        The missing-cell indicator of :attr:`X` as :mod:`bayesnb.loo` scores it: None (the
        PyMC path takes complete data only); a composite holds one per block.
    """

    kind: str
    likelihood: str
    structure: tuple
    coords: dict[str, list]
    data: dict[str, np.ndarray]
    observed: dict[str, tuple[np.ndarray, list[str]]]
    codes: np.ndarray
    X: Any
    var_names: list[str]
    dims: dict[str, list[str]]
    alpha_prior: dict[str, float] | None
    build: Callable[[ModelSpec], Any] = field(repr=False)
    extra: dict[str, Any] = field(default_factory=dict)
    hyperparameter_dims: dict[str, list[str] | None] = field(default_factory=dict)
    auxiliary: dict[str, list[str] | None] = field(default_factory=dict)
    completion: Completion | None = None
    missing: Any = None

    @property
    def key(self) -> tuple:
        """Cache key of the compiled model: kind, likelihood, structure, data shapes and the
        variables kept."""
        shapes = tuple(sorted((k, np.shape(v)) for k, v in self.data.items()))
        return (self.kind, self.likelihood, self.structure, shapes, tuple(self.sampled))

    @property
    def sampled(self) -> list[str]:
        """The variables the sampler reports: :attr:`var_names`, except those the
        :attr:`completion` draws, plus those it reads."""
        if self.completion is None:
            return list(self.var_names)
        kept = [v for v in self.var_names if v not in self.completion.gives]
        return kept + [v for v in self.completion.needs if v not in kept]

    def with_auxiliary(self) -> ModelSpec:
        """A copy whose :attr:`var_names` and :attr:`dims` include the auxiliary variables."""
        from dataclasses import replace

        extra = [name for name in self.auxiliary if name not in self.var_names]
        dims = self.dims | {k: v for k, v in self.auxiliary.items() if v is not None}
        return replace(self, var_names=[*self.var_names, *extra], dims=dims)

    @property
    def hyperparameters(self) -> dict[str, tuple[np.ndarray, list[str] | None]]:
        """The prior's ``pm.Data`` (name -> (value, dims)): the DataTree's ``constant_data``.

        Recorded with the draws so ``pm.sample_posterior_predictive`` can tell that the prior
        did not change (otherwise it warns that the parameters may need resampling).
        """
        dims = self.hyperparameter_dims
        return {name: (value, dims[name]) for name, value in self.data.items() if name in dims}

    def model(self):
        """A fresh ``pm.Model`` of this specification."""
        return self.build(self)
