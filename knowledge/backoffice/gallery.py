"""The gallery in the back office: thumbnails in the list, a preview on the image's page, and uploads
checked to be the raster image they claim (uploaded files are untrusted)."""

import base64

from django import forms
from django.contrib import admin
from django.db.models.functions import Length
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from unfold.widgets import UnfoldAdminFileFieldWidget

from bots.admin_scoping import BotScopedAdmin

# Raster types only, by their first bytes: an SVG or HTML file could run script when opened directly.
SIGNATURES = {
    b"\x89PNG\r\n\x1a\n": "image/png",
    b"\xff\xd8\xff": "image/jpeg",
    b"GIF87a": "image/gif",
    b"GIF89a": "image/gif",
}
MAX_BYTES = 5 * 1024 * 1024


def sniff(content: bytes) -> str:
    """The image type the bytes are, or "" (WebP: RIFF....WEBP)."""
    for signature, media_type in SIGNATURES.items():
        if content.startswith(signature):
            return media_type
    if content[:4] == b"RIFF" and content[8:12] == b"WEBP":
        return "image/webp"
    return ""


class GalleryImageForm(forms.ModelForm):
    upload = forms.FileField(
        label=_("Image"),
        required=False,
        widget=UnfoldAdminFileFieldWidget,
        help_text=_("PNG, JPEG, GIF or WebP, at most 5 MB."),
    )

    class Meta:
        fields = ["bot", "name", "upload"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "name" in self.fields:  # empty: the uploaded file's name
            self.fields["name"].required = False

    def clean(self):
        data = super().clean()
        upload = data.get("upload")
        if upload is None:
            if not self.instance.pk:
                self.add_error("upload", gettext("Choose an image to upload."))
            return data
        if upload.size > MAX_BYTES:
            self.add_error("upload", gettext("The image is larger than 5 MB."))
            return data
        content = upload.read()
        media_type = sniff(content)
        if not media_type:
            self.add_error("upload", gettext("This file is not a PNG, JPEG, GIF or WebP image."))
            return data
        self.instance.content = content
        self.instance.media_type = media_type
        if not data.get("name"):
            data["name"] = upload.name[:255]
        return data


class GalleryImageAdmin(BotScopedAdmin):
    form = GalleryImageForm
    list_display = ["thumbnail", "name", "media_type", "size", "bot", "created_at"]
    list_display_links = ["thumbnail", "name"]
    list_filter = [("bot", admin.RelatedOnlyFieldListFilter), "media_type"]
    search_fields = ["name"]
    readonly_fields = ["preview", "media_type", "created_at"]
    fields = [("bot", "name"), "upload", "preview", ("media_type", "created_at")]

    def get_queryset(self, request):
        # The list shows thumbnails through image_view: the bytes are not read for every row.
        return super().get_queryset(request).defer("content").annotate(content_size=Length("content"))

    def get_urls(self):
        view = path(
            "<int:object_id>/image/",
            self.admin_site.admin_view(self.image_view),
            name="knowledge_galleryimage_image",
        )
        return [view, *super().get_urls()]

    def image_view(self, request, object_id):
        image = get_object_or_404(self.get_queryset(request), pk=object_id)
        if not self.has_view_permission(request, image):
            raise Http404
        content = bytes(image.content or b"")
        media_type = sniff(content)
        if not media_type:  # stored before uploads were checked (an import): never served as is
            raise Http404
        response = HttpResponse(content, content_type=media_type)
        response["X-Content-Type-Options"] = "nosniff"
        response["Content-Security-Policy"] = "default-src 'none'"
        response["Cache-Control"] = "private, max-age=300"
        return response

    @admin.display(description=_("Size"), ordering="content_size")
    def size(self, image):
        size = image.content_size or 0
        return f"{size / 1024:.0f} KB" if size >= 1024 else f"{size} B"

    @admin.display(description="")
    def thumbnail(self, image):
        return format_html(
            '<img src="{}" alt="" loading="lazy" style="height:40px;width:56px;object-fit:cover" '
            'class="rounded-default border border-base-200 dark:border-base-700">',
            reverse("admin:knowledge_galleryimage_image", args=[image.pk]),
        )

    @admin.display(description=_("Preview"))
    def preview(self, image):
        content = bytes(image.content or b"") if image.pk else b""
        media_type = sniff(content)
        if not media_type:
            return "—"
        data = base64.b64encode(content).decode()
        return format_html('<img src="data:{};base64,{}" style="max-width:320px" alt="">', media_type, data)
