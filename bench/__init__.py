"""Benchmarks of the project (run as scripts: python bench/NAME.py)."""
