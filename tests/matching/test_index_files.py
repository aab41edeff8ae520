"""Stored indexes (knowledge/index_files.py): a process reads the snapshot and matcher another built for the
same knowledge version and answers exactly as a built one; an edit makes a new version and the old one goes;
a file not signed with the deployment's key is never unpickled; processes building the same index at once
build it once; a provisional lexical index read back still gives way to the embeddings."""

import pickle
import threading

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from knowledge import index_files, matching, snapshot
from knowledge.matching import stored
from knowledge.models import Formulation, KnowledgeItem

QUESTIONS = [
    "J'ai perdu ma carte",
    "comment faire un virement",
    "Quels sont vos horaires ?",
    "je veux ouvrir un compte",
    "mot de passe oublié",
    "bonjour",
]


@pytest.fixture
def stored_indexes(settings, tmp_path):
    settings.MATCHING_INDEX_DIR = str(tmp_path / "indexes")
    snapshot._cache.clear()
    yield tmp_path / "indexes"
    snapshot._cache.clear()


def answers(snap: snapshot.Snapshot) -> list:
    """What the French matcher says of each question: outcome, items and scores."""
    allowed = snap.allowed_items("fr", snap.default_space_id, False)
    found = []
    for question in QUESTIONS:
        result = snap.matcher("fr").match(question, allowed=allowed)
        found.append((result.outcome, [(c.item_id, c.score, c.formulation_text) for c in result.ranked]))
    return found


def built_in_a_fresh_process(bot) -> snapshot.Snapshot:
    """What a process that never saw the bot finds: nothing cached in memory."""
    snapshot._cache.clear()
    return snapshot.snapshot_for(bot)


def folders(root, bot):
    return sorted(p.name for p in (root / str(bot.uuid)).iterdir() if not p.name.startswith("."))


@pytest.mark.django_db
def test_a_fresh_process_reads_what_another_built_and_answers_the_same(demo_bot, stored_indexes):
    first = built_in_a_fresh_process(demo_bot)
    built = answers(first)
    assert not isinstance(first.matcher("fr").entries, matching.matcher.EntryTable)  # built here
    version = folders(stored_indexes, demo_bot)
    assert len(version) == 1
    stored_names = {p.name for p in (stored_indexes / str(demo_bot.uuid) / version[0]).iterdir()}
    assert {"snapshot", f"fr-{first.matcher('fr').config.mode}"} <= stored_names

    snapshot._cache.clear()
    with CaptureQueriesContext(connection) as queries:
        second = snapshot.snapshot_for(demo_bot)
        matcher = second.matcher("fr")
    # Only the knowledge version is asked of the database: the knowledge and its index come from the files.
    assert len(queries) == 1, [q["sql"] for q in queries]
    assert isinstance(matcher.entries, matching.matcher.EntryTable)
    assert matcher.ready.is_set()
    assert second.items == first.items and second.formulations == first.formulations
    assert answers(second) == built
    assert any(outcome == "direct" for outcome, _ in built)
    # Its large arrays are memory-mapped read-only (shared by the machine's processes; no talk writes them).
    mapped = [
        a for a in (matcher.vectors, matcher.lexical.postings.ids) if isinstance(getattr(a, "base", None), np.memmap)
    ]
    assert mapped or max(a.nbytes for a in (matcher.vectors, matcher.lexical.postings.ids) if a is not None) < (
        stored.MAPPED_MIN_BYTES
    )
    assert all(not a.flags.writeable for a in mapped)


@pytest.mark.django_db
def test_an_edit_makes_a_new_version_and_the_old_one_goes(demo_bot, stored_indexes, monkeypatch):
    monkeypatch.setattr(index_files, "KEEP_SECONDS", 0.0)
    before = answers(built_in_a_fresh_process(demo_bot))
    old = folders(stored_indexes, demo_bot)
    item = KnowledgeItem.objects.filter(bot=demo_bot, formulations__text="J'ai perdu ma carte").first()
    Formulation.objects.create(item=item, language="fr", text="Un voleur a pris mon portefeuille")
    demo_bot.refresh_from_db()
    after = built_in_a_fresh_process(demo_bot)
    result = after.matcher("fr").match("un voleur a pris mon portefeuille")
    assert result.candidates and result.candidates[0].item_id == item.pk
    new = folders(stored_indexes, demo_bot)
    assert new != old and len(new) == 1  # the older version is removed once the new one is stored
    # The other questions keep their answers (their scores move a little: the classifier learnt one more row).
    decided = [(outcome, ranked[0][0] if ranked else None) for outcome, ranked in before]
    again = answers(built_in_a_fresh_process(demo_bot))
    assert [(outcome, ranked[0][0] if ranked else None) for outcome, ranked in again][1:] == decided[1:]


class Planted:
    """What an attacker's pickle would run when unpickled: it must never be."""

    ran = False

    def __reduce__(self):
        return (Planted.mark, ())

    @staticmethod
    def mark():
        Planted.ran = True
        return "planted"


@pytest.mark.django_db
def test_a_file_not_signed_with_the_deployments_key_is_never_unpickled(demo_bot, stored_indexes):
    expected = answers(built_in_a_fresh_process(demo_bot))
    folder = stored_indexes / str(demo_bot.uuid) / folders(stored_indexes, demo_bot)[0] / "snapshot"
    graph = folder / "graph"
    signature = graph.read_bytes()[: stored.DIGEST]
    graph.write_bytes(signature + pickle.dumps(Planted()))  # the old signature, another content
    again = built_in_a_fresh_process(demo_bot)
    assert not Planted.ran
    assert again.items  # read from the database instead, and stored again
    assert answers(again) == expected
    assert stored.load(folder, index_files._key()).bot_id == demo_bot.pk

    other_key = stored_indexes / "elsewhere"
    stored.dump(Planted(), other_key, b"another deployment's key")
    with pytest.raises(stored.Unreadable):
        stored.load(other_key, index_files._key())
    assert not Planted.ran


@pytest.mark.django_db
def test_another_code_never_reads_an_index_this_one_stored(demo_bot, stored_indexes, monkeypatch):
    built_in_a_fresh_process(demo_bot).matcher("fr")
    monkeypatch.setattr(index_files, "code_version", lambda: "another-code")
    assert index_files.read(str(demo_bot.uuid), demo_bot.knowledge_version, "snapshot") is None


@pytest.mark.django_db(transaction=True)
def test_processes_building_the_same_index_at_once_build_it_once(demo_bot, stored_indexes, settings, monkeypatch):
    settings.MATCHING_EMBEDDINGS = False  # the build reads no vectors: the threads need no database
    builds = []
    build = matching.Matcher.build.__func__

    def counted(cls, *args, **kwargs):
        builds.append(threading.current_thread().name)
        return build(cls, *args, **kwargs)

    monkeypatch.setattr(matching.Matcher, "build", classmethod(counted))
    # Two processes' snapshots of the same version (each its own lock file descriptor, as across processes).
    first, second = snapshot._load(demo_bot), snapshot._load(demo_bot)
    found = {}
    threads = [
        threading.Thread(target=lambda s=s, n=n: found.__setitem__(n, s.matcher("fr")))
        for n, s in (("one", first), ("two", second))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(builds) == 1
    assert {type(found["one"].entries), type(found["two"].entries)} == {list, matching.matcher.EntryTable}


@pytest.mark.django_db(transaction=True)
def test_a_provisional_lexical_index_read_back_gives_way_to_the_embeddings(demo_bot, stored_indexes, settings):
    """After a large import the lexical index answers while the vectors are computed: a process that reads it
    from the files knows it is provisional, and takes the embeddings' index once the vectors are stored."""
    if not matching.embeddings_available():
        pytest.skip("the sentence-embedding models are not installed")
    settings.MATCHING_EMBEDDINGS = True
    settings.VECTORS_SYNC_LIMIT = 5
    Formulation.objects.filter(item__bot=demo_bot).update(vector=None)
    demo_bot.refresh_from_db()
    first = built_in_a_fresh_process(demo_bot)
    assert first.matcher("fr").config.mode == "lexical" and first.provisional
    second = built_in_a_fresh_process(demo_bot)
    lexical = second.matcher("fr")
    assert isinstance(lexical.entries, matching.matcher.EntryTable) and second.provisional
    from knowledge.vectors import compute, jobs

    job = jobs.claim_next()
    assert job is not None and job.bot_id == demo_bot.pk
    compute.run(job)
    assert snapshot.upgrade_ready() == 1
    assert second.matcher("fr").config.mode == "embeddings" and not second.provisional
    third = built_in_a_fresh_process(demo_bot)
    assert third.matcher("fr").config.mode == "embeddings" and not third.provisional
    assert isinstance(third.matcher("fr").entries, matching.matcher.EntryTable)  # stored by the upgrade


@pytest.mark.django_db
def test_a_new_default_language_or_a_deleted_bot_leaves_nothing_stale(demo_bot, stored_indexes):
    built_in_a_fresh_process(demo_bot).matcher("fr")
    demo_bot.default_language = "en"  # a bot setting, not a knowledge write: the version stays
    demo_bot.save()
    assert built_in_a_fresh_process(demo_bot).default_language == "en"
    assert snapshot.snapshot_for(demo_bot) is snapshot.snapshot_for(demo_bot)
    demo_bot.default_language = "fr"
    demo_bot.save()
    assert snapshot.snapshot_for(demo_bot).default_language == "fr"  # the process's own copy follows too
    assert (stored_indexes / str(demo_bot.uuid)).exists()
    demo_bot.delete()
    assert not (stored_indexes / str(demo_bot.uuid)).exists()
