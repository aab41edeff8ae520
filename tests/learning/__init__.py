"""Learning from misunderstood questions (dialogs/learning/)."""
