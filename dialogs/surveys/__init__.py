"""Surveys: a bot's questionnaires (for visitors or for operators), their configuration as the
chatbox reads it, and the answers visitors send (client-contract.md §2.2 (19)-(21))."""
