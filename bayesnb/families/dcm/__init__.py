"""The dcm family: :class:`DirichletCompoundNB` and its :class:`~bayesnb.families.Family`."""
