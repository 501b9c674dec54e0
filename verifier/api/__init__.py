"""The HTTP API (contract v1 in DESIGN.md §3): thin routers over `VerificationService`."""
