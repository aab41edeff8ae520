"""Django's SQLite backend with its connections kept for the next request (see base.py)."""
