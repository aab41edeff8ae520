"""The matching models under the production layout's gunicorn (deploy/gunicorn.conf.py, two uvicorn
workers), real processes on a scratch database with the demo bot: the master loads the models its bots'
languages need once, before it forks, and the workers share those pages instead of loading their own;
MiniLM (English only) is not loaded for a French-only deployment; talks answer as under daphne, which
loads the models itself (`make run`).

What a process holds is read from /proc: onnxruntime's library mapped (MiniLM loaded), and the anonymous
pages a worker shares with its master (Shared_Dirty): the USE weights' 62 MB table among them only when
the master loaded them, as a worker that loads the models itself (PROD_SHARED_MODELS=off) shows."""

import base64
import json
import time
from pathlib import Path

import pytest

from tests.servers import BOT_UUID, Browser, Platform, Server, first_talk_body

# USE's embedding table alone (17 × 7530 rows of 512 bytes): what a worker shares with its master, at least,
# when the master loaded USE.
USE_TABLE_KB = 17 * 7530 * 512 // 1024
QUESTIONS = ["Bonjour", "Quels sont vos horaires ?", "où se trouve votre agence ?", "merci beaucoup"]


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    with Platform(
        tmp_path_factory.mktemp("shared-models"),
        processes=0,
        extra_env={"MATCHING_EMBEDDINGS": "on", "PROD_WORKERS": "2", "LOG_LEVEL": "INFO"},
    ) as platform:
        yield platform


def talk(server: Server, text: str) -> str:
    """The text of a first talk's answer (form-encoded, as the chatbox sends it)."""
    status, body = Browser(server, timeout=120).request(
        "POST",
        f"/servlet/api/chat/talk/{BOT_UUID}",
        first_talk_body(text, "shared0models00"),
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert status == 200, body[:300]
    return base64.b64decode(json.loads(body)["values"]["text"]).decode()


def memory(pid: int) -> dict[str, int]:
    """/proc/<pid>/smaps_rollup's figures, in kB."""
    figures = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        figures[name] = int(value.split()[0])
    return figures


def holds_minilm(pid: int) -> bool:
    return "onnxruntime" in Path(f"/proc/{pid}/maps").read_text()


def start(platform: Platform, name: str, kind: str, **env: str) -> Server:
    server = Server({**platform.env, **env}, platform.folder / f"{name}.log", kind).start()
    platform.servers.append(server)
    return server


def served(server: Server, workers: int = 2) -> tuple[int, list[int]]:
    """The master's pid and its workers', once every worker has started serving (uvicorn's start-up line,
    written after gunicorn's post_worker_init) and the bot has answered."""
    deadline = time.monotonic() + 180
    while server.output().count("Application startup complete") < workers:
        assert time.monotonic() < deadline, server.output()
        time.sleep(0.2)
    for text in QUESTIONS:
        talk(server, text)
    master, *children = server.process_ids()
    assert len(children) == workers, server.output()
    return master, children


def answers(server: Server) -> list[str]:
    return [talk(server, text) for text in QUESTIONS]


def stop(platform: Platform, server: Server):
    server.stop()
    platform.servers.remove(server)


def test_an_english_bot_has_both_models_loaded_once_by_the_master(platform):
    """The demo bot speaks French and English (its BotLanguage rows): USE and MiniLM, loaded by the master."""
    reference = start(platform, "daphne-en", "daphne")
    expected = answers(reference)
    stop(platform, reference)

    layout = start(platform, "layout-en", "layout")
    master, workers = served(layout)
    try:
        assert answers(layout) == expected
        log = layout.output()
        assert f"Matching models loaded by the master (pid {master}) for its workers: USE, MiniLM" in log, log
        assert "bots' languages: en, fr" in log
        assert "Matching models loaded by the worker" not in log
        assert holds_minilm(master)
        for worker in workers:
            assert memory(worker)["Shared_Dirty"] >= USE_TABLE_KB
        # The libraries every worker imports are the master's too (deploy/gunicorn.conf.py SHARED_LIBRARIES),
        # not the platform's own code, which each worker imports for itself (a reload serves new code).
        assert "lxml/etree" in Path(f"/proc/{master}/maps").read_text()
    finally:
        stop(platform, layout)


def test_a_french_only_deployment_shares_use_and_never_loads_minilm(platform):
    platform.manage(
        "shell", "-c", "from bots.models import BotLanguage; BotLanguage.objects.filter(code='en').delete()"
    )
    try:
        reference = start(platform, "daphne-fr", "daphne")
        expected = answers(reference)
        stop(platform, reference)

        layout = start(platform, "layout-fr", "layout")
        separate = start(platform, "layout-fr-separate", "layout", PROD_SHARED_MODELS="off")
        try:
            master, workers = served(layout)
            _, separate_workers = served(separate)
            assert answers(layout) == expected
            log = layout.output()
            assert (
                f"Matching models loaded by the master (pid {master}) for its workers: USE (bots' languages: fr)" in log
            )
            assert "Matching models loaded by the worker" not in log
            assert not any(holds_minilm(pid) for pid in (master, *workers))
            # The same workers loading the models themselves (the layout before they were shared): all of them.
            assert "Matching models loaded by the worker" in separate.output()
            shared = [memory(pid)["Shared_Dirty"] for pid in workers]
            alone = [memory(pid)["Shared_Dirty"] for pid in separate_workers]
            assert min(shared) >= max(alone) + USE_TABLE_KB, (shared, alone)
        finally:
            stop(platform, separate)
            stop(platform, layout)
    finally:
        platform.manage(
            "shell",
            "-c",
            f"from bots.models import Bot; Bot.objects.get(uuid='{BOT_UUID}').languages.get_or_create(code='en')",
        )
