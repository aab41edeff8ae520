"""The fields a knowledge base file carries, one list per table: the import writes these columns, the
export reads them (a field added to the file is added here, once)."""

KNOWLEDGE_ITEM = (
    "id",
    "kind",
    "status",
    "label",
    "tag",
    "parent",
    "direct_access",
    "featured",
    "position",
    "event_rules",
    "slot_variable",
    "slot_type",
    "slot_values",
    "slot_question",
    "slot_invalid",
    "slots",
    "slot_intro",
    "complement_position",
    "complement_all",
    "complement_frequency",
    "complement_n",
    "complement_conditions",
)
FORMULATION = ("item", "language", "text", "rewordable")
ANSWER = (
    "item",
    "language",
    "space",
    "text",
    "template_name",
    "template_data",
    "sidebar",
    "gui_action",
    "url_redirect",
    "steps",
    "ask_feedback",
    "livechat",
    "livechat_competency",
    "survey",
)
