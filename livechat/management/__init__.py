"""Live chat's management commands."""
