"""The vectors app: background vector jobs and the matching indexes' memory budget."""

from django.apps import AppConfig


class VectorsConfig(AppConfig):
    name = "knowledge.vectors"
    label = "knowledge_vectors"
    verbose_name = "Formulation vectors"
    default_auto_field = "django.db.models.BigAutoField"
