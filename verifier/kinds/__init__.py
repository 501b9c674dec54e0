"""The reward kinds: one module or package per item kind, and the answer region they share."""
