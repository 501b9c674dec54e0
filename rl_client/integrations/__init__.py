"""Adapters for RL frameworks: `trl`, `verl`, `openrlhf` (each imported only when used)."""
