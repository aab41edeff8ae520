"""The Log Explicit servlet group: a bot's client error reports and server-side chat errors."""
