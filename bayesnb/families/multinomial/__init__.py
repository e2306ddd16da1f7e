"""The multinomial family: :class:`MultinomialNB` and its :class:`~bayesnb.families.Family`."""
