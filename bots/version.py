"""The build identifier the server status reports: the package version and the git commit."""

import functools
import subprocess
from pathlib import Path

VERSION = "0.1.0"


@functools.cache
def commit() -> str:
    root = Path(__file__).resolve().parent.parent
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, timeout=2, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def version_string() -> str:
    return f"{VERSION}+{commit()}"
