"""The External matchers servlet group: the knowledge base as Rasa NLU training data, both ways."""
