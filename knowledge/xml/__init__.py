"""The knowledge base exchange format: its XML Schema, the streaming writer and the safe streaming
reader. Nothing here touches the database (knowledge.exchange does)."""

from functools import cache
from pathlib import Path

FORMAT_VERSION = "1"
SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "knowledge-base-1.xsd"


@cache
def schema():
    """The XML Schema of the format, parsed once per process (never from the network)."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    return etree.XMLSchema(etree.parse(str(SCHEMA_PATH), parser))
