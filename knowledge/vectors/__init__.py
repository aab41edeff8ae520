"""Formulation vectors computed in the background after an import (a job per bot, kept in the database so
that a restart resumes it), and the per-process memory budget of the bots' matching indexes."""
