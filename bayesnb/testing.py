"""The contract every family must satisfy: :func:`check_family`, like scikit-learn's
``check_estimator`` but for the relations between a conjugate model's public methods.

Each relation is a consequence of conjugacy that holds whatever the formulas inside a family
are, so a family that passes them has its estimates, draws, evidence, predictive, files,
statistics and PyMC declaration consistent with each other:

- ``point_estimate("mean")`` is the mean of ``sample_posterior`` (within Monte Carlo error);
- ``log_evidence()`` is the chain rule of one-document posterior predictives,
  log p(D) = Σ_i log p(x_i, y_i | D_<i), wherever the predictive is closed form;
- ``predict_joint_log_proba`` under ``"bayes"`` is the Monte Carlo average of p(x, c | θ)
  over exact posterior draws (up to a term common to all classes of a document);
- save → load reproduces every estimate's predictions bit for bit;
- ``partial_fit`` over any split equals ``fit`` (statistics are sums);
- the PyMC ``"sufficient"`` and ``"data"`` declarations have log densities that differ by a
  constant (the two forms have the same posterior).

Priors or structure chosen from the training data (GDA's data-scaled prior, CategoricalNB's
number of categories, a learned ``alpha="evidence"``) are pinned at their full-data values
before the relations that compare models fitted on different subsets.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable

import numpy as np
from scipy.special import logsumexp
from sklearn.base import clone

from bayesnb.families import family_of
from bayesnb.validation import take

__all__ = ["PORTABLE_RTOL", "RELATIONS", "assert_portable_equal", "check_family"]

_ESTIMATES = ("mle", "map", "mean", "bayes")
_EPS = 1e-12

#: How closely bayesnb's floats agree across machines (docs/design.md, "Numbers across
#: machines"): another CPU sums in another order (numpy's SIMD dispatch, BLAS kernels), which
#: moves results by a few ulp of the largest magnitude they were computed from. Relative to
#: the largest finite magnitude of the array compared, so a small value computed as a
#: difference of large ones (a log probability near 0) gets the absolute error it really has.
PORTABLE_RTOL = 1e-12


def assert_portable_equal(actual, desired, err_msg: str = "") -> None:
    """Assert ``actual`` equals ``desired`` as bayesnb promises across machines.

    Shapes and dtypes must be equal. Arrays that are not floating point (labels, integers,
    booleans, argmax predictions) must be equal exactly. Floating-point arrays must have NaN,
    +inf, -inf and exact zeros at the same places, and every other value within
    :data:`PORTABLE_RTOL` of the array's largest finite magnitude:
    ``|a - d| <= PORTABLE_RTOL * max|d|``.

    Parameters
    ----------
    actual, desired : array-like
    err_msg : str
        Prefix of the failure message.

    Raises
    ------
    AssertionError
        Naming the first differing position, both values and the tolerance.
    """
    a, d = np.asarray(actual), np.asarray(desired)
    head = f"{err_msg}: " if err_msg else ""
    if a.shape != d.shape or a.dtype != d.dtype:
        raise AssertionError(f"{head}shape/dtype {a.shape} {a.dtype} != {d.shape} {d.dtype}")
    if d.dtype.kind != "f":
        np.testing.assert_array_equal(a, d, err_msg=err_msg, strict=True)
        return
    special = {
        "NaN": (np.isnan(a), np.isnan(d)),
        "+inf": (np.isposinf(a), np.isposinf(d)),
        "-inf": (np.isneginf(a), np.isneginf(d)),
        "zero": (a == 0, d == 0),
    }
    for what, (got, want) in special.items():
        if not np.array_equal(got, want):
            at = np.argwhere(got != want)[0]
            raise AssertionError(
                f"{head}{what} at different places: first at {tuple(at)}, "
                f"{a[tuple(at)]!r} against {d[tuple(at)]!r}"
            )
    finite = np.isfinite(d) & (d != 0)
    if not finite.any():
        return
    scale = float(np.max(np.abs(d[finite])))
    gap = np.zeros(d.shape)
    gap[finite] = np.abs(a[finite] - d[finite])
    worst = np.unravel_index(np.argmax(gap), d.shape)
    if gap[worst] > PORTABLE_RTOL * scale:
        raise AssertionError(
            f"{head}{a[worst]!r} against {d[worst]!r} at {tuple(worst)}: a gap of "
            f"{gap[worst]:.3g}, beyond {PORTABLE_RTOL:g} × {scale:.6g} (the array's largest "
            "magnitude)"
        )


# -- helpers ----------------------------------------------------------------------------------
def _pinned(estimator, fitted) -> dict:
    """Parameters that fix what the full-data fit chose: learned values, data-set priors."""
    params = dict(family_of(fitted).fixed_prior_params(fitted))
    for name, value in estimator.get_params(deep=False).items():
        if isinstance(value, str) and value in ("evidence", "loo"):
            params[name] = getattr(fitted, f"{name}_")
    return params


def _scores(est, X) -> dict[str, object]:
    """predict_joint_log_proba under every estimate, or the error type it raises."""
    out = {}
    own = est.estimate
    for estimate in _ESTIMATES:
        try:
            est.set_params(estimate=estimate)
            out[estimate] = est.predict_joint_log_proba(X)
        except (ValueError, TypeError) as err:
            out[estimate] = type(err)
        finally:
            est.set_params(estimate=own)
    return out


def _same_scores(before: dict, after: dict, same, raised: str, differs: str) -> None:
    """Refuse two :func:`_scores` that differ: an error type against another (``raised``,
    formatted with ``a`` and ``b``) or arrays that are not ``same`` (``differs``)."""
    for estimate in _ESTIMATES:
        a, b = before[estimate], after[estimate]
        if isinstance(a, type) or isinstance(b, type):
            if a is not b:
                raise AssertionError(f"estimate={estimate!r}: " + raised.format(a=a, b=b))
            continue
        if not same(a, b):
            raise AssertionError(
                f"estimate={estimate!r}: {differs} (max difference {np.nanmax(np.abs(a - b)):.3g})"
            )


# -- the relations ----------------------------------------------------------------------------
def check_posterior_mean(estimator, X, y, *, draws: int, random_seed: int) -> None:
    """point_estimate("mean") equals the mean of exact posterior draws within 5 MCSE."""
    est = clone(estimator).fit(X, y)
    point = est.point_estimate("mean")["posterior"]
    tree = est.sample_posterior(draws=draws, chains=1, random_seed=random_seed)
    for path in [node.path for node in point.subtree if node.has_data]:
        p_node, d_node = point[path], tree["posterior"][path]
        for name in p_node.data_vars:
            p = np.asarray(p_node[name].values[0, 0], dtype=np.float64)
            d = np.asarray(d_node[name].values[0], dtype=np.float64)
            mean, sd = d.mean(axis=0), d.std(axis=0)
            tol = 5.0 * sd / np.sqrt(draws) + 1e-10 * (1.0 + np.abs(mean))
            bad = ~(np.abs(p - mean) <= tol) & ~(np.isnan(p) & np.isnan(mean))
            if bad.any():
                i = tuple(np.argwhere(bad)[0])
                raise AssertionError(
                    f"{name}{list(i)}: point estimate {p[i]:.6g} but the mean of {draws} exact "
                    f"draws is {mean[i]:.6g} ± {sd[i] / np.sqrt(draws):.2g}"
                    f" ({int(bad.sum())} of {bad.size} cells off)"
                )


def check_chain_rule(estimator, X, y, **_) -> None:
    """log_evidence() equals Σ_i log p(x_i, y_i | D_<i) under the "bayes" predictive."""
    full = clone(estimator).fit(X, y)
    if not family_of(full).closed_form_predictive(full):
        return
    frozen = clone(estimator).set_params(**_pinned(estimator, full))
    evidence = clone(frozen).fit(X, y).log_evidence()
    y = np.asarray(y)
    classes = np.unique(y)
    seq = clone(frozen).set_params(estimate="bayes")
    # The first term is the prior predictive: the first document at weight 1e-12 leaves the
    # posterior at the prior (to 1e-12); the rest of its weight is added after scoring it.
    first, codes = take(X, [0]), np.searchsorted(classes, y)
    seq.partial_fit(first, y[:1], classes=classes, sample_weight=[_EPS])
    total = seq.predict_joint_log_proba(first)[0, codes[0]]
    seq.partial_fit(first, y[:1], sample_weight=[1.0 - _EPS])
    for i in range(1, X.shape[0]):
        row = take(X, [i])
        total += seq.predict_joint_log_proba(row)[0, codes[i]]
        seq.partial_fit(row, y[i : i + 1])
    if not abs(total - evidence) <= 1e-8 * max(1.0, abs(evidence)):
        raise AssertionError(
            f"log_evidence() = {evidence:.12g} but the chain rule of one-document posterior "
            f"predictives gives {total:.12g} (difference {total - evidence:.3g})"
        )


def check_predictive(estimator, X, y, *, draws: int, random_seed: int) -> None:
    """The "bayes" joint log-probability is the MC average of p(x, c | θ) over exact draws."""
    from bayesnb.draws import posterior_draws

    est = clone(estimator).fit(X, y)
    fam = family_of(est)
    if not fam.closed_form_predictive(est):
        return
    est.set_params(estimate="bayes")
    Xt = take(X, list(range(min(6, X.shape[0]))))
    exact = est.predict_joint_log_proba(Xt)
    values = posterior_draws(est, draws=draws, chains=1, random_seed=random_seed)
    Xc, M = fam.loo_view(est, est._check_input(Xt, reset=False))
    with np.errstate(divide="ignore"):
        log_pi = np.log(values["class_prior"][0])
    values = {k: v[0] for k, v in values.items()}
    joint = fam.loo_draws_jll(est, Xc, M, values) + log_pi[None]
    mc = logsumexp(joint, axis=1) - np.log(draws)
    w = np.exp(joint - joint.max(axis=1, keepdims=True))
    se = w.std(axis=1) / (np.sqrt(draws) * w.mean(axis=1))  # delta method for log of a mean
    # The draws' likelihood may leave out a term that is the same for every class (Poisson's
    # log Π x_j!): compare up to one constant per document, the mean offset over classes.
    # Absolute values are pinned by the chain rule, which scores the predictive alone.
    offset = (exact - mc).mean(axis=1, keepdims=True)
    bad = ~(np.abs(exact - mc - offset) <= 5.0 * (se + se.mean(axis=1, keepdims=True)) + 1e-9)
    if bad.any():
        i, c = np.argwhere(bad)[0]
        raise AssertionError(
            f"document {i}, class {c}: the 'bayes' predictive gives {exact[i, c]:.8g} but the "
            f"average over {draws} exact posterior draws gives {mc[i, c] + offset[i, 0]:.8g} ± "
            f"{se[i, c]:.2g} (after the per-document offset {offset[i, 0]:.6g})"
        )


def check_save_load(estimator, X, y, **_) -> None:
    """A saved and reloaded model predicts bit for bit like the original, every estimate."""
    from bayesnb.io import load

    est = clone(estimator).fit(X, y)
    fd, path = tempfile.mkstemp(suffix=".nc")
    os.close(fd)
    try:
        est.save(path)
        loaded = load(path)
    finally:
        os.unlink(path)
    _same_scores(
        _scores(est, X),
        _scores(loaded, X),
        lambda a, b: np.array_equal(a, b, equal_nan=True),
        "{a!r} before saving, {b!r} after",
        "the loaded model's predict_joint_log_proba differs",
    )


def check_partial_fit(estimator, X, y, *, random_seed: int, **_) -> None:
    """partial_fit over a random three-way split equals fit (predictions and evidence)."""
    full = clone(estimator).fit(X, y)
    frozen = clone(estimator).set_params(**_pinned(estimator, full))
    ref = clone(frozen).fit(X, y)
    n = X.shape[0]
    rng = np.random.default_rng(random_seed)
    cuts = np.sort(rng.choice(np.arange(1, n), size=2, replace=False))
    y = np.asarray(y)
    inc = clone(frozen)
    for rows in np.split(np.arange(n), cuts):
        inc.partial_fit(take(X, rows), y[rows], classes=np.unique(y))
    _same_scores(
        _scores(ref, X),
        _scores(inc, X),
        lambda a, b: np.allclose(a, b, rtol=1e-9, atol=1e-9, equal_nan=True),
        "{a!r} vs {b!r}",
        f"partial_fit over splits at {cuts.tolist()} predicts differently from fit",
    )
    ea, eb = ref.log_evidence(), inc.log_evidence()
    if not np.isclose(ea, eb, rtol=1e-9, atol=1e-9):
        raise AssertionError(f"log_evidence(): fit {ea!r}, partial_fit {eb!r}")


def check_pymc_forms(estimator, X, y, *, random_seed: int, **_) -> None:
    """The PyMC "sufficient" and "data" log densities differ by a constant."""
    est = clone(estimator).fit(X, y)
    suff = est.to_pymc(X, y, likelihood="sufficient")
    data = est.to_pymc(X, y, likelihood="data")
    names_s = sorted(v.name for v in suff.value_vars)
    names_d = sorted(v.name for v in data.value_vars)
    if names_s != names_d:
        raise AssertionError(f"free variables differ: sufficient {names_s}, data {names_d}")
    logp_s = suff.compile_logp(mode="FAST_COMPILE")
    logp_d = data.compile_logp(mode="FAST_COMPILE")
    rng = np.random.default_rng(random_seed)
    start = suff.initial_point(random_seed=random_seed)
    diffs = []
    for _ in range(3):
        point = {k: v + rng.normal(0.0, 0.3, size=np.shape(v)) for k, v in start.items()}
        diffs.append(float(logp_d(point)) - float(logp_s(point)))
    spread = max(diffs) - min(diffs)
    if not spread <= 1e-6 * max(1.0, max(abs(d) for d in diffs)):
        raise AssertionError(
            f"log p(data form) − log p(sufficient form) is not constant across points: {diffs}"
        )


#: name -> (relation, what it asserts); run in this order.
RELATIONS: dict[str, Callable] = {
    "posterior mean": check_posterior_mean,
    "chain rule": check_chain_rule,
    "predictive": check_predictive,
    "save/load": check_save_load,
    "partial_fit": check_partial_fit,
    "pymc forms": check_pymc_forms,
}


def check_family(
    estimator,
    *,
    n_samples: int = 40,
    draws: int = 4000,
    random_seed: int = 0,
    relations=None,
    pymc: bool = True,
) -> None:
    """Check the relations every conjugate family must satisfy (raise AssertionError if not).

    Parameters
    ----------
    estimator : unfitted estimator of a registered family
        Checked as configured (its parameters are kept; clones are fitted).
    n_samples : int, default 40
        Size of the data sets the suite makes: random data of the family's input domain
        (``Family.example_data``), then data drawn from the model fitted to it (``sample``).
    draws : int, default 4000
        Exact posterior draws behind the Monte Carlo relations (tolerance 5 MCSE).
    random_seed : int, default 0
    relations : list of str, optional
        A subset of :data:`RELATIONS` (default: all).
    pymc : bool, default True
        Include the PyMC relation (compiles two models: seconds).

    Raises
    ------
    AssertionError
        Naming every relation that failed, the data set it failed on and by how much.
    """
    family = family_of(estimator, "bayesnb.testing.check_family")
    names = list(RELATIONS) if relations is None else list(relations)
    unknown = [n for n in names if n not in RELATIONS]
    if unknown:
        raise ValueError(f"unknown relations {unknown}; known: {list(RELATIONS)}")
    if not pymc and "pymc forms" in names:
        names.remove("pymc forms")
    rng = np.random.default_rng(random_seed)
    X, y = family.example_data(estimator, n_samples, rng)
    drawn = clone(estimator).fit(X, y).sample(n_samples, random_seed=random_seed + 1)
    data_sets = [("random data", X, y), ("data drawn from the fitted model", *drawn)]
    failures = []
    for label, Xd, yd in data_sets:
        if len(np.unique(yd)) < 2:
            continue  # a draw with one class only cannot be fitted by a classifier
        for name in names:
            if name == "pymc forms" and label != "random data":
                continue  # one compiled pair is enough: the declaration does not depend on X
            try:
                RELATIONS[name](estimator, Xd, yd, draws=draws, random_seed=random_seed)
            except Exception as err:  # every failure is reported, whatever raised it
                failures.append(f"{name!r} on {label}: {type(err).__name__}: {err}")
    if failures:
        raise AssertionError(
            f"check_family({type(estimator).__name__}): {len(failures)} relation(s) failed:\n  "
            + "\n  ".join(failures)
        )
