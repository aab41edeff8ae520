"""Learning from what visitors asked and the bot did not understand: misunderstood and reworded inputs
grouped by similarity, with the closest items, turned into formulations or new items, or ignored."""
