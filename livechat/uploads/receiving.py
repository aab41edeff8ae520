"""A file a visitor sends from the chatbox: checked, stored with its dialog, shown to the operator.

The file becomes a line of the dialog (a visitor message naming the file, with the file's card in its
payload), so the operator's transcript, the visitor's history and the printed transcript all show it;
in live chat it reaches the operator's console at once, as what the visitor writes does.
"""

import re
import unicodedata
from types import SimpleNamespace

from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from bots.servlet.errors import BadRequest, NotFound, TooLarge
from bots.servlet.limits import upload_max_bytes
from dialogs.contexts import parse_context_id, still_active
from dialogs.handover import Code
from dialogs.models import Dialog, Interaction

from ..handover import LivechatHandover
from ..models import ChatUpload
from . import storage, types

NAME_MAX_CHARS = 200
UNSAFE_IN_NAME = re.compile(r"[\x00-\x1f\x7f/\\]")


def dialog_for(context_id: str) -> Dialog:
    """The live dialog of the chatbox's `ctx`, or 404 (unknown, malformed or revoked)."""
    parsed = parse_context_id(context_id)
    dialog = Dialog.objects.filter(uuid=parsed).select_related("bot").first() if parsed else None
    dialog = still_active(dialog)
    if dialog is None:
        raise NotFound("No live dialog has this context id.", code="UNKNOWN_CONTEXT")
    return dialog


def display_name(raw: str) -> str:
    """The visitor's file name as shown to people: its last path part, no control characters, bounded.
    It is never used to build a path."""
    name = unicodedata.normalize("NFC", str(raw or ""))
    name = re.split(r"[/\\]", name)[-1]
    name = UNSAFE_IN_NAME.sub("", name).strip().lstrip(".") or "file"
    if len(name) > NAME_MAX_CHARS:
        stem, dot, extension = name.rpartition(".")
        keep = NAME_MAX_CHARS - len(dot + extension)
        name = (stem[:keep] + dot + extension) if dot and len(extension) <= 10 else name[:NAME_MAX_CHARS]
    return name


def receive(dialog: Dialog, uploaded, now=None) -> ChatUpload:
    """Check and store one uploaded file (Django's UploadedFile); types.Refused, 400 or 413 otherwise."""
    now = now or timezone.now()
    if uploaded.size > upload_max_bytes():
        raise TooLarge(
            f"The file is larger than this server accepts ({upload_max_bytes() // (1024 * 1024)} MB).",
            maxBytes=upload_max_bytes(),
        )
    if not uploaded.size:
        raise BadRequest("The file is empty.", code="EMPTY_FILE", field="dydu-upload-file")
    name = display_name(uploaded.name)
    kind = types.check(name, uploaded.content_type, uploaded)
    stored_name, size, sha256 = storage.save(uploaded)
    try:
        with transaction.atomic():
            upload = ChatUpload.objects.create(
                dialog=dialog,
                bot_id=dialog.bot_id,
                name=name,
                stored_name=stored_name,
                content_type=kind.content_type,
                size=size,
                sha256=sha256,
                created_at=now,
            )
            upload.interaction = Interaction.objects.create(
                dialog=dialog,
                bot_id=dialog.bot_id,
                counted=False,  # a file is not a question: analytics leave it out
                created_at=now,
                user_input=name,
                type_response=Code.VISITOR_MESSAGE,
                language=dialog.language,
                space=dialog.space,
                payload={"upload": card(upload)},
            )
            upload.save(update_fields=["interaction"])
            Dialog.objects.filter(pk=dialog.pk).update(last_activity=now)
            if dialog.livechat:
                # In live chat the operator gets it as the visitor's next message (and now owes an answer).
                LivechatHandover().relay(dialog, upload.interaction, SimpleNamespace(mode="polling"), now)
    except BaseException:
        storage.delete(stored_name)
        raise
    return upload


def card(upload: ChatUpload) -> dict:
    """What the operator's console shows of a file: its name, size, type and where to download it."""
    return {
        "id": upload.pk,
        "name": upload.name,
        "size": upload.size,
        "contentType": upload.content_type,
        "url": reverse("livechat-upload", args=[upload.pk]),
    }
