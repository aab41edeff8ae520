"""A gallery image at a public address, for the answers that show it (the chatbox runs on the visitor's
site and loads it from here). Only the raster image the bytes are is served, never a script's page."""

from django.http import Http404, HttpResponse
from django.urls import path
from django.views.decorators.http import require_safe

from knowledge.backoffice.gallery import sniff
from knowledge.models import GalleryImage


@require_safe
def gallery_image(request, bot_uuid, image_id: int):
    image = GalleryImage.objects.filter(pk=image_id, bot__uuid=bot_uuid).only("content").first()
    content = bytes(image.content or b"") if image else b""
    media_type = sniff(content)
    if not media_type:  # unknown, another bot's, or stored by an import without being an image
        raise Http404
    response = HttpResponse(content, content_type=media_type)
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'"
    response["Cross-Origin-Resource-Policy"] = "cross-origin"  # shown inside the visitor's site
    response["Cache-Control"] = "public, max-age=3600"
    return response


urlpatterns = [path("gallery/<uuid:bot_uuid>/<int:image_id>", gallery_image, name="knowledge-gallery-image")]
