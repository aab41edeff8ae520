"""Django's PostgreSQL backend, failing at once while the database is known to be down.

A request that passed the outage check just before the outage was found would otherwise wait the
pool's whole timeout (10 s) for a connection the pool cannot make, and answer its 503 late; with
this, it gets its 503 at once like every other request (bots/status/services.py watches the
database and lets connections through again when it answers)."""

import psycopg
from django.db.backends.postgresql import base

from bots.status import services


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        # Only with the pool: the watch probes with a connection of its own, outside the pool.
        if self.settings_dict["OPTIONS"].get("pool"):
            reason = services.database_down()
            if reason:
                raise psycopg.OperationalError(reason)
        return super().get_new_connection(conn_params)
