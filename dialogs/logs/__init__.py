"""The Log Explicit servlet group's reading side: a bot's client error reports (dialogs) and server-side chat errors
(bots/logs records them) listed together; it lives here because it reads both apps."""
