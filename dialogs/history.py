"""A dialog's history as the chatbox replays it on reload (client-contract.md §2.2 (9))."""

from .models import Dialog, Interaction


def history_values(dialog: Dialog | None) -> list[dict]:
    if dialog is None:
        return []
    rows = Interaction.objects.filter(dialog=dialog).order_by("created_at", "id")
    return [interaction_values(interaction) for interaction in rows]


def interaction_values(interaction: Interaction) -> dict:
    values = {
        "from": "operator" if interaction.human else "bot",
        "user": interaction.user_input,
        "text": interaction.answer,
        "type": interaction.type_response,
        "askFeedback": interaction.ask_feedback and not interaction.feedback,
        "human": interaction.human,
        "date": interaction.created_at.strftime("%Y-%m-%d %H:%M:%S"),
        "timestamp": interaction.server_time_ms,
        "pollUpdatedInteractionDate": interaction.server_time_ms,
        "hideRequest": not interaction.user_input,
    }
    if interaction.knowledge_item_id:
        values["knowledgeId"] = interaction.knowledge_item_id
    if interaction.feedback:
        values["feedBack"] = interaction.feedback
        if interaction.feedback_choice_key is not None:
            values["feedbackChoiceKey"] = interaction.feedback_choice_key
        if interaction.feedback_comment:
            values["feedbackComment"] = interaction.feedback_comment
    for key in ("sidebar", "templateName", "templateData"):
        if key in interaction.payload:
            values[key] = interaction.payload[key]
    return values
