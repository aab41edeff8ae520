"""Fixtures of the Log Explicit tests: the personas (Alice administrator, Bob editor, Charlie outsider)
and a way to read a bot's log as an API client does."""

import pytest

from tests.accounts.personas import personas  # noqa: F401


class LogReader:
    """GET logs/{botUUID} with a persona's token."""

    def __init__(self, client, bot_uuid: str, prefix: str = "/servlet/api"):
        self.client = client
        self.url = f"{prefix}/logs/{bot_uuid}"

    def get(self, persona=None, **fields):
        headers = persona.auth if persona is not None else {}
        return self.client.get(self.url, fields, **headers)

    def page(self, persona, **fields) -> dict:
        response = self.get(persona, **fields)
        assert response.status_code == 200, response.content
        return response.json()


@pytest.fixture(autouse=True)
def fresh_coalescer():
    """Each test starts with a process that has stored no error yet (the demo bot's UUID is the same in
    every test, and a row stored by the test before was rolled back)."""
    from bots.logs import recording

    recording._coalescer.forget()
    yield
    recording._coalescer.forget()


@pytest.fixture
def log_reader(client, demo_bot):
    return LogReader(client, str(demo_bot.uuid))
