"""The reporting room, above every app: pages that read several apps at once (a bot's analytics: dialogs,
knowledge and live chat). No models; config/urls.py loads its back-office pages."""
