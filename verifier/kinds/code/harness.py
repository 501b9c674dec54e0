"""The worker's two ends of a harnessed run: the payload it hands the jail, the records back.

Python runs get the harness's payload (pyharness.py); another language's assert run gets the
record its epilogue copies to the channel (appended.py). Either way the records that count
carry the run's nonce; whatever else is on the channel is skipped, never trusted.
"""

from __future__ import annotations

import json
import marshal
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Report:
    """A run's records: the last end record (None if it wrote none) and the call sites'
    records (`site`: a recorded value or a checked assert), in order."""

    end: dict | None = None
    sites: list[dict] = field(default_factory=list)

    @property
    def compile_error(self) -> str | None:
        """The harness's word that the program did not compile in the jail, if it said so."""
        if self.end is None or "compile_error" not in self.end:
            return None
        return str(self.end["compile_error"])


def payload(mode: str, fields: dict[str, Any]) -> bytes:
    """The harness's payload: its mode on the first line (all the harness reads before it
    forks the solution's process, see pyharness.py), then the fields as marshal data (plain
    lists, dicts, strings and numbers; format 4, which every Python 3 the jail may run reads).
    Marshal, not JSON: the run loads it with one C call, where JSON's decoder, Python code,
    would write to (and so copy) some 45 more pages of the warm interpreter it forked from."""
    return f"{mode}\n".encode() + marshal.dumps(fields, 4)


def report(channel: bytes, nonce: str) -> Report:
    """The records on the channel with this run's nonce, sorted into the end and the sites."""
    records = []
    for line in channel.splitlines():
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if type(record) is dict and record.get("nonce") == nonce:
            records.append(record)
    ends = [r for r in records if "site" not in r]
    return Report(ends[-1] if ends else None, [r for r in records if "site" in r])
