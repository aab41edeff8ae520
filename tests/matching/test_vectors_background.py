"""Vectors computed in the background after an import (knowledge/vectors/): the bot answers with its lexical
matcher at once, the embeddings take over once the worker has stored the vectors, a job left by a stopped
process is resumed, and only one process computes a bot's vectors."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from knowledge import snapshot
from knowledge.models import Formulation, KnowledgeItem
from knowledge.vectors import compute, jobs, worker
from knowledge.vectors.models import VectorJob
from tests.accounts.personas import personas_for
from tests.conftest import Chatbox
from tests.knowledge.conftest import upload

pytestmark = pytest.mark.django_db(transaction=True)

ITEMS = {
    "Carte": (
        "Comment bloquer ma carte bancaire ?",
        ["Je veux faire opposition sur ma carte", "Ma carte a été volée", "J'ai perdu ma carte bleue"],
        "Faites opposition au 0800.",
    ),
    "Horaires": (
        "Quels sont vos horaires d'ouverture ?",
        ["À quelle heure ouvre l'agence ?", "L'agence est-elle ouverte le samedi ?", "Horaires du guichet"],
        "Du lundi au vendredi, de 9 h à 17 h.",
    ),
    "Mot de passe": (
        "Comment changer mon mot de passe ?",
        ["J'ai oublié mon mot de passe", "Réinitialiser mon code d'accès", "Je n'arrive plus à me connecter"],
        "Cliquez sur « mot de passe oublié ».",
    ),
}


def knowledge_base_file() -> bytes:
    items = []
    for number, (_label, (first, others, answer)) in enumerate(ITEMS.items(), start=1):
        formulations = "".join(f'      <formulation language="fr">{text}</formulation>\n' for text in [first, *others])
        items.append(
            f'    <knowledgeItem id="{number}" kind="question" status="published">\n{formulations}'
            f'      <answer language="fr" space="Defaut"><text>{answer}</text></answer>\n    </knowledgeItem>\n'
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<knowledgeBase formatVersion="1">\n'
        '  <languages default="fr">\n    <language code="fr"/>\n  </languages>\n'
        '  <spaces>\n    <space name="Defaut" default="true"/>\n  </spaces>\n'
        f"  <knowledgeItems>\n{''.join(items)}  </knowledgeItems>\n</knowledgeBase>\n"
    ).encode()


FORMULATIONS = sum(1 + len(others) for _, others, _ in ITEMS.values())


@pytest.fixture
def background(settings):
    """Embeddings on, and a bot of more than a few formulations is too large to compute in a talk."""
    settings.MATCHING_EMBEDDINGS = True
    settings.VECTORS_SYNC_LIMIT = 5
    worker.stop()  # a worker another test left running would compute this test's vectors
    snapshot._cache.clear()
    yield
    worker.stop()
    snapshot._cache.clear()


@pytest.fixture
def people(demo_bot):
    """Alice (administrator of the demo bot's account), Bob (its editor), Charlie (outsider)."""
    return personas_for(demo_bot)


def imported(client, demo_bot, people) -> dict:
    response = upload(
        client, f"/servlet/api/bot/knowledgebase/import/{demo_bot.uuid}", knowledge_base_file(), people.bob.token
    )
    assert response.status_code == 200, response.content
    return response.json()


def kb_status(client, bot, token) -> dict:
    response = client.get(f"/servlet/api/bot/knowledgebase/status/{bot.uuid}", HTTP_AUTHORIZATION=token)
    assert response.status_code == 200, response.content
    return response.json()


def test_an_import_is_answered_lexically_at_once_then_by_the_embeddings(client, demo_bot, people, background):
    report = imported(client, demo_bot, people)
    # The import's answer says the vectors are being computed.
    assert report["vectors"]["state"] == "pending"
    assert report["vectors"]["total"] == FORMULATIONS
    assert kb_status(client, demo_bot, people.bob.token)["matching"] == "lexical"

    # No worker runs in this process yet: the first talk is answered by the lexical matcher, computing nothing.
    chat = Chatbox(client, str(demo_bot.uuid))
    with CaptureQueriesContext(connection) as queries:
        values = chat.talk("je veux faire opposition sur ma carte")
    assert values["text"] == "Faites opposition au 0800."
    assert not [q for q in queries if q["sql"].startswith("UPDATE") and "formulation" in q["sql"]]
    demo_bot.refresh_from_db()
    lexical = snapshot.snapshot_for(demo_bot).matcher("fr")
    assert not lexical.config.use_embeddings and lexical.vectors is None
    assert Formulation.objects.filter(item__bot=demo_bot, vector__isnull=False).count() == 0

    # The worker computes and stores every vector, then puts the embeddings' matcher in place.
    worker.start()
    assert worker.wait_idle(timeout=300)
    status = kb_status(client, demo_bot, people.bob.token)
    assert status["vectors"] == {"state": "done", "done": FORMULATIONS, "total": FORMULATIONS}
    assert status["matching"] == "embeddings"
    assert Formulation.objects.filter(item__bot=demo_bot, vector__isnull=True).count() == 0
    upgraded = snapshot.snapshot_for(demo_bot).matcher("fr")
    assert upgraded is not lexical
    assert upgraded.config.use_embeddings and upgraded.vectors.shape[0] == FORMULATIONS
    assert upgraded.computed_vectors == 0  # built from the stored vectors

    # The next talk is the embeddings' (the index is ready: nothing is built or computed in the talk).
    with CaptureQueriesContext(connection) as queries:
        values = chat.talk("on m'a volé ma carte")
    assert values["text"] == "Faites opposition au 0800."
    assert not [q for q in queries if "formulation" in q["sql"]]
    assert snapshot.snapshot_for(demo_bot).matcher("fr") is upgraded


def test_a_restart_resumes_the_job_without_recomputing_stored_vectors(client, demo_bot, people, background):
    imported(client, demo_bot, people)
    job = VectorJob.objects.get(bot=demo_bot)
    # A process claimed the job, stored the first vectors, and stopped (its heartbeat is old).
    first = list(compute.formulations(demo_bot.pk).values_list("id", "language", "text", "vector")[:4])
    assert compute.store_missing(first) == 4
    stale = timezone.now() - timedelta(hours=1)
    VectorJob.objects.filter(pk=job.pk).update(state="running", claimed_by="gone:1", heartbeat=stale, done=4)

    # The restarted server's worker (here: this process's) picks the job up from the database.
    worker.start()
    assert worker.wait_idle(timeout=300)
    job.refresh_from_db()
    assert (job.state, job.claimed_by, job.done, job.total) == ("done", jobs.me(), FORMULATIONS, FORMULATIONS)
    assert job.computed == FORMULATIONS - 4  # the vectors stored before the restart were kept
    assert Formulation.objects.filter(item__bot=demo_bot, vector__isnull=True).count() == 0


def test_only_one_process_computes_a_bots_vectors(demo_bot, background):
    jobs.schedule(demo_bot.pk)
    claimed = jobs.claim_next()
    assert claimed is not None and claimed.claimed_by == jobs.me()
    # A second claim (another worker) finds nothing free while the heartbeat is fresh.
    assert jobs.claim_next() is None
    # Another process's claim, fresh: not taken over.
    VectorJob.objects.filter(pk=claimed.pk).update(claimed_by="other:2")
    assert jobs.claim_next() is None
    assert not jobs.beat(claimed, done=1)  # the claim is no longer ours: our worker would stop
    # A new import reschedules: the old claim's generation is over.
    rescheduled = jobs.schedule(demo_bot.pk)
    assert rescheduled.generation == claimed.generation + 1 and rescheduled.state == "pending"
    assert jobs.claim_next().generation == rescheduled.generation


def test_a_talk_on_a_large_bot_without_vectors_schedules_its_job(client, demo_bot, people, background):
    """Many formulations edited outside an import (here: vectors dropped): the talk stays lexical and asks for a job."""
    imported(client, demo_bot, people)
    VectorJob.objects.filter(bot=demo_bot).delete()
    chat = Chatbox(client, str(demo_bot.uuid))
    assert chat.talk("horaires du guichet")["text"] == "Du lundi au vendredi, de 9 h à 17 h."
    assert VectorJob.objects.get(bot=demo_bot).state == "pending"
    assert KnowledgeItem.objects.filter(bot=demo_bot).count() == len(ITEMS)


def test_the_server_status_reports_vectors_in_progress(client, demo_bot, people, background):
    imported(client, demo_bot, people)
    response = client.get("/servlet/api/serverstatus?details=true", HTTP_AUTHORIZATION=people.alice.token)
    assert response.status_code == 200, response.content
    customs = response.json()["applications"]["dialog"]["customs"]
    assert {"botUUID": str(demo_bot.uuid), "state": "pending", "done": 0, "total": FORMULATIONS} in customs["vectors"]
    assert customs["matchingMemory"]["budgetMB"] > 0


def test_the_status_call_checks_who_asks(client, demo_bot, people, background):
    url = f"/servlet/api/bot/knowledgebase/status/{demo_bot.uuid}"
    assert client.get(url).status_code == 401
    assert client.get(url, HTTP_AUTHORIZATION=people.charlie.token).status_code == 403
    body = kb_status(client, demo_bot, people.bob.token)
    assert body["botUUID"] == str(demo_bot.uuid) and body["vectors"]["state"] in {"none", "done"}


def test_a_vector_is_stored_only_beside_the_text_it_was_computed_from(client, demo_bot, people, background):
    imported(client, demo_bot, people)
    formulation = Formulation.objects.filter(item__bot=demo_bot).order_by("id").first()
    # The job read the formulation, then someone edited it before the job's chunk was stored.
    chunk = [(formulation.pk, formulation.language, formulation.text, None)]
    Formulation.objects.filter(pk=formulation.pk).update(text="Où se trouve l'agence la plus proche ?")
    assert compute.store_missing(chunk) == 0
    formulation.refresh_from_db()
    assert formulation.vector is None
    # Its own next computation stores the vector of its new text.
    total, lacking = compute.missing(demo_bot.pk)
    assert total == FORMULATIONS and formulation.pk in [fid for fid, *_ in lacking]
    assert compute.store_missing(lacking) == len(lacking)
    assert compute.missing(demo_bot.pk) == (FORMULATIONS, [])


def test_the_job_computes_what_is_missing_shortest_texts_first(client, demo_bot, people, background, monkeypatch):
    imported(client, demo_bot, people)
    encoded: list[list[str]] = []
    real = compute.matching.embed_formulations
    monkeypatch.setattr(
        compute.matching, "embed_formulations", lambda texts, lang: encoded.append(texts) or real(texts, lang)
    )
    monkeypatch.setattr(compute, "CHUNK", 4)
    first = list(compute.formulations(demo_bot.pk).values_list("id", "language", "text", "vector")[:3])
    assert compute.store_missing(first) == 3
    encoded.clear()
    worker.start()
    assert worker.wait_idle(timeout=300)
    job = VectorJob.objects.get(bot=demo_bot)
    assert (job.state, job.done, job.total, job.computed) == ("done", FORMULATIONS, FORMULATIONS, FORMULATIONS - 3)
    # Chunks of like lengths, shortest first (the models pad a batch to its longest text).
    lengths = [len(text) for texts in encoded for text in texts]
    assert sum(len(texts) for texts in encoded) == FORMULATIONS - 3 and len(encoded) == 3
    assert max(len(t) for t in encoded[0]) <= min(len(t) for t in encoded[-1]), lengths
