"""Every servlet operation fuzzed without a valid token (at most what schemathesis generates for the
Authorization header): public calls answer as documented, protected ones 401, never a 500."""

from .conftest import fuzz_every_operation


def test_every_operation_answers_as_documented(api_schema, target):
    fuzz_every_operation(api_schema, target, with_token=False)
