"""An answer's rich parts in the talk values as the chatbox reads them (client-contract.md §3): sidebar,
template (templateName + templateData, a JSON string), guiAction, urlRedirect and the further steps
chained as nextStepResponse. Every string is base64-encoded later by the envelope, nested ones too."""

import json

from .rendering import substitute_variables


def rich_payload(answer, variables: dict) -> dict:
    """The talk values an answer adds beside its text; empty parts are left out."""
    payload = {}
    sidebar = _sidebar(answer.sidebar)
    if sidebar:
        payload["sidebar"] = sidebar
    if answer.template_name:
        payload["templateName"] = answer.template_name
        payload["templateData"] = _template_data(answer.template_data, variables)
    if answer.gui_action:
        payload["guiAction"] = answer.gui_action
    if answer.url_redirect:
        payload["urlRedirect"] = answer.url_redirect
    next_step = _steps(answer.steps or [], variables)
    if next_step:
        payload["nextStepResponse"] = next_step
    return payload


def _sidebar(sidebar) -> dict:
    if not isinstance(sidebar, dict):
        return {}
    return {key: value for key, value in sidebar.items() if value not in (None, "")}


def _template_data(data: str, variables: dict) -> str:
    """Variables are filled in each text of the JSON, so a value holding a quote or a backslash
    cannot break the JSON the chatbox parses."""
    if "${" not in data:
        return data
    try:
        fields = json.loads(data)
    except ValueError:
        return substitute_variables(data, variables)
    if not isinstance(fields, dict):
        return substitute_variables(data, variables)
    filled = {
        key: substitute_variables(value, variables) if isinstance(value, str) else value
        for key, value in fields.items()
    }
    return json.dumps(filled, ensure_ascii=False)


def _steps(steps: list, variables: dict) -> dict | None:
    """CV5 flattens nextStepResponse recursively (src/tools/steps.ts): step 2 is the answer's
    nextStepResponse, step 3 step 2's, and so on; each step shows its text and its sidebar."""
    chained = None
    for step in reversed(steps):
        if not isinstance(step, dict) or not step.get("text"):
            continue
        values = {"text": substitute_variables(step["text"], variables)}
        sidebar = _sidebar(step.get("sidebar"))
        if sidebar:
            values["sidebar"] = sidebar
        if chained:
            values["nextStepResponse"] = chained
        chained = values
    return chained
