"""The knowledge editor's parts in the back office (languages and spaces of the item's bot, friendlier
fields, the answer preview, the conflict warning, list filters and the "test the bot" box)."""
