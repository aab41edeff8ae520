"""Where SAML reads its bot preferences (on/off, the IdP's metadata, the allowed origins): the preferences app,
above accounts, registers its reader at start-up (preferences/apps.py), so accounts never imports it."""

_source = None


def register(source) -> None:
    """`source` answers value(name, **lookup) -> str | None and flag(name, **lookup) -> bool, where lookup
    names the bot as a bot preference's filter does (bot=..., bot__uuid=...)."""
    global _source
    _source = source


def value(name: str, **lookup) -> str | None:
    return _source.value(name, **lookup)


def flag(name: str, **lookup) -> bool:
    return _source.flag(name, **lookup)
