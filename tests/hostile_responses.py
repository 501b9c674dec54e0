"""Responses whose shape is hostile to an answer reader, and an item of every kind that reads
one: shared by the bounded-work tests and the distributed ones."""

from __future__ import annotations

# Shapes that cost an answer reader (boxes, tags, the reasoning block, a JSON parser) more than
# linear time, at `size` characters: 140 kB is under the response limit, 2 MB over it.
HOSTILE_SHAPES = {
    "unclosed boxes": lambda size: "\\boxed{" * (size // 7),
    "boxes without braces": lambda size: "\\boxed " * (size // 7),
    "nested boxes": lambda size: "\\boxed{" * (size // 16) + "7" + "}" * (size // 16),
    "boxes in a brace": lambda size: "{" + "\\fbox{\\boxed{\\{" * (size // 15),
    "unclosed tags": lambda size: "<answer>" * (size // 8),
    "reasoning tags": lambda size: "<think>" * (size // 15) + "</think>" * (size // 16),
    "deep brackets": lambda size: "[" * (size // 2) + "]" * (size // 2),
}
# A grader of every kind that reads an answer from the response (a composite: all of them).
GRADERS = {
    "math": {"kind": "math", "answer": "7"},
    "format": {"kind": "format", "template": "boxed"},
    "text": {"kind": "text", "answer": "7", "extract": "boxed"},
    "instructions": {"kind": "instructions", "mode": "loose",
                     "instruction_id_list": ["detectable_format:json_format",
                                             "keywords:existence"],
                     "kwargs": [None, {"keywords": ["seven"]}]},
    "reasoning_gym": {"kind": "reasoning_gym", "task": "basic_arithmetic", "seed": 1,
                      "index": 0, "extract": "boxed"},
    "length": {"kind": "length", "target": 10, "direction": "at_most"},
}
KIND_ITEMS = {**GRADERS, "composite": {"kind": "composite", "graders": [
    {"grader": grader} for grader in GRADERS.values()]}}
