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


class VerifierUnavailable(VerifierError):
    """The service could not be reached, or stayed busy (429/503), through every retry."""


class VerifierTimeout(VerifierUnavailable):
    """The call did not finish within its timeout (retries included)."""
