"""Talks never fail because the knowledge changes under them (issue 28 item 1), on real server processes
and the database of the run (a SQLite file as `make run` serves it, or a scratch database on
DATABASE_URL's PostgreSQL): visitors talk without pause over the REST talk, on two daphne processes,
while an administrator (a) imports a generated knowledge base that gives the items new ids, (b) deletes
the knowledge base, (c) publishes drafts and deletes answered items in bulk in the back office.

No talk answers anything but 200; every talk answered is stored (the dialogs call lists it); the history
call, the printable transcript and the analytics page read the dialogs afterwards, answers of items that
are gone included. Before the fix, talks answered 500 (IntegrityError, FOREIGN KEY constraint failed)
when the import or the delete committed under them."""

import json
import re
import threading
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from knowledge.exchange.generate import generated_records, write_generated_file
from tests.conftest import decode
from tests.servers import ADMIN_PASSWORD, BOT_UUID, Browser, Platform

ITEMS = 1500
FORMULATIONS = 3  # two in French, one in English
TALKERS = 8
QUESTIONS = 24
# Talks each visitor still sends once the administrator's operation is over.
TAIL_TALKS = 3
# How long a thread waits for the others before the test gives up (never a measure of speed).
PATIENCE_SECONDS = 300
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
TALK = f"/servlet/api/chat/talk/{BOT_UUID}"


def knowledge_file(path: Path, first_item_id: int) -> bytes:
    """The generated knowledge base, its items numbered from `first_item_id`."""
    write_generated_file(path, ITEMS, FORMULATIONS, first_item_id=first_item_id)
    return path.read_bytes()


def questions() -> dict[str, str]:
    """French questions of published top-level items, with their item's label."""
    found = {}
    for section, record in generated_records(ITEMS, FORMULATIONS):
        if section == "items" and record.status == "published" and record.parent is None:
            french = [text for language, text, _ in record.formulations if language == "fr"]
            found[french[0]] = record.label
        if len(found) == QUESTIONS * 2:
            break
    return found


class Visitor:
    """A chatbox over REST on one server process, keeping its dialog."""

    def __init__(self, server):
        self.browser = Browser(server)
        self.context_id = ""
        self.answers: list[tuple[int, str, dict | bytes]] = []  # (status, question, values or body)

    def talk(self, text: str) -> tuple[int, dict | bytes]:
        fields = {"userInput": text, "language": "fr"}
        if self.context_id:
            fields["contextUuid"] = self.context_id
        status, body = self.browser.request("POST", TALK, urllib.parse.urlencode(fields).encode(), FORM)
        if status != 200:
            self.answers.append((status, text, body))
            return status, body
        values = decode(json.loads(body)["values"])
        self.context_id = values["contextId"]
        self.answers.append((status, text, values))
        return status, values


class Admin:
    """The administrator: the servlet API with a token, the back office with a session."""

    def __init__(self, platform):
        self.server = platform.servers[0]
        self.token = platform.admin_token()
        self.office = Browser(self.server)
        self.office.log_in("admin", ADMIN_PASSWORD)

    def call(self, method: str, path: str, body: bytes | None = None, content_type: str | None = None):
        headers = {"Authorization": self.token}
        if content_type:
            headers["Content-Type"] = content_type
        status, answer = Browser(self.server).request(method, path, body, headers)
        assert status == 200, (method, path, status, answer[:500])
        return json.loads(answer)

    def import_knowledge(self, body: bytes) -> dict:
        return self.call("POST", f"/servlet/api/bot/knowledgebase/import/{BOT_UUID}", body, "application/xml")

    def delete_knowledge(self) -> dict:
        return self.call("DELETE", f"/servlet/api/bot/knowledgebase/delete/{BOT_UUID}")

    def page(self, path: str) -> str:
        status, page = self.office.request("GET", path)
        assert status == 200, (path, status, page[-2000:])
        return page.decode()

    def action(self, action: str, ids: list[int], **extra) -> str:
        """A bulk action of the knowledge items' list, as the page's form sends it."""
        listing = self.page("/admin/knowledge/knowledgeitem/")
        csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', listing).group(1)
        fields = [("csrfmiddlewaretoken", csrf), ("action", action), ("index", "0"), ("select_across", "0")]
        fields += [("_selected_action", str(pk)) for pk in ids] + list(extra.items())
        status, page = self.office.request(
            "POST",
            "/admin/knowledge/knowledgeitem/",
            urllib.parse.urlencode(fields).encode(),
            {**FORM, "Referer": self.server.url("/admin/knowledge/knowledgeitem/")},
        )
        assert status == 200, (action, status, page[-2000:])
        return page.decode()

    def drafts(self) -> list[int]:
        listing = self.page("/admin/knowledge/knowledgeitem/?status__exact=draft")
        return [int(pk) for pk in re.findall(r'name="_selected_action" value="(\d+)"', listing)]


def talk_during(visitors: list[Visitor], wanted: list[str], operation) -> object:
    """Every visitor talks without pause (its own thread: a real client each, on alternate processes)
    while `operation` runs, and a few more times after it; returns what the operation returned."""
    started = threading.Barrier(len(visitors) + 1)
    over = threading.Event()

    def keep_talking(index: int, visitor: Visitor):
        for turn in range(2):  # talking already when the operation starts
            visitor.talk(wanted[(index + turn) % len(wanted)])
        started.wait(timeout=PATIENCE_SECONDS)
        turn, tail = 2, 0
        while tail < TAIL_TALKS:
            visitor.talk(wanted[(index * 3 + turn) % len(wanted)])
            turn += 1
            if over.is_set():
                tail += 1

    with ThreadPoolExecutor(len(visitors)) as pool:
        running = [pool.submit(keep_talking, index, visitor) for index, visitor in enumerate(visitors)]
        started.wait(timeout=PATIENCE_SECONDS)
        try:
            result = operation()
        finally:
            over.set()
        for future in running:
            future.result(timeout=PATIENCE_SECONDS)
    return result


def failures(visitors: list[Visitor]) -> list:
    return [(status, question, body[:300]) for v in visitors for status, question, body in v.answers if status != 200]


def test_talks_never_fail_while_the_knowledge_base_is_replaced_deleted_or_edited(tmp_path):
    with Platform(tmp_path / "platform", processes=2) as platform:
        admin = Admin(platform)
        first = admin.import_knowledge(knowledge_file(tmp_path / "kb-1.xml", 10_000_000))
        assert first["imported"]["knowledgeItems"]["total"] == ITEMS and not first["idsKept"]["knowledgeItems"]
        asked = questions()
        probe = Visitor(platform.servers[0])
        # The questions the bot answers directly (a few generated ones are close enough to reword).
        answered = {}
        for question in asked:
            status, values = probe.talk(question)
            assert status == 200, values
            if values["typeResponse"] == "DMUnderstoodQuestion":
                answered[question] = values["knowledgeId"]
        wanted = list(answered)[:QUESTIONS]
        assert len(wanted) >= QUESTIONS // 2, answered
        visitors = [Visitor(platform.servers[index % 2]) for index in range(TALKERS)]

        # (a) An import that gives every item a new id.
        second = talk_during(
            visitors, wanted, lambda: admin.import_knowledge(knowledge_file(tmp_path / "kb-2.xml", 20_000_000))
        )
        assert not second["idsKept"]["knowledgeItems"]
        assert failures(visitors) == []
        # The talks answered what they matched: the same questions, the same answers, old ids or new.
        during_import = [values for v in visitors for _, _, values in v.answers]
        assert {values["typeResponse"] for values in during_import} == {"DMUnderstoodQuestion"}
        assert any(values["knowledgeId"] not in answered.values() for values in during_import)

        # (b) The knowledge base deleted.
        deleted = talk_during(visitors, wanted, admin.delete_knowledge)
        assert deleted["deleted"]["knowledgeItems"]["total"] == ITEMS
        assert failures(visitors) == []

        # (c) Back in place, then drafts published and the items asked deleted in bulk in the back office.
        admin.import_knowledge(knowledge_file(tmp_path / "kb-3.xml", 30_000_000))
        asked_now = sorted({probe.talk(question)[1]["knowledgeId"] for question in wanted})

        def edit_in_bulk():
            drafts = admin.drafts()
            assert drafts
            published = admin.action("publish", drafts)
            assert "published" in published
            admin.action("delete_selected", asked_now)
            return admin.action("delete_selected", asked_now, post="yes")

        edited = talk_during(visitors, wanted, edit_in_bulk)
        assert "deleted" in edited.lower(), edited[-2000:]
        assert failures(visitors) == []

        # Every talk answered is stored, and each dialog reads back whole.
        for visitor in visitors:
            talks = [question for status, question, _ in visitor.answers if status == 200]
            dialog = admin.call("GET", f"/servlet/api/dialogs/{BOT_UUID}/{visitor.context_id}")
            assert [row["userInput"] for row in dialog["interactions"]] == talks
            history = Browser(platform.servers[1]).post_form(
                f"/servlet/api/chat/history/{BOT_UUID}", {"contextUuid": visitor.context_id}
            )
            assert len(decode(history["values"])["interactions"]) == len(talks)
            status, page = Browser(platform.servers[1]).request(
                "GET", f"/servlet/history?context={visitor.context_id}&format=html"
            )
            assert status == 200 and talks[-1] in page.decode()

        # Analytics: every item answered has gone by now (replaced, deleted); each is listed by what it was.
        analytics = admin.page("/admin/bots/analytics/?period=Today")
        top = analytics.split('data-testid="top-knowledge"')[1].split("</table>")[0]
        removed = re.findall(r'data-testid="removed-item">([^<]+)<', top)
        assert len(removed) == top.count("<tr>") - 1 > 0, top  # every row but the header's
        assert {name.strip() for name in removed} <= set(asked.values())

        logs = "".join(server.output() for server in platform.servers)
        assert "Traceback" not in logs, logs[-3000:]
