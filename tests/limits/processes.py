"""What a server's processes hold in memory: resident bytes now, and the peak since a reset (Linux /proc)."""

from pathlib import Path


def _status_bytes(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise LookupError(f"{field} not in /proc/{pid}/status")


def resident(pids: list[int]) -> int:
    """Resident memory of these processes together."""
    return sum(_status_bytes(pid, "VmRSS") for pid in pids)


def reset_peaks(pids: list[int]) -> None:
    """Each process's peak resident memory (VmHWM) starts again from what it holds now."""
    for pid in pids:
        Path(f"/proc/{pid}/clear_refs").write_text("5")


def peaks(pids: list[int]) -> int:
    """The peak resident memory of each process since its reset, added up (at least their combined peak)."""
    return sum(_status_bytes(pid, "VmHWM") for pid in pids)


def receive_buffer_max() -> int:
    """The most a socket's receive buffer may hold (tcp_rmem's maximum): bytes a server's kernel takes
    from a client on its own, before the process reads them or not."""
    return int(Path("/proc/sys/net/ipv4/tcp_rmem").read_text().split()[2])
