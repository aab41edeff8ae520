"""Slot filling: an item that needs typed values (slots) asks for each missing one, then answers with
them (product-behaviour.md §1.6, §2.4)."""
