"""Exceptions raised by the clients: one base class, so a trainer can catch them all at once."""

from __future__ import annotations

from typing import Any


class VerifierError(Exception):
    """The service refused the request (4xx other than 429) or answered something unusable.

    `status_code` is the HTTP status when there was one; `detail` is the server's error body.
    """

    def __init__(self, message: str, *, status_code: int | None = None, detail: Any = None):
        super().__init__(message)
        self.status_code = status_code
        self.detail = detail


class InvalidItem(VerifierError, ValueError):
    """An item the service cannot take; also a ValueError, since the input is at fault.

    `index` is the item's position in the caller's whole batch (not in the request that
    carried it); `detail` is the server's error body, when the server refused it.
    """

    def __init__(self, message: str, *, index: int, status_code: int | None = None,
                 detail: Any = None):
        super().__init__(message, status_code=status_code, detail=detail)
        self.index = index


class VerifierUnavailable(VerifierError):
    """The service could not be reached, or stayed busy (429/503), through every retry."""


class VerifierTimeout(VerifierUnavailable):
    """The call did not finish within its timeout (retries included)."""


class SessionLost(VerifierError):
    """The session is gone with the worker that held it (HTTP 410): its state is lost; open a
    new one."""
