"""A bounded mapping that forgets the entries used least recently: the project's one LRU.

Standard library only, because the jail's artefact index uses it too: it is copied into the jail
beside the jail's own programs (see `verifier/sandbox/jail/__init__.py`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """At most `max_entries` entries and, given `weigh`, at most `max_weight` of weight in all
    (the newest entry stays even when it alone weighs more). `evicted(key, value)` is told of
    every entry dropped to make room, for whatever the entry stands for outside the mapping.
    """

    def __init__(self, max_entries: int, *, max_weight: int | None = None,
                 weigh: Callable[[V], int] | None = None,
                 evicted: Callable[[K, V], None] | None = None) -> None:
        if max_weight is not None and weigh is None:
            raise ValueError("max_weight needs weigh")
        self.max_entries = max_entries
        self.max_weight = max_weight
        self._weigh = weigh
        self._evicted = evicted
        self._data: OrderedDict[K, V] = OrderedDict()
        self.weight = 0

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: K) -> bool:
        """Whether `key` is held; unlike `get`, this does not count as a use."""
        return key in self._data

    def get(self, key: K) -> V | None:
        """The value, now the most recently used; None if absent."""
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def touch(self, key: K) -> None:
        """Count a use of `key`, if held."""
        if key in self._data:
            self._data.move_to_end(key)

    def __setitem__(self, key: K, value: V) -> None:
        if self._weigh is not None:
            if key in self._data:
                self.weight -= self._weigh(self._data[key])
            self.weight += self._weigh(value)
        self._data[key] = value
        self._data.move_to_end(key)
        self._make_room()

    def _make_room(self) -> None:
        while len(self._data) > self.max_entries or (
                self.max_weight is not None and self.weight > self.max_weight
                and len(self._data) > 1):
            key, value = self._data.popitem(last=False)
            if self._weigh is not None:
                self.weight -= self._weigh(value)
            if self._evicted is not None:
                self._evicted(key, value)
