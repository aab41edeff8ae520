"""The Log Explicit servlet group: a bot's client error reports and server-side chat errors."""

# Who may read a bot's error log (API and back office): the roles that see errorsByBot in the server status.
READ_LOGS = "status.details"
