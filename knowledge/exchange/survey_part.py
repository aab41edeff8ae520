"""A bot's surveys in its knowledge-base file are dialogs' (dialogs/surveys/exchange.py): dialogs registers that
part at start-up (dialogs/apps.py), so that the exchange imports no dialogs code."""

from types import ModuleType

# The module writing and reading the surveys: write_surveys(writer, bot) and SurveyLoader(bot).
part: ModuleType | None = None


def register(module: ModuleType) -> None:
    global part
    part = module
