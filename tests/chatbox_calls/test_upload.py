"""/servlet/fileupload as CV5 calls it (client-contract.md §2.2 (22)): a file kept with its dialog under a
name of the server's own, the answer page CV5 parses, files refused for their declared type or for a
content that is not what they claim, unknown contexts, the callback and origin checks, and the
operators-only download."""

import hashlib

import pytest
from django.test import Client

from accounts.models import Role
from dialogs.models import Dialog, Interaction
from livechat.models import ChatUpload
from livechat.uploads import storage
from tests.accounts.personas import make_persona
from tests.chatbox_calls.conftest import CALLBACK, cv5_answer, docx, pdf, png, send_file

pytestmark = pytest.mark.django_db


@pytest.fixture
def dialog_id(chatbox):
    chatbox.talk("Bonjour")
    return chatbox.context_id


def stored_files(folder) -> list:
    return [path for path in folder.rglob("*") if path.is_file()] if folder.exists() else []


def test_a_picture_is_stored_with_the_dialog_and_answered_as_cv5_reads_it(client, chatbox, dialog_id, upload_dir):
    image = png()
    response = send_file(client, dialog_id, "capture d'écran.png", image, "image/png")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert response["X-Content-Type-Options"] == "nosniff"
    page = response.content.decode()
    assert cv5_answer(page) == {
        "api": CALLBACK,
        "params": {"filesUploaded": ["capture d'écran.png"], "status": "success"},
    }
    # In CV5's hidden frame the page hands the same literal to the chatbox's page, at its origin only.
    assert 'window.parent.postMessage(answer, "http://0.0.0.0:9999")' in page
    assert "frame-ancestors http://0.0.0.0:9999" in response["Content-Security-Policy"]

    upload = ChatUpload.objects.get()
    dialog = Dialog.objects.get(uuid=dialog_id)
    assert (upload.dialog, upload.bot_id, upload.name) == (dialog, dialog.bot_id, "capture d'écran.png")
    assert (upload.content_type, upload.size) == ("image/png", len(image))
    assert upload.sha256 == hashlib.sha256(image).hexdigest()
    # Under the upload folder, a random name of the server's, the visitor's bytes.
    [path] = stored_files(upload_dir)
    assert path == storage.path_of(upload.stored_name)
    assert "capture" not in str(path) and path.suffix == ""
    assert path.read_bytes() == image
    # A line of the dialog: the visitor's message naming the file, left out of analytics.
    line = upload.interaction
    assert (line.dialog, line.user_input, line.type_response, line.counted) == (
        dialog,
        "capture d'écran.png",
        "LCVisitorMessage",
        False,
    )
    assert line.payload["upload"] == {
        "id": upload.pk,
        "name": "capture d'écran.png",
        "size": len(image),
        "contentType": "image/png",
        "url": f"/livechat/uploads/{upload.pk}",
    }
    # The visitor's own history replays it after a reload.
    history = chatbox.values(chatbox.post(f"chat/history/{chatbox.bot}", {"contextUuid": dialog_id}))
    assert [entry["user"] for entry in history["interactions"]][-1] == "capture d'écran.png"


@pytest.mark.parametrize(
    "name, content, content_type",
    [
        ("relevé.pdf", pdf(), "application/pdf"),
        ("photo.JPG", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 64, "image/jpeg"),
        ("contrat.docx", docx(), "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
        ("notes.txt", "Numéro de carte bloquée : 4970…\r\nMerci\n".encode(), "text/plain"),
        ("opérations.csv", b"date;montant\n2026-11-02;-42,50\n", "text/csv"),
    ],
)
def test_documents_pdf_office_and_text_are_accepted(client, dialog_id, upload_dir, name, content, content_type):
    response = send_file(client, dialog_id, name, content, content_type)
    assert response.status_code == 200, response.content
    assert cv5_answer(response.content.decode())["params"] == {"filesUploaded": [name], "status": "success"}
    assert ChatUpload.objects.get().content_type == content_type


EXE = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00" + b"\x00" * 48 + b"PE\x00\x00"
PAGE = b"<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


@pytest.mark.parametrize(
    "name, content, content_type, code",
    [
        # declared types that are never accepted
        ("setup.exe", EXE, "application/x-msdownload", "UNSUPPORTED_FILE_TYPE"),
        ("page.html", PAGE, "text/html", "UNSUPPORTED_FILE_TYPE"),
        ("logo.svg", SVG, "image/svg+xml", "UNSUPPORTED_FILE_TYPE"),
        ("archive.zip", docx(), "application/zip", "UNSUPPORTED_FILE_TYPE"),
        ("inconnu.bin", EXE, "application/octet-stream", "UNSUPPORTED_FILE_TYPE"),
        # disguised: an allowed type declared, something else inside
        ("photo.png", PAGE, "image/png", "FILE_CONTENT_MISMATCH"),
        ("facture.pdf", EXE, "application/pdf", "FILE_CONTENT_MISMATCH"),
        ("notes.txt", PAGE, "text/plain", "FILE_CONTENT_MISMATCH"),
        ("notes.txt", EXE, "text/plain", "FILE_CONTENT_MISMATCH"),
        ("photo.jpg", png(), "image/jpeg", "FILE_CONTENT_MISMATCH"),
        (
            "rapport.docx",
            pdf(),
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "FILE_CONTENT_MISMATCH",
        ),
        # an allowed type under another type's name
        ("photo.pdf", png(), "image/png", "FILE_TYPE_MISMATCH"),
        ("photo.png.exe", png(), "image/png", "FILE_TYPE_MISMATCH"),
    ],
)
def test_a_wrong_or_disguised_type_is_refused_and_nothing_is_kept(
    client, dialog_id, upload_dir, name, content, content_type, code
):
    lines = Interaction.objects.count()
    response = send_file(client, dialog_id, name, content, content_type)

    assert response.status_code == 415
    answer = cv5_answer(response.content.decode())
    assert answer["api"] == CALLBACK
    assert answer["params"]["status"] == "fail"
    assert answer["params"]["filesUploaded"] == []
    assert answer["params"]["code"] == code
    assert not ChatUpload.objects.exists()
    assert Interaction.objects.count() == lines
    assert stored_files(upload_dir) == []


@pytest.mark.parametrize("context_id", ["1e64f80a-9356-4128-babc-ba336411dbfa", "pas-un-identifiant"])
def test_an_unknown_context_is_answered_404_and_nothing_is_kept(client, demo_bot, upload_dir, context_id):
    response = send_file(client, context_id, "photo.png", png(), "image/png")
    assert response.status_code == 404
    params = cv5_answer(response.content.decode())["params"]
    assert (params["status"], params["code"]) == ("fail", "UNKNOWN_CONTEXT")
    assert not ChatUpload.objects.exists()
    assert stored_files(upload_dir) == []


def test_a_revoked_context_takes_no_file(client, dialog_id, upload_dir):
    Dialog.objects.filter(uuid=dialog_id).update(archived_at="2026-01-01T00:00:00Z")
    response = send_file(client, dialog_id, "photo.png", png(), "image/png")
    assert response.status_code == 404
    assert not ChatUpload.objects.exists()


def test_a_call_without_context_file_or_content_is_bad_input(client, dialog_id, upload_dir):
    from django.core.files.uploadedfile import SimpleUploadedFile

    for query in ("fin=dydu-upload-file&cb=cb1", "ctx=null&cb=cb1"):  # "null": absent, as everywhere
        missing_ctx = client.post(f"/servlet/fileupload?{query}", {})
        assert missing_ctx.status_code == 400
        assert cv5_answer(missing_ctx.content.decode())["params"]["code"] == "MISSING_FIELD"

    other_field = client.post(
        f"/servlet/fileupload?ctx={dialog_id}&cb=cb1",
        {"file": SimpleUploadedFile("photo.png", png(), content_type="image/png")},
    )
    assert other_field.status_code == 400
    assert "dydu-upload-file" in cv5_answer(other_field.content.decode())["params"]["error"]

    empty = send_file(client, dialog_id, "vide.txt", b"", "text/plain")
    assert empty.status_code == 400
    assert cv5_answer(empty.content.decode())["params"]["code"] == "EMPTY_FILE"

    not_multipart = client.post(
        f"/servlet/fileupload?ctx={dialog_id}", b"\x89PNG", content_type="application/octet-stream"
    )
    assert not_multipart.status_code == 400
    assert not ChatUpload.objects.exists()


@pytest.mark.parametrize("callback", ["x');alert(1);//", "a b", "1abc", "cb" + "x" * 70, "<script>"])
def test_a_callback_that_is_not_an_identifier_is_refused_and_not_echoed(client, dialog_id, upload_dir, callback):
    response = send_file(client, dialog_id, "photo.png", png(), "image/png", callback=callback)
    assert response.status_code == 400
    page = response.content.decode()
    assert callback not in page
    answer = cv5_answer(page)
    assert answer["api"] == ""
    assert (answer["params"]["status"], answer["params"]["code"]) == ("fail", "INVALID_FIELD")
    assert not ChatUpload.objects.exists()


def test_a_hostile_file_name_is_kept_as_text_and_answered_intact(client, dialog_id, upload_dir):
    name = "<img src=x onerror=alert(1)>{'a'} & \"api\" params}.png"
    response = send_file(client, dialog_id, name, png(), "image/png")
    assert response.status_code == 200
    page = response.content.decode()
    # Nothing of the name is markup in the page, and CV5's parse gives it back exactly.
    assert "<img" not in page and "onerror=alert(1)>" not in page
    assert cv5_answer(page)["params"]["filesUploaded"] == [name]
    assert ChatUpload.objects.get().name == name


def test_a_path_in_the_file_name_is_only_a_name(client, dialog_id, upload_dir, tmp_path):
    response = send_file(client, dialog_id, "../../etc/passwd.txt", b"root:x:0:0\n", "text/plain")
    assert response.status_code == 200
    upload = ChatUpload.objects.get()
    assert upload.name == "passwd.txt"
    [path] = stored_files(upload_dir)
    assert path.is_relative_to(upload_dir)


def test_only_origins_this_server_accepts_get_the_answer(client, dialog_id, upload_dir, settings):
    settings.CORS_ALLOW_ALL_ORIGINS = False
    settings.CORS_ALLOWED_ORIGINS = ["https://shop.example"]

    allowed = send_file(client, dialog_id, "a.png", png(), "image/png", origin="https://shop.example")
    assert allowed.status_code == 200
    assert 'postMessage(answer, "https://shop.example")' in allowed.content.decode()

    for origin, status in [
        ("https://evil.example", 403),
        ("javascript:alert(1)", 400),
        ("https://shop.example/page?x=1", 400),
        ('https://shop.example"><script>', 400),
        ("https://user:pass@shop.example", 400),
    ]:
        refused = send_file(client, dialog_id, "b.png", png(), "image/png", origin=origin)
        assert refused.status_code == status, origin
        page = refused.content.decode()
        assert "postMessage" not in page
        assert cv5_answer(page)["params"]["status"] == "fail"
    # The browser's own Origin header is checked too.
    header = send_file(
        client, dialog_id, "c.png", png(), "image/png", origin=None, headers={"Origin": "https://evil.example"}
    )
    assert header.status_code == 403
    assert ChatUpload.objects.count() == 1


def test_without_an_origin_the_page_posts_nothing(client, dialog_id, upload_dir):
    response = send_file(client, dialog_id, "a.png", png(), "image/png", origin=None)
    assert response.status_code == 200
    assert "<script>" not in response.content.decode()  # only the inert literal: nothing runs


def test_the_path_without_servlet_answers_the_same(client, dialog_id, upload_dir):
    response = send_file(client, dialog_id, "a.png", png(), "image/png", prefix="")
    assert response.status_code == 200
    assert cv5_answer(response.content.decode())["params"]["status"] == "success"


def test_only_the_bots_operators_download_a_file_always_as_an_attachment(client, demo_bot, dialog_id, upload_dir):
    image = png(3, 3)
    send_file(client, dialog_id, "scan <1>.png", image, "image/png")
    upload = ChatUpload.objects.get()
    url = f"/livechat/uploads/{upload.pk}/"

    operator, _ = make_persona(demo_bot.account, Role.OPERATOR)
    browser = Client()
    browser.force_login(operator)
    response = browser.get(url)
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == image
    assert response["Content-Type"] == "image/png"
    assert response["Content-Disposition"].startswith("attachment;")
    assert "scan" in response["Content-Disposition"]
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in response["Content-Security-Policy"]

    assert Client().get(url).status_code == 302  # not logged in: the login page
    reader, _ = make_persona(demo_bot.account, Role.READER)
    stranger, _ = make_persona("Another bank", Role.OPERATOR)
    for user in (reader, stranger):
        other = Client()
        other.force_login(user)
        assert other.get(url).status_code == 404
    assert browser.get(f"/livechat/uploads/{upload.pk + 1}/").status_code == 404


def test_deleting_the_dialog_deletes_its_files(client, dialog_id, upload_dir, django_capture_on_commit_callbacks):
    send_file(client, dialog_id, "a.png", png(), "image/png")
    send_file(client, dialog_id, "b.pdf", pdf(), "application/pdf")
    assert len(stored_files(upload_dir)) == 2
    with django_capture_on_commit_callbacks(execute=True):
        Dialog.objects.filter(uuid=dialog_id).delete()
    assert not ChatUpload.objects.exists()
    assert stored_files(upload_dir) == []
