"""A synthetic knowledge base of any size, written straight to a file: the benchmark's large bot and
the tests' generated bot. Deterministic for a given seed."""

import random
import uuid
from collections.abc import Iterator

from ..xml import records
from ..xml.writer import KnowledgeBaseWriter

WORDS = str.split(
    "carte compte virement agence crédit épargne prêt taux frais retrait plafond code bloquer perdu volé "
    "ouvrir fermer changer adresse téléphone mobile application connexion mot de passe banque conseiller "
    "rendez-vous assurance habitation auto voyage étranger devise chèque chéquier relevé iban rib solde "
    "découvert paiement sans contact sécurité fraude opposition livret placement bourse succursale horaires"
)
ENGLISH = str.split(
    "card account transfer branch loan savings rate fees withdrawal limit code block lost stolen open close "
    "change address phone mobile app login password bank advisor appointment insurance home car travel abroad "
    "currency cheque statement balance overdraft payment contactless security fraud stop booklet investment"
)


def _sentence(rng: random.Random, words, low: int, high: int) -> str:
    return " ".join(rng.choice(words) for _ in range(rng.randint(low, high)))


def generated_records(
    items: int,
    formulations_per_item: int = 5,
    *,
    tags: int = 200,
    groups: int = 100,
    seed: int = 7,
    first_item_id: int = 1,
) -> Iterator[tuple[str, object]]:
    """(section, record) pairs of a knowledge base with `items` knowledge items, a tenth of them
    decision-tree children, each with `formulations_per_item` formulations in French and English.
    Item ids run from `first_item_id`: ids beyond those the database handed out make an import give the
    items fresh ids (knowledge/exchange/rows.py plan_ids), as a file from another installation does."""
    rng = random.Random(seed)
    yield "languages", records.Language("fr")
    yield "languages", records.Language("en")
    yield "spaces", records.Space("Defaut", True)
    yield "spaces", records.Space("Pro")
    roots = min(20, tags)
    children_of = {root: [] for root in range(roots)}
    for index in range(roots, tags):
        children_of[rng.randrange(roots)].append(index)
    tag_ids = []
    for root in range(roots):
        root_id = len(tag_ids) + 1
        tag_ids.append(root_id)
        # Zero-padded names: the file lists sibling tags by name, as an export does.
        yield "tags", records.Tag(root_id, f"Thème {root + 1:03d}", None, 0)
        for child in children_of[root]:
            tag_ids.append(len(tag_ids) + 1)
            yield "tags", records.Tag(tag_ids[-1], f"Thème {root + 1:03d}.{child + 1:04d}", root_id, 1)
    for index in range(groups):
        members = [_sentence(rng, WORDS, 1, 3) for _ in range(rng.randint(2, 6))]
        if index and index % 10 == 0:
            members.append(f"{{groupe {index - 1:04d}}}")
        yield (
            "groups",
            records.MatchingGroup(str(uuid.UUID(int=rng.getrandbits(128))), f"groupe {index:04d}", "Bench", members),
        )
    french = max(1, formulations_per_item - formulations_per_item * 2 // 5)
    english = formulations_per_item - french
    item_id = 0
    while item_id < items:
        family = 1 if rng.random() < 0.9 or items - item_id < 4 else 4
        root_id = first_item_id + item_id
        for member in range(family):
            item_id += 1
            item = records.KnowledgeItem(
                id=first_item_id - 1 + item_id,
                kind="question",
                status="published" if rng.random() < 0.85 else "draft",
                label=_sentence(rng, WORDS, 2, 5),
                tag=rng.choice(tag_ids),
                parent=None if member == 0 else root_id,
                direct_access=member > 0 and rng.random() < 0.3,
                depth=0 if member == 0 else 1,
            )
            # The default language (fr) first, then the others by code, as an export lists them.
            in_english = [("en", _sentence(rng, ENGLISH, 3, 9), rng.random() < 0.8) for _ in range(english)]
            item.formulations = [("fr", _sentence(rng, WORDS, 3, 9), rng.random() < 0.8) for _ in range(french)]
            item.formulations += in_english
            item.answers = [
                records.Answer("en", "Defaut", f"<p>{_sentence(rng, ENGLISH, 10, 30)}</p>"),
                records.Answer("fr", "Defaut", f"<p>{_sentence(rng, WORDS, 10, 30)}</p>", ask_feedback=True),
            ]
            if rng.random() < 0.1:
                item.answers.append(records.Answer("fr", "Pro", f"<p>{_sentence(rng, WORDS, 10, 30)}</p>"))
            yield "items", item
    yield "sentences", records.GlobalSentence("en", "welcome", "Hello, how can I help?")
    yield "sentences", records.GlobalSentence("fr", "welcome", "Bonjour, que puis-je faire pour vous ?")


def write_generated_file(path, items: int, formulations_per_item: int = 5, **options) -> int:
    """Write the generated knowledge base to `path`; returns its size in bytes."""
    writer = KnowledgeBaseWriter(records.Header(bot_name="Generated bot"))
    sections = {
        "languages": ("languages", writer.language, {"default": "fr"}),
        "spaces": ("spaces", writer.space, None),
        "tags": ("tags", writer.tag, None),
        "groups": ("matchingGroups", writer.matching_group, None),
        "items": ("knowledgeItems", writer.knowledge_item, None),
        "sentences": ("globalSentences", writer.global_sentence, None),
    }
    size = 0
    current = None
    with open(path, "wb") as out:
        for section, record in generated_records(items, formulations_per_item, **options):
            if section != current:
                if current is not None:
                    writer.close_section()
                name, _, attrib = sections[section]
                writer.open_section(name, attrib)
                current = section
            sections[section][1](record)
            if writer.pending > 1 << 20:
                size += out.write(writer.take())
        writer.close_section()
        size += out.write(writer.finish())
    return size
