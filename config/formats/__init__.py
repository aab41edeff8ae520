"""The back office's date and time formats, one per language (settings.FORMAT_MODULE_PATH): every date of a
page, Django's and ours, reads the same way; input formats stay Django's."""
