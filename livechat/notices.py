"""What a visitor's chatbox is sent in live chat, shaped so that a notice never looks like a message.

CV5's polling (client-contract.md §4.3, `useDyduPolling.js` `sendNotificationOrMessage`) shows as an
operator's message anything that carries both `text` and `fromDetail`, counting "" as present; only then
does it look at `code`. A typing notice {"code": "OperatorWritingStatus", "text": "Léa …", "fromDetail":
"Léa"} became a bubble "Léa …" that stayed, its empty twin an empty bubble, and "Léa a rejoint la
conversation." a bot bubble. Over the websocket the `type` decides first, so there the same notices were
right. So `fromDetail` is kept for the operator's messages only; every other frame names the operator in
`operatorName` (the servlet API's own word, which CV5 does not read) and has no empty `text`.
"""

from dialogs.handover import Code

# Answers an operator writes: the only frames the chatbox is to show as the operator's bubbles.
MESSAGE_TYPES = frozenset({Code.OPERATOR_ANSWER})
OPERATOR_NAME = "operatorName"


def is_message(values: dict) -> bool:
    return values.get("human") is True and values.get("typeResponse") in MESSAGE_TYPES


def for_visitor(values: dict) -> dict:
    """`values` as the chatbox may be sent them (a new dict; a message's are returned unchanged)."""
    if is_message(values) or ("fromDetail" not in values and values.get("text") != ""):
        return values
    shaped = dict(values)
    name = shaped.pop("fromDetail", None)
    if name and not shaped.get(OPERATOR_NAME):
        shaped[OPERATOR_NAME] = name
    if shaped.get("text") == "":
        del shaped["text"]
    return shaped
