"""The gda family: :class:`GDA` and its :class:`~bayesnb.families.Family`."""
