"""The printable transcript of a dialog (/servlet/history?format=html) and chat/print, chat/reading."""
