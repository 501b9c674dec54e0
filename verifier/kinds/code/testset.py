"""Big test sets: compressed payloads, decoded in bounded memory, and subsampling.

A compressed test set (`{"type": "compressed", "data": ...}`) is base64 of gzip or zlib of the
test set's JSON, read as strictly as a request body (nesting past 100 levels, NaN and numbers
past the digit limit are refused, saying where). It travels compressed through the API and the
queue, is decoded once per worker process (and checked once at the API door), and never
unpickled: LiveCodeBench stores its private tests as base64(zlib(pickle(json string))), and
such a pickle is read opcode by opcode (`pickletools`, which runs nothing) and accepted only
if all it holds is one string.

Subsampling (`max_tests` with `sample`) keeps `first` cases, the `longest` inputs, or a
seeded `random` choice; the kept cases run in their original order.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import pickletools
import random
import threading
import zlib
from typing import Any

from pydantic import TypeAdapter, ValidationError

from rlvr_contract import strict_json
from rlvr_contract.dataset_shapes import tests_to_v1
from rlvr_contract.schemas import (
    AssertTests,
    CallTests,
    CompressedTests,
    PlainTests,
    StdioTests,
)
from verifier.service.lru import LRU

DECODED_KEPT_BYTES = 256 * 1024 * 1024  # decoded test sets a worker process keeps (JSON size)
CHECKED_KEPT = 4096  # digests of compressed sets the API has already checked
_CHUNK = 1 << 20
# A pickle of one string: these opcodes and no other (no GLOBAL, REDUCE, BUILD...).
_STRING_PICKLE = frozenset({"PROTO", "FRAME", "SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8",
                            "MEMOIZE", "BINPUT", "LONG_BINPUT", "STOP"})
_plain_tests: TypeAdapter[StdioTests | AssertTests | CallTests] = TypeAdapter(PlainTests)
_decoded: LRU[str, tuple[StdioTests | AssertTests | CallTests, int]] = LRU(
    64, max_weight=DECODED_KEPT_BYTES, weigh=lambda entry: entry[1])
# What admission checked of a compressed set: its skeleton, and how many cases will run.
_checked: LRU[str, tuple[StdioTests | AssertTests | CallTests, int]] = LRU(CHECKED_KEPT)
# Admission reads them in its own thread while the event loop reads them for a chunk's cost.
_CACHES_LOCK = threading.Lock()


class TestSetError(ValueError):
    """A test set that cannot be used; the message starts with the field at fault."""

    def __init__(self, message: str, too_large: bool = False) -> None:
        super().__init__(message)
        self.too_large = too_large


def _inflate(raw: bytes, limit: int) -> bytearray:
    """gzip or zlib data, decompressed to at most `limit` bytes (never more in memory)."""
    if raw[:2] == b"\x1f\x8b":
        wbits = 16 + zlib.MAX_WBITS
    elif len(raw) >= 2 and raw[0] & 0x0F == 8 and int.from_bytes(raw[:2], "big") % 31 == 0:
        wbits = zlib.MAX_WBITS
    else:
        raise TestSetError("tests.data: neither gzip nor zlib data")
    out = bytearray()
    pending = raw
    while pending:  # concatenated gzip members, as `cat a.gz b.gz` makes, are one stream
        inflater = zlib.decompressobj(wbits)
        data = pending
        while data and not inflater.eof:
            try:
                piece = inflater.decompress(data, _CHUNK)
            except zlib.error as exc:
                raise TestSetError(f"tests.data: corrupt compressed data: {exc}") from None
            if len(out) + len(piece) > limit:
                raise TestSetError(f"tests.data: decompresses to more than {limit} bytes "
                                   f"(VERIFIER_MAX_TESTS_BYTES)", too_large=True)
            out += piece
            data = inflater.unconsumed_tail
        if not inflater.eof:
            raise TestSetError("tests.data: the compressed data is truncated")
        pending = inflater.unused_data if wbits != zlib.MAX_WBITS else b""
    return out


def _unwrap_pickled_string(raw: bytearray) -> bytes:
    """The JSON inside a pickle of one string (LiveCodeBench's format), without unpickling."""
    strings: list[str] = []
    try:
        for opcode, argument, _ in pickletools.genops(raw):
            if opcode.name not in _STRING_PICKLE:
                raise TestSetError(f"tests.data: a pickle holding more than a string "
                                   f"({opcode.name}) is refused: pickles are never loaded")
            if isinstance(argument, str):
                strings.append(argument)
    except (ValueError, EOFError) as exc:
        if isinstance(exc, TestSetError):
            raise
        raise TestSetError(f"tests.data: a malformed pickle: {exc}") from None
    if len(strings) != 1:
        raise TestSetError("tests.data: a pickle of anything but one string is refused")
    return strings[0].encode()


def _as_tests(value: Any) -> Any:
    """The decoded JSON as a TESTS object: v1 and dataset shapes, or a list of cases."""
    if isinstance(value, list):
        if not all(isinstance(case, dict) and "input" in case for case in value):
            raise TestSetError("tests.data: a list of test cases needs {input, output} objects")
        if any(case.get("testtype") == "functional" for case in value):
            raise TestSetError("tests.data: functional (call) cases need a fn_name: send "
                               "them as {\"type\": \"call\", ...}")
        return {"type": "stdio", "cases": [{"input": case["input"], "output": case.get("output")}
                                            for case in value]}
    return tests_to_v1(value)


def decode(tests: CompressedTests, max_bytes: int) -> StdioTests | AssertTests | CallTests:
    """The test set a compressed payload holds (its own sampling not yet applied). Raises
    TestSetError. Decoded sets are kept (by the digest of `data`) for the next items."""
    digest = hashlib.sha256(tests.data.encode()).hexdigest()
    with _CACHES_LOCK:
        kept = _decoded.get(digest)
    if kept is None:
        kept = _decode(tests, max_bytes)
        with _CACHES_LOCK:
            _decoded[digest] = kept
    return kept[0]


def _decode(tests: CompressedTests, max_bytes: int
            ) -> tuple[StdioTests | AssertTests | CallTests, int]:
    """The decoded test set and the size of its JSON."""
    try:
        raw = base64.b64decode(tests.data, validate=True)
    except (binascii.Error, ValueError):
        raise TestSetError("tests.data: not base64") from None
    text = _inflate(raw, max_bytes)
    del raw
    if text[:1] == b"\x80":  # a pickle's PROTO opcode
        text = _unwrap_pickled_string(text)
    try:
        value = strict_json.loads(text)
    except strict_json.JSONRefused as exc:  # too deep, NaN, a number past the digit limit
        where = ".".join(map(str, exc.path))
        raise TestSetError(f"tests.data: {where + ': ' if where else ''}{exc.reason}") from None
    except ValueError as exc:
        raise TestSetError(f"tests.data: not JSON: {exc}") from None
    size = len(text)
    del text
    try:
        decoded = _plain_tests.validate_python(_as_tests(value))
    except (ValidationError, ValueError) as exc:
        if isinstance(exc, TestSetError):
            raise
        raise TestSetError(f"tests.data: not a test set: {_first_error(exc)}") from None
    return decoded, size


def _first_error(exc: ValidationError | ValueError) -> str:
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        return f"{where}: {error['msg']}" if where else error["msg"]
    return str(exc)


def check(tests: CompressedTests, max_bytes: int) -> StdioTests | AssertTests | CallTests:
    """At the API door: the decoded test set without its cases (what admission checks), or
    TestSetError. Keeps only that skeleton, by digest, so a GRPO group sending one test set
    sixteen times is decoded once, and the API holds no decoded set."""
    return _apply_sampling(_checked_entry(tests, max_bytes)[0], tests)


def checked_case_count(tests: CompressedTests, max_bytes: int) -> int:
    """How many cases of a compressed set will run (its own sampling applied), for the
    item's budget at the API door; decoded as `check` decodes (once per distinct payload)."""
    return _checked_entry(tests, max_bytes)[1]


def _checked_entry(tests: CompressedTests, max_bytes: int
                   ) -> tuple[StdioTests | AssertTests | CallTests, int]:
    digest = hashlib.sha256(tests.data.encode()).hexdigest()
    with _CACHES_LOCK:
        entry = _checked.get(digest)
    if entry is None:
        decoded = _apply_sampling(_decode(tests, max_bytes)[0], tests)
        if isinstance(decoded, AssertTests):
            entry = decoded, 1
        else:
            entry = decoded.model_copy(update={"cases": []}), len(sampled_indices(decoded))
        with _CACHES_LOCK:
            _checked[digest] = entry
    return entry


def _apply_sampling(tests: StdioTests | AssertTests | CallTests, envelope: CompressedTests
                    ) -> StdioTests | AssertTests | CallTests:
    if envelope.max_tests is None:
        return tests
    if isinstance(tests, AssertTests):
        raise TestSetError("tests.max_tests: assert tests have no cases to subsample")
    if isinstance(tests, StdioTests) and tests.subtasks is not None:
        raise TestSetError("tests.max_tests: subsampling would break the subtasks")
    return tests.model_copy(update={"max_tests": envelope.max_tests,
                                    "sample": envelope.sample, "seed": envelope.seed})


def sampled_indices(tests: StdioTests | CallTests) -> list[int]:
    """The cases to run, in their original order."""
    count = len(tests.cases)
    if tests.max_tests is None or tests.max_tests >= count:
        return list(range(count))
    keep = tests.max_tests
    if tests.sample == "first":
        return list(range(keep))
    if tests.sample == "longest":
        sizes = ([len(case.input) for case in tests.cases] if isinstance(tests, StdioTests)
                 else [len(json.dumps(case.args)) for case in tests.cases])
        chosen = sorted(range(count), key=lambda i: (-sizes[i], i))[:keep]
    else:
        chosen = random.Random(tests.seed).sample(range(count), keep)
    return sorted(chosen)


def prepare(tests: Any, max_bytes: int) -> tuple[StdioTests | AssertTests | CallTests,
                                                 dict[str, Any]]:
    """The concrete tests to run (decoded, subsampled) and what sampling did, for the detail."""
    if isinstance(tests, CompressedTests):
        tests = _apply_sampling(decode(tests, max_bytes), tests)
    if isinstance(tests, AssertTests) or tests.max_tests is None:
        return tests, {}
    kept = sampled_indices(tests)
    if len(kept) == len(tests.cases):
        return tests, {}
    sampling = {"from": len(tests.cases), "kept": len(kept), "by": tests.sample}
    if tests.sample == "random":
        sampling["seed"] = tests.seed
    return tests.model_copy(update={"cases": [tests.cases[i] for i in kept]}), sampling
