"""A dialog keeps going when the chatbox changes language (our chatbox's FR / EN switch): each talk's
`language` becomes the dialog's, on the same context, and the history returns every exchange in the language
it was said in; the welcome asked without an interaction tells the server at once."""

from dialogs.models import Dialog


def test_a_talk_in_another_language_continues_the_dialog(chatbox):
    first = chatbox.talk("Quels sont vos horaires d'ouverture ?")
    context_id = first["contextId"]
    assert first["language"] == "fr" and "mardi au samedi" in first["text"]

    chatbox.language = "en"
    welcome = chatbox.talk("#welcome#", hidden=True)
    assert (welcome["contextId"], welcome["language"]) == (context_id, "en")
    assert "Hello, I am <b>Clara</b>" in welcome["text"]
    dialog = Dialog.objects.get(uuid=context_id)
    assert dialog.language == "en" and dialog.archived_at is None

    second = chatbox.talk("What are your opening hours?")
    assert (second["contextId"], second["language"]) == (context_id, "en")
    assert "Tuesday to Saturday" in second["text"]

    history = chatbox.values(chatbox.post(f"chat/history/{chatbox.bot}", {"contextUuid": context_id}))
    assert history["contextId"] == context_id
    assert [(row["user"], row["text"][:30]) for row in history["interactions"]] == [
        ("Quels sont vos horaires d'ouverture ?", first["text"][:30]),
        ("What are your opening hours?", second["text"][:30]),
    ]
    assert Dialog.objects.filter(bot__uuid=chatbox.bot).count() == 1
