"""The columnwise family: :class:`ColumnwiseNB` and its :class:`~bayesnb.families.Family`."""
