"""French dates and times."""
