"""Lets the matcher's tests import `knowledge.matching` from the repo root, with or without pytest-django."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
