"""Times as the chatbox reads them: integer milliseconds since the epoch (serverTime, timestamps)."""

from datetime import datetime

from django.utils import timezone


def epoch_ms(moment: datetime | None = None) -> int:
    return int((moment or timezone.now()).timestamp() * 1000)
