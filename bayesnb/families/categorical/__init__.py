"""The categorical family: :class:`CategoricalNB` and its :class:`~bayesnb.families.Family`."""
