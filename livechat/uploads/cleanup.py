"""A visitor's file leaves the disk with its row: deleting a dialog (the retention purge, the back office)
deletes its uploads, and each one's file once the deletion is committed."""

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from ..models import ChatUpload
from . import storage


@receiver(post_delete, sender=ChatUpload, dispatch_uid="livechat.uploads.forget_file")
def forget_file(sender, instance: ChatUpload, **kwargs):
    stored_name = instance.stored_name
    # Only once the rows are gone for good: a rolled-back deletion keeps its files.
    transaction.on_commit(lambda: storage.delete(stored_name))
