"""Knowledge base exchange: export a bot's knowledge base as one XML file, import one into a bot,
delete it, move a gallery on its own, and transfer bot data (knowledge base and preferences).

The format and the safe reader live in knowledge.xml; this package connects them to the database.
"""

from .deleting import delete_gallery, delete_knowledge, delete_knowledge_base, knowledge_counts
from .exporting import export_gallery, export_knowledge_base
from .importing import ImportReport, check_file, import_gallery, import_knowledge_base

__all__ = [
    "ImportReport",
    "check_file",
    "delete_gallery",
    "delete_knowledge",
    "delete_knowledge_base",
    "export_gallery",
    "export_knowledge_base",
    "import_gallery",
    "import_knowledge_base",
    "knowledge_counts",
]
