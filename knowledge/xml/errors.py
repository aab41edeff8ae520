"""Why a knowledge base file is refused: one 400 error naming the line, the column and the reason."""

from bots.servlet.errors import BadRequest

MALFORMED = "MALFORMED_XML"  # not well-formed XML
FORBIDDEN = "FORBIDDEN_XML"  # a DOCTYPE, entities: never processed
SCHEMA = "SCHEMA_VIOLATION"  # does not match knowledge-base-1.xsd
DANGLING = "DANGLING_REFERENCE"  # refers to something the file does not define
DUPLICATE = "DUPLICATE"  # defines the same thing twice
INVALID_VALUE = "INVALID_VALUE"  # a value the schema cannot check (JSON, kind specifics)
TOO_DEEP = "TOO_DEEP"  # a tree nested beyond the limit
TOO_BIG = "TOO_BIG"  # one element holding more than the limit
WRONG_DOCUMENT = "WRONG_DOCUMENT"  # another kind of file (a gallery given as a knowledge base…)


class InvalidKnowledgeBaseFile(BadRequest):
    """The file is refused as a whole; nothing was changed."""

    code = SCHEMA

    def __init__(self, code: str, reason: str, line: int | None = None, column: int | None = None):
        where = f"Line {line}, column {column}: " if line else ""
        super().__init__(f"{where}{reason}", code=code, line=line, column=column, reason=reason)
        self.reason = reason
        self.line = line
        self.column = column
