"""A progress bar on a terminal for the import_kb / export_kb commands (large files take a while)."""

import time


def human_bytes(count: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} GB"


class ProgressBar:
    """`update(done)` redraws the bar (at most ten times a second); `finish()` ends its line."""

    def __init__(self, stream, total: int, *, unit: str = "bytes", width: int = 30, enabled: bool = True):
        self.stream = stream
        self.total = max(total, 1)
        self.unit = unit
        self.width = width
        self.enabled = enabled
        self.label = ""
        self.drawn_at = 0.0
        self.started = time.monotonic()

    def update(self, done: int, label: str | None = None, *, force: bool = False):
        if not self.enabled:
            return
        now = time.monotonic()
        if label is not None and label != self.label:
            if self.label:
                self._draw(self.total)
                self.stream.write("\n")
            self.label, force = label, True
        if not force and now - self.drawn_at < 0.1:
            return
        self.drawn_at = now
        self._draw(done)

    def _draw(self, done: int):
        done = min(max(done, 0), self.total)
        filled = round(self.width * done / self.total)
        amount = (
            f"{human_bytes(done)} / {human_bytes(self.total)}" if self.unit == "bytes" else f"{done} / {self.total}"
        )
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r{self.label:<10} [{bar}] {100 * done // self.total:3d}%  {amount}   ")
        self.stream.flush()

    def finish(self):
        if self.enabled and self.label:
            self._draw(self.total)
            self.stream.write(f"  {time.monotonic() - self.started:.1f} s\n")
            self.stream.flush()


class Unended:
    """A management command's output wrapper written without its automatic line ending."""

    def __init__(self, wrapper):
        self.wrapper = wrapper

    def write(self, text: str):
        self.wrapper.write(text, ending="")

    def flush(self):
        self.wrapper.flush()
