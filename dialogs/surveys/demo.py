"""The demo bot's surveys (knowledge/demo/content.py SURVEYS), and the link from the answers of the
items that name one."""

from knowledge.models import Answer, KnowledgeItem

from .definitions import save_survey


def seed_demo_surveys(bot, surveys: dict, items: list[dict]) -> None:
    made = {}
    for name, languages in surveys.items():
        for language, spec in languages.items():
            made[(name, language)] = save_survey(bot, {"name": name, "language": language, **spec})
    for spec in items:
        if not spec.get("survey"):
            continue
        item = KnowledgeItem.objects.get(bot=bot, label=spec["label"])
        for (name, language), survey in made.items():
            if name == spec["survey"]:
                Answer.objects.filter(item=item, language=language).update(survey=survey.uuid)
