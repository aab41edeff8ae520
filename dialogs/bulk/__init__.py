"""The Dialogs servlet group: bulk export of a bot's conversations, one dialog, retention."""
