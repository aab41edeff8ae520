"""Routes outside the servlet API (the old servlet paths, mounted at the site root by config/urls.py)."""

urlpatterns: list = []
