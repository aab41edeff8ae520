"""The dialogs reading page: the list of dialogs with their qualification, and each transcript in bubbles
(product-behaviour.md §4.1)."""
