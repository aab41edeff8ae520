"""A dialog's history as the chatbox replays it on reload (client-contract.md §2.2 (9)).

Live chat stores one row per message; the chatbox replays exchanges (a question and its answer), so a
visitor's message to an operator and the operator's answer that follows are replayed as one exchange,
and an operator's message carries `human: true` and the operator's name in `fromDetail` (a live-chat
notice names its operator in `operatorName`: `fromDetail` would make it a message).
"""

from . import clicks
from .handover import Code
from .models import Dialog, Interaction

# The queue's talk answer is replayed in the form the chatbox's history knows (a "queued" notice).
REPLAYED_TYPE = {Code.WAITING_FOR_OPERATOR: Code.IN_QUEUE}


def history_values(dialog: Dialog | None) -> list[dict]:
    if dialog is None:
        return []
    rows = Interaction.objects.filter(dialog=dialog).order_by("created_at", "id")
    replayed: list[dict] = []
    waiting_for_answer = False
    for interaction in rows:
        values = interaction_values(interaction)
        if interaction.human and waiting_for_answer:
            question = replayed[-1]
            replayed[-1] = {**values, "user": question["user"], "hideRequest": False}
        else:
            replayed.append(values)
        waiting_for_answer = interaction.type_response == Code.VISITOR_MESSAGE
    return replayed


def interaction_values(interaction: Interaction) -> dict:
    payload = interaction.payload or {}
    poll_time = payload.get("pollUpdatedInteractionDate") or interaction.server_time_ms
    values = {
        "from": "operator" if interaction.human else "bot",
        "user": interaction.user_input,
        "text": interaction.answer,
        "type": REPLAYED_TYPE.get(interaction.type_response, interaction.type_response),
        "askFeedback": interaction.ask_feedback and not interaction.feedback,
        "human": interaction.human,
        "date": interaction.created_at.strftime("%Y-%m-%d %H:%M:%S"),
        "timestamp": interaction.server_time_ms,
        "pollUpdatedInteractionDate": poll_time,
        "hideRequest": not interaction.user_input or clicks.hidden_request(interaction.origin, interaction.user_input),
    }
    if interaction.answered_item_id:  # kept when the item has gone since
        values["knowledgeId"] = interaction.answered_item_id
    if interaction.feedback:
        values["feedBack"] = interaction.feedback
        if interaction.feedback_choice_key is not None:
            values["feedbackChoiceKey"] = interaction.feedback_choice_key
        if interaction.feedback_comment:
            values["feedbackComment"] = interaction.feedback_comment
    # What the chatbox shows again after a reload; a GUI action or a URL redirection is not replayed (a
    # reload would run it a second time, or send the page away again).
    for key in ("sidebar", "templateName", "templateData", "nextStepResponse"):
        if key in payload:
            values[key] = payload[key]
    # fromDetail with a text makes a chatbox show the line as the operator's message (client-contract.md
    # §4.3): only an operator's message carries it; a live-chat notice names its operator in operatorName.
    name = payload.get("fromDetail") or payload.get("operatorName")
    if name:
        values["fromDetail" if interaction.human else "operatorName"] = name
    return values
