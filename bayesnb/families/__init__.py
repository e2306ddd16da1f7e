"""The conjugate families and their registry: generic code asks here, never tests a type.

Each family lives in one folder, ``bayesnb/families/<name>/``: its scikit-learn estimator
(``estimator.py``, fitted state and the fit-time hooks) and its :class:`Family` object
(``family.py``), which owns every formula specific to the family that the generic modules
(draws, evidence, loo, generate, io, pymc_models, compare, informative, report, cli, ...)
need. A generic module calls ``family_of(est).method(est, ...)``.

The built-in families are registered lazily, one line each in :data:`BUILTIN` (importing a
family pulls in its kernels; plain ``import bayesnb`` stays cheap). A family defined
elsewhere registers itself with :func:`register`.
"""

from __future__ import annotations

import importlib

from bayesnb.families._protocol import Family

__all__ = [
    "BUILTIN",
    "Family",
    "family_of",
    "get",
    "has_family",
    "names",
    "register",
    "unregister",
]

#: name -> module that defines and registers the family (one line per family).
BUILTIN: dict[str, str] = {
    "bernoulli": "bayesnb.families.bernoulli.family",
    "multinomial": "bayesnb.families.multinomial.family",
    "categorical": "bayesnb.families.categorical.family",
    "poisson": "bayesnb.families.poisson.family",
    "dcm": "bayesnb.families.dcm.family",
    "gda": "bayesnb.families.gda.family",
    "columnwise": "bayesnb.families.columnwise.family",
}

_REGISTRY: dict[str, Family] = {}


def register(family: Family) -> Family:
    """Register ``family`` under ``family.name`` (its estimator sets ``_family`` to it).

    Returns the family, so a module can write ``FAMILY = register(MyFamily())``.
    """
    if not isinstance(family, Family):
        raise TypeError(f"register() takes a Family instance, got {type(family).__name__}")
    name = family.name
    if not isinstance(name, str) or not name:
        raise ValueError(f"a family needs a non-empty string name, got {name!r}")
    known = _REGISTRY.get(name)
    if known is not None and type(known) is not type(family):
        raise ValueError(f"a different family is registered as {name!r} already")
    _REGISTRY[name] = family
    return family


def unregister(name: str) -> None:
    """Remove a family registered with :func:`register` (the built-in ones stay)."""
    if name in BUILTIN:
        raise ValueError(f"{name!r} is a built-in family and cannot be unregistered")
    _REGISTRY.pop(name, None)


def get(name: str) -> Family:
    """The family registered as ``name`` (importing a built-in one on first use)."""
    if name not in _REGISTRY and name in BUILTIN:
        importlib.import_module(BUILTIN[name])
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"no family is registered as {name!r}; known: {names()}") from None


def names() -> list[str]:
    """Every family name: the built-in ones in their order, then the registered others."""
    return list(BUILTIN) + [n for n in _REGISTRY if n not in BUILTIN]


def has_family(est) -> bool:
    """Whether ``est`` is an estimator of a registered family (a bayesnb model)."""
    name = getattr(est, "_family", None)
    return isinstance(name, str) and (name in _REGISTRY or name in BUILTIN)


def family_of(est, where: str | None = None) -> Family:
    """The :class:`Family` of estimator ``est``; a TypeError for anything else.

    ``where`` names the caller in the error (e.g. ``"bayesnb.draws"``).
    """
    name = getattr(est, "_family", None)
    if not isinstance(name, str) or not (name in _REGISTRY or name in BUILTIN):
        where = f" by {where}" if where else ""
        raise TypeError(
            f"{type(est).__name__} is not supported{where}: it is not an estimator of a "
            f"registered bayesnb family ({', '.join(names())})"
        )
    return get(name)
