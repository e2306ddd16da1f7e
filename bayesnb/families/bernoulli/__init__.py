"""The bernoulli family: :class:`BernoulliNB` and its :class:`~bayesnb.families.Family`."""
