"""One lock per account over its live-chat queue and its operators' slots, held to the end of the
transaction that takes it, so that a handover's room check and its insert, a place given and the queue
moving happen one after the other across threads and server processes.

Every change of an account's queue or slots takes it first, before any row lock (one lock per account,
always first: two such changes never wait on each other's rows the other way round)."""

import zlib

from django.db import transaction

# PostgreSQL's advisory locks with two int4 keys: the first names what is locked, so that another lock
# of the project picks its own name and never meets these (the single bigint form is another key space).
NAMESPACE = zlib.crc32(b"livechat.account") & 0x7FFFFFFF


def hold_account(account_id: int) -> None:
    """Wait for, then hold the account's live-chat lock until the current transaction ends.

    PostgreSQL: a transaction-scoped advisory lock (taking it again in the same transaction is free of
    waiting). SQLite: nothing to do, its transactions write one at a time already (config/sqlite_pool)."""
    connection = transaction.get_connection()
    if not connection.in_atomic_block:
        # Outside a transaction the lock would be released at once: a caller's mistake, never silent.
        raise RuntimeError("the account's live-chat lock must be taken inside a transaction")
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        # An id beyond int4 folds onto a smaller one's key: two accounts would then take turns, never race.
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [NAMESPACE, account_id % 2**31])
