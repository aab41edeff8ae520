"""The learning page's models (misunderstood inputs, ignored groups): they belong to knowledge (their tables and
migrations); the page itself and the code reading dialogs live in dialogs/learning/."""
