"""Analytics per bot and period: dialogs, interactions, answer rates, feedback, top knowledge, live chat."""
