"""The server status (servlet-api.md §4 Server status): real checks of what backs each application,
volumes counted from the stored state, and the chat-call meters."""
