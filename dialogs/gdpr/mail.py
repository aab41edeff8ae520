"""The e-mails a visitor receives about their GDPR request, in their language (French or English): their
data (a summary in the body, everything in an attached JSON file), or the confirmation that it was
erased. Each names the service (the bot preference bot.servicename, else the bot's name)."""

import json

from django.conf import settings
from django.core.mail import EmailMessage

from preferences.services import bot_value

from ..models import GdprRequest
from .data import plain

WORDS = {
    "fr": {
        "data_subject": "Vos données chez {service}",
        "data_intro": "Bonjour,\n\nVous avez demandé les données que {service} conserve à votre sujet. "
        "Les voici : {dialogs} conversation(s), {interactions} échange(s), {files} fichier(s), "
        "{surveys} questionnaire(s). Le fichier joint « {file} » les contient toutes.",
        "data_none": "Bonjour,\n\nVous avez demandé les données que {service} conserve à votre sujet : "
        "nous n'en conservons aucune.",
        "erased_subject": "Vos données chez {service} ont été effacées",
        "erased": "Bonjour,\n\nComme vous l'avez demandé, {service} a effacé vos données : "
        "{dialogs} conversation(s) et tout ce qui s'y rattachait.",
        "visitor": "Vous",
        "bot": "{service}",
        "operator": "Conseiller",
    },
    "en": {
        "data_subject": "Your data held by {service}",
        "data_intro": "Hello,\n\nYou asked for the data {service} holds about you. Here it is: "
        "{dialogs} conversation(s), {interactions} exchange(s), {files} file(s), {surveys} survey answer(s). "
        "The attached file “{file}” holds all of it.",
        "data_none": "Hello,\n\nYou asked for the data {service} holds about you: we hold none.",
        "erased_subject": "Your data held by {service} was erased",
        "erased": "Hello,\n\nAs you asked, {service} erased your data: {dialogs} conversation(s) and everything "
        "attached to them.",
        "visitor": "You",
        "bot": "{service}",
        "operator": "Adviser",
    },
}
ATTACHMENT = "data.json"
# The body repeats the conversations up to this many lines; the attachment always has everything.
BODY_LINES = 400


def service_name(request: GdprRequest) -> str:
    return bot_value(request.bot, "bot.servicename") or request.bot.name


def words_for(request: GdprRequest) -> dict:
    return WORDS.get((request.language or "").lower()[:2], WORDS["en"])


def send_data(request: GdprRequest, data: dict, counts) -> EmailMessage:
    service = data["service"]
    words = words_for(request)
    if counts.get("dialogs"):
        intro = words["data_intro"].format(service=service, file=ATTACHMENT, **_totals(counts))
    else:
        intro = words["data_none"].format(service=service)
    message = EmailMessage(
        subject=words["data_subject"].format(service=service)[:200],
        body="\n".join([intro, "", *_transcript_lines(data, words, service)]).strip() + "\n",
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[request.mail],
    )
    message.attach(ATTACHMENT, json.dumps(data, ensure_ascii=False, indent=2), "application/json")
    message.send()
    return message


def send_erased(request: GdprRequest, counts) -> EmailMessage:
    service = service_name(request)
    words = words_for(request)
    message = EmailMessage(
        subject=words["erased_subject"].format(service=service)[:200],
        body=words["erased"].format(service=service, **_totals(counts)) + "\n",
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[request.mail],
    )
    message.send()
    return message


def _totals(counts) -> dict:
    return {key: counts.get(key, 0) for key in ("dialogs", "interactions", "files", "surveys")}


def _transcript_lines(data: dict, words: dict, service: str) -> list[str]:
    lines = []
    for dialog in data["dialogs"]:
        lines.append(f"— {dialog['started'][:16].replace('T', ' ')} —")
        for row in dialog["interactions"]:
            time = row["time"][11:16]
            if row["question"] and not row["question"].startswith("#"):
                lines.append(f"{time} {words['visitor']} : {row['question']}")
            if row["answer"]:
                author = words["operator"] if row["from"] == "operator" else words["bot"].format(service=service)
                lines.append(f"{time} {author} : {plain(row['answer'])}")
        lines.append("")
        if len(lines) >= BODY_LINES:
            lines = [*lines[:BODY_LINES], "…"]
            break
    return lines
