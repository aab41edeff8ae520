"""The tag tree in the list: each tag's place (parents before their children, siblings by name) and depth."""


def tree_order(rows) -> tuple[dict[int, int], dict[int, int]]:
    """From (id, parent id, name, bot id) rows: {id: position} and {id: depth}. A tag whose parent is not
    among the rows (or a cycle) starts a tree of its own."""
    rows = list(rows)
    ids = {row[0] for row in rows}
    children: dict[int | None, list] = {}
    for pk, parent_id, name, bot_id in rows:
        key = parent_id if parent_id in ids else None
        children.setdefault(key, []).append((bot_id, name.lower(), pk))
    order: dict[int, int] = {}
    depth: dict[int, int] = {}

    def visit(parent, level):
        for _, _, pk in sorted(children.get(parent, ())):
            if pk in order:
                continue
            order[pk] = len(order)
            depth[pk] = level
            visit(pk, level + 1)

    visit(None, 0)
    for pk in sorted(ids - order.keys()):  # tags caught in a cycle: listed flat after the tree
        order[pk] = len(order)
        depth[pk] = 0
    return order, depth
