"""The vector worker: one thread that claims pending vector jobs, computes them, and puts the embeddings'
matcher in place of the lexical one in this process's snapshots once a bot's vectors are stored (by itself
or by another process). It polls the jobs every VECTORS_POLL_SECONDS, and is woken at once by an import or a
snapshot of this process that needs vectors. It runs in each server process (BACKGROUND_WORK "in-process"),
or in `manage.py run_background` while the server processes' thread only upgrades their snapshots
("separate")."""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, close_old_connections, connection, connections

from bots.status import services

from . import compute, jobs

log = logging.getLogger(__name__)

_guard = threading.Lock()
_thread: threading.Thread | None = None
_wake = threading.Event()
_stop = threading.Event()
_rounds = threading.Condition()
_started_rounds = 0  # rounds begun
_claims = True  # whether this process's worker computes jobs, or only upgrades its snapshots
_serves = True  # whether this process answers talks (run_background does not: no index is built for them)
# Bots this process imported whose lexical index its thread builds when it claims no job (the claiming worker
# of another process builds its own): the first talk after an import finds it ready, as with claims.
_to_warm: set[int] = set()
_idle_since = 0  # the number of the last round that found nothing to do (wait_idle looks at it)


def start(claims: bool = True, serves: bool = True) -> None:
    """Start this process's worker (once; a server calls it when it starts serving). claims=False: it only
    upgrades this process's snapshots once another process (run_background) has stored their vectors;
    serves=False (run_background): it computes jobs without building the bots' matching indexes here."""
    global _thread, _claims, _serves
    with _guard:
        if _thread is not None and _thread.is_alive():
            return
        _stop.clear()
        _claims = claims
        _serves = serves
        _thread = threading.Thread(target=_loop, name="vector-worker", daemon=True)
        _thread.start()


def running() -> bool:
    return _thread is not None and _thread.is_alive()


def wake(bot_id: int | None = None) -> None:
    """Look for work now rather than at the next poll (a no-op when no worker runs in this process: the
    job waits in the database for a server's worker); `bot_id`: a bot just imported here."""
    if bot_id is not None:
        _to_warm.add(bot_id)
    _wake.set()


def stop(timeout: float | None = 30) -> None:
    """Stop the worker after its current chunk (a job it leaves is resumed by the next claim)."""
    global _thread
    with _guard:
        thread, _thread = _thread, None
    if thread is not None:
        _stop.set()
        _wake.set()
        thread.join(timeout)


def wait_idle(timeout: float | None = None) -> bool:
    """Wait until the worker has done a round with nothing left to do, started after this call: every job
    it could claim is computed and this process's snapshots are upgraded. False on timeout."""
    with _rounds:
        begun = _started_rounds
        _wake.set()
        return _rounds.wait_for(lambda: _idle_since > begun or not running(), timeout) and running()


def _loop() -> None:
    global _started_rounds, _idle_since
    try:
        while not _stop.is_set():
            _wake.clear()
            with _rounds:
                _started_rounds += 1
                number = _started_rounds
            if work_once(claims=_claims, serves=_serves):
                continue
            with _rounds:
                _idle_since = number
                _rounds.notify_all()
            _wake.wait(settings.VECTORS_POLL_SECONDS)
    finally:
        connection.close()
        with _rounds:
            _rounds.notify_all()


def work_once(claims: bool = True, serves: bool = True) -> bool:
    """One round: compute one claimable job (True), else upgrade the snapshots whose vectors are ready
    (claims=False: only the latter). A process that serves builds the job's bot's lexical index first,
    for its next talks."""
    from knowledge import index_files, snapshot

    close_old_connections()
    try:
        warm = list(_to_warm)
        _to_warm.difference_update(warm)
        if not claims:  # a claimed job warms its bot itself, in the process that computes it
            for bot_id in warm:
                try:
                    snapshot.warm(bot_id)
                except DatabaseError:
                    raise
                except Exception:  # the talks will build it
                    log.exception("Could not build the matching index of bot %s", bot_id)
        job = jobs.claim_next() if claims else None
        if job is not None:
            try:
                # With stored indexes (index_files.py) the background process builds them for every server
                # process of the machine: their first talks read them instead of building.
                if serves or index_files.enabled():
                    snapshot.warm(job.bot_id)
            except Exception:  # the talks will build it; the vectors are still wanted
                log.exception("Could not build the matching index of bot %s", job.bot_id)
            try:
                compute.run(job, stop=_stop.is_set)
            except Exception as error:  # the job is marked failed; the worker goes on with the others
                log.exception("Vectors of bot %s failed", job.bot_id)
                jobs.finish(job, error=f"{type(error).__name__}: {error}")
            snapshot.upgrade_ready()
            return True
        snapshot.upgrade_ready()
    except DatabaseError as error:
        connection.close()
        if services.is_connection_failure(error) or services.database_down():
            # The database is away: the watch logs the outage once and its end (no traceback per poll, and
            # none racing the recovery); try again at the next poll.
            services.database.failed(error)
            return False
        log.exception("Vector worker: database error")
    return False


def listen(stop: threading.Event) -> None:
    """PostgreSQL: wake the worker as soon as a job is scheduled (jobs.announce), in whichever process,
    rather than at its next poll; run_background runs this beside its worker. A connection that fails is
    made again after a pause, the poll finding the jobs meanwhile (so does a pooler that drops LISTEN,
    PgBouncer in transaction mode)."""
    import psycopg

    params = connections[DEFAULT_DB_ALIAS].get_connection_params()
    while not stop.is_set():
        try:
            with psycopg.connect(**params, autocommit=True) as listening:
                listening.execute(f"LISTEN {jobs.CHANNEL}")
                wake()  # a job scheduled before this LISTEN
                while not stop.is_set():
                    for _ in listening.notifies(timeout=1.0):
                        wake()
        except psycopg.Error as error:
            log.warning("Vector jobs: not listening for new jobs (%s); polling meanwhile", error)
            stop.wait(settings.VECTORS_POLL_SECONDS)


def with_vector_worker(application):
    """ASGI middleware: the first connection a server process gets starts its vector worker (after the
    server's fork, so each serving process has its own), which resumes the jobs a restart left. With
    BACKGROUND_WORK "separate" the jobs are run_background's: this process's thread only upgrades its
    snapshots."""

    async def app(scope, receive, send):
        if scope["type"] in ("http", "websocket") and not running() and settings.VECTORS_WORKER:
            start(claims=settings.BACKGROUND_WORK == "in-process")
        return await application(scope, receive, send)

    return app
