"""The knowledge base as the exchange format sees it: plain records, free of the database, that the
writer turns into XML and the reader makes from XML."""

from dataclasses import dataclass, field


@dataclass(slots=True)
class Header:
    """The root element: what kind of document, and the bot it came from (informative)."""

    root: str = "knowledgeBase"
    format_version: str = "1"
    bot_uuid: str = ""
    bot_name: str = ""


@dataclass(slots=True)
class Language:
    code: str
    available: bool = True


@dataclass(slots=True)
class Space:
    name: str
    default: bool = False


@dataclass(slots=True)
class Tag:
    id: int
    name: str
    parent: int | None = None
    depth: int = 0  # the writer nests a tag under the previous one of smaller depth


@dataclass(slots=True)
class MatchingGroup:
    uuid: str
    name: str
    category: str = ""
    members: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Complement:
    position: str
    whole_knowledge_base: bool = False
    tags: list[int] = field(default_factory=list)
    items: list[int] = field(default_factory=list)  # the knowledge item ids it targets
    activation: str = "always"  # how often: always, once_per_dialog, every_n_interactions, n_per_dialog
    n: int = 1
    # context conditions on the dialog's variables: [{"variable", "operator", "value"}], all must hold
    conditions: list[dict] = field(default_factory=list)


@dataclass(slots=True)
class AnswerBranch:
    """Another answer in the same language and space, chosen by context conditions (in file order)."""

    conditions: list[dict] = field(default_factory=list)  # [{"variable", "operator", "value"}], all hold
    text: str = ""
    set_variables: dict = field(default_factory=dict)  # stored on the dialog when the branch answers


@dataclass(slots=True)
class Answer:
    language: str
    space: str
    text: str = ""
    template_name: str = ""
    template_data: str = ""
    sidebar: dict | None = None
    gui_action: str = ""
    url_redirect: str = ""
    # Further steps after the answer: [{"text": HTML, "sidebar": {…}}] (the chatbox's nextStepResponse)
    steps: list[dict] = field(default_factory=list)
    ask_feedback: bool = False
    livechat: bool = False
    competency: str = ""
    survey: str = ""  # the UUID of the survey the answer carries (one of the file's surveys)
    branches: list[AnswerBranch] = field(default_factory=list)  # in priority order


@dataclass(slots=True)
class KnowledgeItem:
    id: int
    kind: str = "question"
    status: str = "draft"
    label: str = ""
    tag: int | None = None
    parent: int | None = None
    direct_access: bool = False
    featured: bool = False
    slot_variable: str = ""
    # slot filling: a slot's value type, allowed values, question and invalid-value sentence per
    # language; an item's slots (ids, in order) and introductory sentence per language
    slot_type: str = ""
    slot_values: list[str] = field(default_factory=list)
    slot_question: dict[str, str] = field(default_factory=dict)
    slot_invalid: dict[str, str] = field(default_factory=dict)
    slots: list[int] = field(default_factory=list)
    slot_intro: dict[str, str] = field(default_factory=dict)
    event_rules: list | None = None
    complement: Complement | None = None
    # (language, text, rewordable), in the order of each language's formulations
    formulations: list[tuple[str, str, bool]] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)
    depth: int = 0
    position: int = 0  # index among its siblings (the reader sets it; the writer uses the order it gets)


@dataclass(slots=True)
class GlobalSentence:
    language: str
    kind: str
    text: str


@dataclass(slots=True)
class Image:
    name: str
    media_type: str
    content: bytes


@dataclass(slots=True)
class Preference:
    name: str
    value: str
    line: int = 0  # where the reader found it, for an error found only when it is stored
