"""English dates and times."""
