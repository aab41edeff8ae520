"""Routes of this servlet group (mounted under /servlet/api/ and /api/ by config/urls.py)."""

urlpatterns: list = []
