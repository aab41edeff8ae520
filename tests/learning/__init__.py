"""Learning from misunderstood questions (knowledge/learning/)."""
