"""GDPR requests in the back office: send a visitor their data, erase it, or ignore the request; each
action is logged (product-behaviour.md §4.5)."""
