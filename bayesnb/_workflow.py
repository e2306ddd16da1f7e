"""The Bayesian workflow of a fitted estimator: posterior draws, predictive draws, LOO, the
evidence, synthetic data, model files and the PyMC declaration.

Each method hands over to the module of its arrow in the pipe (``docs/design.md`` §2), which
takes the estimator as its first argument; they are imported lazily, since PyMC and ArviZ cost
seconds to import and plain scoring needs neither.
"""

from __future__ import annotations

__all__ = ["BayesianWorkflow"]


class BayesianWorkflow:
    """Methods of every bayesnb estimator beyond fit and predict (a mixin of
    :class:`bayesnb._base.GenerativeClassifier`)."""

    def point_estimate(self, estimate: str = "mean", *, var_names=None, features=None):
        """The ``"mle"``, ``"map"`` or ``"mean"`` estimate as a 1-chain × 1-draw DataTree."""
        from bayesnb.draws import point_estimate

        return point_estimate(self, estimate, var_names=var_names, features=features)

    def sample_posterior(
        self,
        draws: int = 1000,
        chains: int = 4,
        random_seed=None,
        *,
        var_names=None,
        features=None,
        max_bytes: float = 2e9,
    ):
        """Independent draws from the exact conjugate posterior, as a DataTree."""
        from bayesnb.draws import sample_posterior

        return sample_posterior(
            self,
            draws=draws,
            chains=chains,
            random_seed=random_seed,
            var_names=var_names,
            features=features,
            max_bytes=max_bytes,
        )

    def predict_proba_draws(
        self,
        X,
        draws: int = 1000,
        chains: int = 4,
        random_seed=None,
        *,
        posterior=None,
        max_bytes: float = 2e9,
    ):
        """p(c | x, θ_s) of every document under posterior draws θ_s, as a DataTree.

        Group ``predictions`` with ``class_proba (chain, draw, doc, class)``: exact conjugate
        draws, or those of ``posterior=`` (e.g. the tree ``fit_pymc`` returns, for NUTS
        draws). ``az.hdi(tree, group="predictions", prob=0.9)`` gives per-document
        intervals. Their mean is not the ``estimate="bayes"`` probability (which weights
        each draw by p(x | θ)); see :func:`bayesnb.uncertainty.predict_proba_draws`.
        """
        from bayesnb.uncertainty import predict_proba_draws

        return predict_proba_draws(
            self,
            X,
            draws=draws,
            chains=chains,
            random_seed=random_seed,
            posterior=posterior,
            max_bytes=max_bytes,
        )

    def label_log_likelihood(self, X, y, draws: int = 500, random_seed=0, *, posterior=None):
        """log p(y_i | x_i, θ_s) per posterior draw and document, for ``az.loo``.

        Exact conjugate draws, or those of ``posterior=`` (the tree ``fit_pymc`` returns,
        for NUTS draws). See :func:`bayesnb.loo.label_log_likelihood`.
        """
        from bayesnb.loo import label_log_likelihood

        return label_log_likelihood(
            self, X, y, draws=draws, random_seed=random_seed, posterior=posterior
        )

    def log_evidence(self) -> float:
        """Closed-form log marginal likelihood log p(X, y | prior), labels included."""
        from bayesnb.evidence import log_evidence

        return log_evidence(self)

    def sample(self, n: int, random_seed=None):
        """Draw ``n`` synthetic documents ``(X, y)`` from the fitted generative model."""
        from bayesnb.generate import sample

        return sample(self, n, random_seed=random_seed)

    def save(self, path) -> None:
        """Save the fitted model as one netCDF DataTree file (atomic write, no pickle)."""
        from bayesnb.io import save

        save(self, path)

    def to_pymc(self, X, y, likelihood: str = "sufficient"):
        """The same generative model declared in PyMC (``likelihood="data"|"sufficient"``)."""
        from bayesnb.pymc_models import declare

        return declare(self, X, y, likelihood=likelihood)

    def fit_pymc(
        self,
        X,
        y,
        draws: int = 1000,
        tune: int = 1000,
        chains: int = 4,
        random_seed=None,
        **sample_kwargs,
    ):
        """Sample the PyMC declaration with NUTS; returns the bayesnb DataTree layout.

        The same priors as the closed form, so the exact posterior (:meth:`sample_posterior`)
        is the yardstick. :func:`bayesnb.inference.fit_pymc` documents every option.

        Parameters
        ----------
        X, y
            The training documents and labels (the estimator is fitted on them if unfitted).
        draws, tune, chains : int
            Draws kept per chain, tuning steps per chain, chains.
        random_seed : int, numpy Generator or None
            The same seed gives the same draws on one machine.
        **sample_kwargs
            ``likelihood="sufficient"`` (default; its cost does not grow with the documents)
            or ``"data"`` (one term per document); ``log_likelihood=True`` (per-document label
            log-likelihoods for ``az.loo``, with either likelihood); ``alpha_prior`` (naive
            Bayes: learn α with ``α ~ Gamma(alpha, beta)``, shape and rate, ``{}`` is
            Gamma(2, 1); ``per_class=True`` gives one α per class; new hyperprior values
            re-use the compiled model); ``auxiliary=True`` (also report the sampler's
            log-Gamma variates); ``sample_weight``, ``nuts_sampler``, ``cores``,
            ``progressbar``; any other keyword goes to the sampler.

        Returns
        -------
        xarray.DataTree
            ``posterior`` (``feature_prob``, ``class_prior``, ``mean``, ``cov``, ... as the
            exact draws name them), ``sample_stats``, ``observed_data``, ``constant_data``.
        """
        from bayesnb.inference import fit_pymc

        return fit_pymc(self, X, y, draws, tune, chains, random_seed, **sample_kwargs)
