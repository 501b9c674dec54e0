"""Operator-facing web pages of the service (the status page at `/`)."""
