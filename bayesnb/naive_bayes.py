"""The discrete naive Bayes estimators (each lives in its family's folder under
:mod:`bayesnb.families`; this module keeps the old import path)."""

from bayesnb.families.bernoulli.estimator import BernoulliNB
from bayesnb.families.categorical.estimator import CategoricalNB
from bayesnb.families.multinomial.estimator import MultinomialNB

__all__ = ["BernoulliNB", "CategoricalNB", "MultinomialNB"]
