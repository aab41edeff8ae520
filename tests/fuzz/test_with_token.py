"""Every servlet operation fuzzed with a valid token of an administrator of the demo bot's account:
the protected calls run their whole code and answer as documented, never a 500."""

from .conftest import fuzz_every_operation


def test_every_operation_answers_as_documented(api_schema, target):
    fuzz_every_operation(api_schema, target, with_token=True)
