"""`manage.py seed_demo`: the demo bot, its knowledge and the demo administrator (idempotent)."""

from django.conf import settings
from django.core.management.base import BaseCommand

from knowledge.demo.seed import BOT_UUID, ensure_demo_admin, seed_demo_bot


class Command(BaseCommand):
    help = "Create the demo bot (fixed UUID) with its knowledge, and the demo administrator."

    def add_arguments(self, parser):
        parser.add_argument("--reset", action="store_true", help="Rebuild the demo bot's knowledge from scratch.")
        parser.add_argument("--quiet-urls", action="store_true", help="Do not print the URLs.")
        parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="Where the server will listen.")

    @staticmethod
    def password_hint(password: str | None) -> str:
        """The generated password is shown once, when it is made; later runs say where it is kept."""
        if password:
            return f"password {password}"
        if (settings.DATA_DIR / "demo-admin-password").exists():
            return f"password as first printed, kept in {settings.DATA_DIR / 'demo-admin-password'}"
        return "your password"

    def handle(self, *args, reset=False, quiet_urls=False, base_url="http://127.0.0.1:8000", **options):
        bot, created = seed_demo_bot(reset=reset)
        login, password = ensure_demo_admin()
        items = bot.knowledge_items.count()
        self.stdout.write(f"Demo bot {'created' if created else 'already there'}: {bot.name} ({items} knowledge items)")
        if quiet_urls:
            return
        base = base_url.rstrip("/")
        self.stdout.write(
            "\n".join(
                [
                    "",
                    f"  Demo bot UUID : {BOT_UUID}",
                    f"  Demo chat     : {base}/demo/",
                    f"  Back office   : {base}/admin/   (login {login}, {self.password_hint(password)})",
                    f"  Live chat     : {base}/livechat/   (operators' console; the same login)",
                    f"  API console   : {base}/servlet/api/doc/",
                    f"  Server status : {base}/servlet/api/serverstatus",
                    "",
                ]
            )
        )
