"""Windows that follow one presenter: a room is a random code and the slide it is on.

The presenter's laptop shows the notes, the projector shows only the figure, and either
may hold the clicker: every window whose link carries ``room=<code>`` moves its room and
follows it (polling once a second). The rooms live in this process only, in a small dict
with a size cap and an idle timeout; nothing else is kept. Two windows of one browser reach
the same process behind a load balancer that routes by cookie; a restart forgets the rooms
(each window keeps its own slide and goes on working alone).
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

MAX_ROOMS = 256  # the oldest room is forgotten first
IDLE_S = 12 * 3600.0
CODE = re.compile(r"[A-Za-z0-9_-]{8,16}")


@dataclass(frozen=True)
class Where:
    deck: str  # the link's deck= value
    slide: int


class Rooms:
    """Room code -> where its presenter is. Thread-safe: every session's script thread reads it."""

    def __init__(self, *, capacity: int = MAX_ROOMS, idle_s: float = IDLE_S) -> None:
        self._rooms: OrderedDict[str, tuple[Where, float]] = OrderedDict()
        self._lock = threading.Lock()
        self.capacity, self.idle_s = capacity, idle_s

    def open(self, deck: str, slide: int) -> str:
        """A new room at ``slide`` of ``deck``; returns its code."""
        code = secrets.token_urlsafe(9)  # 12 characters, 72 random bits
        self.move(code, deck, slide)
        return code

    def move(self, code: str, deck: str, slide: int) -> None:
        with self._lock:
            self._rooms[code] = (Where(deck, slide), time.monotonic())
            self._rooms.move_to_end(code)
            while len(self._rooms) > self.capacity:
                self._rooms.popitem(last=False)

    def where(self, code: str) -> Where | None:
        """Where the room is, or None for a code that is unknown, malformed or idle too long."""
        if not CODE.fullmatch(code):
            return None
        with self._lock:
            found = self._rooms.get(code)
            if found is None:
                return None
            if time.monotonic() - found[1] > self.idle_s:
                del self._rooms[code]
                return None
            return found[0]

    def __len__(self) -> int:
        return len(self._rooms)


ROOMS = Rooms()  # the process's rooms (the one piece of state shared between sessions)
