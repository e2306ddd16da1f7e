"""The poisson family: :class:`PoissonNB` and its :class:`~bayesnb.families.Family`."""
