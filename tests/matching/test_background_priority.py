"""Background matching threads (workers.lower_priority) run nicer than requests, never less nice than
the process they serve."""

import os
import threading

import pytest

from knowledge.matching import workers

pytestmark = pytest.mark.skipif(not hasattr(os, "getpriority"), reason="nice values per thread are Linux's")


def nice_after_lowering(start: int) -> int:
    """The nice value a fresh thread at `start` ends with once it called lower_priority."""
    seen = []

    def run():
        me = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, me, start)
        workers.lower_priority()
        seen.append(os.getpriority(os.PRIO_PROCESS, me))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return seen[0]


def test_a_thread_at_the_usual_priority_is_lowered():
    here = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    if here > workers.BACKGROUND_NICE:
        pytest.skip("this process already runs nicer than the background value")
    assert nice_after_lowering(here) == workers.BACKGROUND_NICE


def test_a_thread_already_nicer_keeps_its_priority():
    assert nice_after_lowering(workers.BACKGROUND_NICE + 5) == workers.BACKGROUND_NICE + 5
