"""Racket rackunit tests as calls: MultiPL-E's

    (require rackunit)
    (define (test-humaneval)
      (let (( candidate f))
        (check-within (candidate ARGS) EXPECTED 0.001)    ; check-equal? in older releases
        ...))
    (test-humaneval)

and top-level checks (`(define candidate f)`, `(check-equal? (f 1 2) 3)`). Recognised:
`check-equal?`, `check-not-equal?`, `check-within`, `check-eqv?` (numbers and booleans),
`check-true`, `check-false`, `check-not-false`, a message after them, the call on either side;
CALL is `(f ARG ...)` with literal arguments (copied verbatim), EXPECTED a literal: numbers
(exact integers and rationals, flonums, `+inf.0`), strings, booleans, `(list ...)`, quoted
lists, `'()`, `empty`, `(vector ...)`, `#(...)`, `#hash((k . v) ...)`, `(hash k v ...)`.
Values compare as rackunit does: `equal?` (an exact 1 is not 1.0, 0.0 is not -0.0, NaN is
itself, a mutable hash is not an immutable one) and `check-within`'s equal?/within (numbers of
either exactness within the tolerance, recursively).

The program is a module of ours (`#lang racket/base`) that holds the solution as a string,
reads it (its `#lang` and all) and declares it as a module of its own, then finds the tested
functions in that module's namespace (a name bound to syntax, as `define/contract` binds it,
evaluated there: the function behind its contract). The solution's definitions and macros
(`check-equal?`, `require`, `#%app`, `exit`) live in its own module: nothing in ours refers to
them. The driver then makes the calls in order and records each value by what it is (an
impersonator, whose accessors are the solution's, as a value that equals nothing).

In-process tests (anything else) run the same way, the tests read and evaluated at runtime in a
namespace of their own with `racket` and `rackunit`, the solution's definitions copied in (but
of names these give; one bound to syntax as the value its name evaluates to, if any), and
rackunit's checks replaced by ours (over `equal?` and `exit` as they were before the solution
ran): a solution's own `check-equal?`, `exit`, `exit-handler` or `current-check-handler` do not
reach them. Rackunit forms we do not replace, and the run's record, still can (README)."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

from verifier.kinds.code.dialects.core import (
    CallsPlan,
    Check,
    Dialect,
    NotPlainCalls,
    Site,
    sites_within_bounds,
)
from verifier.kinds.code.dialects.scanner import Escape, character, resolve, simple, text_of
from verifier.kinds.code.dialects.sexp import Node, read
from verifier.kinds.code.dialects.typed_equal import map_literal
from verifier.kinds.code.dialects.values import Map

_CHECKS = {"check-equal?": 2, "check-not-equal?": 2, "check-within": 3, "check-eqv?": 2,
           "check-true": 1, "check-false": 1, "check-not-false": 1}
_NOT_CALLEES = {"list", "quote", "vector", "hash", "cons", "let", "define", "lambda", "if",
                "cond", "begin", "require", "void", *_CHECKS}

# --------------------------------------------------------------------------- literals

_STRING_ESCAPES: list[Escape] = [
    (re.compile(r"[0-7]{1,3}"), lambda found: chr(int(found.group(), 8))),
    (re.compile(r"x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})"),
     lambda found: character(int(next(group for group in found.groups() if group), 16))),
    (re.compile(r"\n[ \t]*"), lambda found: ""),
    simple({"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "v": "\v", "f": "\f",
            "e": "\x1b", "\\": "\\", '"': '"', "'": "'"}),
]


def string_value(text: str) -> str:
    return text_of(resolve(text[1:-1], _STRING_ESCAPES))

_SPECIAL = {"+inf.0": math.inf, "-inf.0": -math.inf, "+nan.0": math.nan, "-nan.0": math.nan,
            "+inf.f": math.inf, "-inf.f": -math.inf, "+nan.f": math.nan}


def number_value(text: str) -> int | float | Fraction | None:
    """A Racket number (exact integer, exact ratio, flonum), or None if the atom is not one."""
    if text in _SPECIAL:
        return _SPECIAL[text]
    if re.fullmatch(r"[+-]?[0-9]+", text):
        return int(text)
    if re.fullmatch(r"[+-]?[0-9]+/[0-9]+", text):
        numerator, denominator = text.split("/")
        if int(denominator) == 0:
            raise NotPlainCalls("a division by zero")
        value = Fraction(int(numerator), int(denominator))
        return int(value) if value.denominator == 1 else value
    if re.fullmatch(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", text):
        return float(text)
    return None


def literal(node: Node, depth: int = 0, quoted: bool = False) -> Any:
    """The value of a literal datum (`quoted`: inside a quote, where lists are data)."""
    if depth > 64:
        raise NotPlainCalls("a literal nested too deep")
    if node.kind == "string":
        return string_value(node.text)
    if node.kind == "boolean":
        return node.text in ("#t", "#true")
    if node.kind == "char":
        raise NotPlainCalls(f"line {node.line}: a char expected")
    if node.kind == "atom":
        number = number_value(node.text)
        if number is not None:
            return number
        if not quoted and node.text in ("empty", "null"):
            return []
        raise NotPlainCalls(f"line {node.line}: {node.text!r} is not a literal")
    if node.kind == "quote":
        if node.text != "'":
            raise NotPlainCalls(f"line {node.line}: a quasiquote")
        return literal(node.items[0], depth + 1, True)
    if node.kind == "vector":
        return tuple(literal(item, depth + 1, True) for item in node.items)
    if node.kind == "hash":
        return map_literal([_pair(item, depth + 1) for item in node.items])
    if quoted:
        return [literal(item, depth + 1, True) for item in node.items]
    head = node.head()
    arguments = node.items[1:]
    if head == "list":
        return [literal(item, depth + 1) for item in arguments]
    if head == "vector":
        return tuple(literal(item, depth + 1) for item in arguments)
    if head == "quote" and len(arguments) == 1:
        return literal(arguments[0], depth + 1, True)
    if head == "hash" and len(arguments) % 2 == 0:
        return map_literal([(literal(arguments[i], depth + 1), literal(arguments[i + 1], depth + 1))
                            for i in range(0, len(arguments), 2)])
    if head == "cons" and len(arguments) == 2:
        rest = literal(arguments[1], depth + 1)
        if type(rest) is not list:
            raise NotPlainCalls(f"line {node.line}: a pair")
        return [literal(arguments[0], depth + 1), *rest]
    raise NotPlainCalls(f"line {node.line}: not a literal")


def _pair(node: Node, depth: int) -> tuple[Any, Any]:
    """`(k . v)` in a `#hash(...)`."""
    if node.kind != "list" or len(node.items) != 3 or node.items[1].text != ".":
        raise NotPlainCalls(f"line {node.line}: a hash entry that is not a pair")
    return literal(node.items[0], depth, True), literal(node.items[2], depth, True)


def _argument(node: Node, depth: int = 0) -> None:
    """An argument of a call: a literal, chars and symbols allowed in quoted data."""
    if node.kind == "char":
        return
    if node.kind == "quote" and node.text == "'" and _datum(node.items[0], depth):
        return
    if node.kind == "list" and node.head() in ("list", "vector", "hash", "cons"):
        for item in node.items[1:]:
            _argument(item, depth + 1)
        return
    literal(node)


def _datum(node: Node, depth: int) -> bool:
    if depth > 64:
        raise NotPlainCalls("a literal nested too deep")
    if node.kind in ("list", "vector", "hash"):
        return all(_datum(item, depth + 1) for item in node.items)
    return node.kind in ("atom", "string", "char", "boolean")


# --------------------------------------------------------------------------- judging


def racket_equal(value: Any, expected: Any, tolerance: float | None = None) -> bool:
    """`equal?`, or with a tolerance `check-within`'s equal?/within."""
    if _number(expected):
        if not _number(value):
            return False
        if tolerance is not None:
            try:
                return abs(value - expected) <= tolerance
            except (OverflowError, TypeError):
                return False
        if type(value) is not type(expected):
            return False
        if type(value) is float:
            return (value == expected and math.copysign(1, value) == math.copysign(1, expected)
                    ) or (math.isnan(value) and math.isnan(expected))
        return value == expected
    if type(expected) in (bool, str, bytes):
        return type(value) is type(expected) and value == expected
    if type(expected) in (list, tuple):
        return (type(value) is type(expected) and len(value) == len(expected) and all(
            racket_equal(v, e, tolerance) for v, e in zip(value, expected, strict=True)))
    if isinstance(expected, Map):
        if not isinstance(value, Map) or len(value.pairs) != len(expected.pairs):
            return False
        for key, wanted in expected.pairs:
            found = [v for k, v in value.pairs if racket_equal(k, key)]
            if len(found) != 1 or not racket_equal(found[0], wanted, tolerance):
                return False
        return True
    return False


def _number(value: Any) -> bool:
    return type(value) in (int, float, Fraction)


# --------------------------------------------------------------------------- the program


def _quoted(text: str) -> str:
    """`text` as a Racket string literal: nothing in it can end the literal."""
    out = []
    for char in text:
        if char in '\\"':
            out.append("\\" + char)
        elif (ord(char) < 32 and char not in "\n\t") or 0xD800 <= ord(char) <= 0xDFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


# Our module: the solution read from a string and declared as a module of its own,
# `verifier-solution`, in our registry; `verifier-function` finds what it defines or imports.
_LOADER = r"""#lang racket/base
(require (only-in racket/list empty))
(define-namespace-anchor verifier-anchor)
(define verifier-exit (exit-handler))
(define verifier-registry (namespace-anchor->empty-namespace verifier-anchor))
(parameterize ([current-namespace verifier-registry])
  (namespace-require '(only racket/base module)))
(parameterize ([current-namespace verifier-registry]
               [read-accept-reader #t]
               [read-accept-lang #t]
               [current-module-declare-name (make-resolved-module-path 'verifier-solution)])
  (define port (open-input-string SOURCE))
  (port-count-lines! port)
  (eval (read-syntax "main.rkt" port)))
(parameterize ([current-namespace verifier-registry])
  (dynamic-require ''verifier-solution #f))
(define verifier-solution
  (parameterize ([current-namespace verifier-registry])
    (module->namespace ''verifier-solution)))
(define (verifier-expression name)
  (parameterize ([current-namespace verifier-solution])
    (eval (namespace-symbol->identifier name))))
(define (verifier-function name)
  (namespace-variable-value name #t (lambda () (verifier-expression name)) verifier-solution))
"""
_SERIALISER = r"""
(define (verifier-text value out)
  (write-string "\"" out)
  (for ([c (in-string value)])
    (define code (char->integer c))
    (cond [(eqv? c #\") (write-string "\\\"" out)]
          [(eqv? c #\\) (write-string "\\\\" out)]
          [(and (>= code 32) (< code 127)) (write-char c out)]
          [(> code #xFFFF)
           (define low (- code #x10000))
           (verifier-unit (+ #xD800 (quotient low 1024)) out)
           (verifier-unit (+ #xDC00 (remainder low 1024)) out)]
          [else (verifier-unit code out)]))
  (write-string "\"" out))
(define (verifier-unit code out)
  (write-string "\\u" out)
  (define digits (number->string code 16))
  (write-string (make-string (- 4 (string-length digits)) #\0) out)
  (write-string digits out))
(define (verifier-put value out budget)
  (set-box! budget (- (unbox budget) 1))
  (when (< (unbox budget) 0) (raise 'verifier-too-large))
  (cond
    ; An impersonator's accessors are the solution's (a vector whose refs read other values); a
    ; chaperone's (a contract's) can only return what is there.
    [(and (impersonator? value) (not (chaperone? value)))
     (write-string "[\"x\",\"impersonator\"]" out)]
    [(boolean? value) (write-string (if value "true" "false") out)]
    [(exact-integer? value) (write-string (number->string value) out)]
    [(and (rational? value) (exact? value))
     (write-string (format "[\"q\",\"~a\",\"~a\"]" (numerator value) (denominator value)) out)]
    [(flonum? value)
     (write-string (cond [(not (= value value)) "[\"f\",\"nan\"]"]
                         [(= value +inf.0) "[\"f\",\"inf\"]"]
                         [(= value -inf.0) "[\"f\",\"-inf\"]"]
                         [else (number->string value)])
                   out)]
    [(string? value) (verifier-text value out)]
    [(bytes? value)
     (write-string "[\"b\",\"" out)
     (for ([b (in-bytes value)])
       (write-string (string (string-ref "0123456789abcdef" (quotient b 16))
                             (string-ref "0123456789abcdef" (remainder b 16))) out))
     (write-string "\"]" out)]
    [(list? value)
     (write-string "[\"l\"" out)
     (for ([item (in-list value)]) (write-string "," out) (verifier-put item out budget))
     (write-string "]" out)]
    [(vector? value)
     (write-string "[\"t\"" out)
     (for ([item (in-vector value)]) (write-string "," out) (verifier-put item out budget))
     (write-string "]" out)]
    [(and (hash? value) (immutable? value) (hash-equal? value))
     (write-string "[\"m\"" out)
     (for ([(key item) (in-hash value)])
       (write-string "," out) (verifier-put key out budget)
       (write-string "," out) (verifier-put item out budget))
     (write-string "]" out)]
    [else (write-string "[\"x\",\"other\"]" out)]))
(define (verifier-record site value)
  (define out (open-output-string))
  (write-string (format "[~a," site) out)
  (with-handlers ([(lambda (e) (eq? e 'verifier-too-large))
                   (lambda (e)
                     (set! out (open-output-string))
                     (write-string (format "[~a,[\"x\",\"too large\"]" site) out))])
    (verifier-put value out (box 10000000)))
  (write-string "]\n" out)
  (call-with-output-file "/proc/self/fd/3" #:exists 'append
    (lambda (channel) (write-string (get-output-string out) channel))))
"""


class RacketDialect(Dialect):
    language = "racket"

    def plan(self, tests: str) -> CallsPlan:
        forms = read(tests)
        aliases: dict[str, str] = {}
        checks: list[Node] = []
        suites: dict[str, list[Node]] = {}
        runs: list[str] = []
        for form in forms:
            head = form.head()
            if head == "require":
                if not all(item.kind == "atom" and item.text.startswith("rackunit")
                           for item in form.items[1:]):
                    raise NotPlainCalls(f"line {form.line}: a require of something else")
            elif head == "define" and len(form.items) == 3 and form.items[1].kind == "atom":
                _alias(form, aliases)
            elif (head == "define" and len(form.items) >= 3 and form.items[1].kind == "list"
                  and len(form.items[1].items) == 1 and form.items[1].items[0].kind == "atom"):
                name = form.items[1].items[0].text
                if name in suites or name in aliases:
                    raise NotPlainCalls(f"line {form.line}: {name!r} defined twice")
                suites[name] = form.items[2:]
            elif head in suites and len(form.items) == 1:
                runs.append(head)
                checks += _suite(suites[head], aliases)
            elif head in _CHECKS:
                checks.append(form)
            else:
                raise NotPlainCalls(f"line {form.line}: a form that is not plain calls")
        if sorted(runs) != sorted(suites) or len(set(runs)) != len(runs):
            raise NotPlainCalls("a test function not run exactly once")
        sites: list[Site] = []
        names: dict[str, str] = {}
        lines: list[str] = []
        for check in checks:
            site, callee = self._site(tests, check, aliases)
            if callee not in names:
                names[callee] = f"verifier-function-{len(names)}"
                lines.insert(len(names) - 1, f"(define {names[callee]} (verifier-function "
                                             f"'{callee}))")
            call = f"({names[callee]}{site.call})"
            lines.append(f"(verifier-record {len(sites)} {call})")
            sites.append(Site(site.line, call, site.check))
        return CallsPlan(sites_within_bounds(sites), "\n".join([_SERIALISER, *lines, ""]))

    def program(self, solution: str, plan: CallsPlan) -> str:
        return _LOADER.replace("SOURCE", _quoted(solution)) + plan.driver

    def _site(self, tests: str, check: Node, aliases: dict[str, str]) -> tuple[Site, str]:
        """A check: the call's arguments' source (after the callee), its callee, its Check."""
        head = check.head()
        if head not in _CHECKS:
            raise NotPlainCalls(f"line {check.line}: not a check")
        arguments = check.items[1:]
        count = _CHECKS[head]
        if len(arguments) not in (count, count + 1) or (
                len(arguments) == count + 1 and arguments[-1].kind != "string"):
            raise NotPlainCalls(f"line {check.line}: {head} of other arguments")
        if count == 1:
            call, callee = self._call(tests, arguments[0], aliases)
            expected = {"check-true": True, "check-false": False}.get(head)
            return Site(check.line, call, Check("truth", expected,
                                                negated=head == "check-not-false")), callee
        for call_side, literal_side in ((arguments[0], arguments[1]),
                                        (arguments[1], arguments[0])):
            try:
                expected = literal(literal_side)
            except NotPlainCalls:
                continue
            call, callee = self._call(tests, call_side, aliases)
            if head == "check-eqv?" and type(expected) not in (int, float, Fraction, bool):
                raise NotPlainCalls(f"line {check.line}: eqv? of something else than a number")
            tolerance = 0.0
            if head == "check-within":
                tolerance = literal(arguments[2])
                if type(tolerance) not in (int, float, Fraction) or not tolerance >= 0:
                    raise NotPlainCalls(f"line {check.line}: a tolerance that is not a number")
            return Site(check.line, call, Check(
                "equal", expected, negated=head == "check-not-equal?",
                tolerance=float(tolerance), how="within" if head == "check-within" else "")
            ), callee
        raise NotPlainCalls(f"line {check.line}: no literal to compare with")

    @staticmethod
    def _call(tests: str, node: Node, aliases: dict[str, str]) -> tuple[str, str]:
        """`(f ARG ...)`: the arguments' source (each a literal) and the function's name."""
        callee = node.head()
        if callee is None or callee in _NOT_CALLEES or number_value(callee) is not None:
            raise NotPlainCalls(f"line {node.line}: not a call")
        for argument in node.items[1:]:
            if argument.kind == "atom" and argument.text in aliases:
                raise NotPlainCalls(f"line {node.line}: an argument that is not a literal")
            _argument(argument)
        source = "".join(" " + tests[item.start:item.end] for item in node.items[1:])
        return source, aliases.get(callee, callee)

    def holds(self, check: Check, value: Any) -> bool:
        if check.kind == "truth":
            if check.negated:
                return value is not False
            return type(value) is bool and value is check.expected
        if check.kind == "equal":
            tolerance = check.tolerance if check.how == "within" else None
            return racket_equal(value, check.expected, tolerance) != check.negated
        return False

    # ------------------------------------------------------------------- in-process

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        """The tests evaluated at runtime in a namespace of their own (see the module doc)."""
        return (_LOADER.replace("SOURCE", _quoted(solution)).replace(
            "#lang racket/base", "#lang racket") + _IN_PROCESS.replace("TESTS", _quoted(tests)))


# In-process: the tests' namespace has racket and rackunit, then the solution's definitions
# (not of names racket or rackunit give), our checks over rackunit's, again after each of the
# tests' requires; a failed check says so and exits 1 by the exit handler
# as it was before the solution ran. Then the run's record, as appended.py's epilogue.
_IN_PROCESS = r"""
(require (only-in rackunit current-check-handler)
         (only-in rackunit/private/equal-within equal?/within))
(define (verifier-fail message)
  (eprintf "assertion failed: ~a\n" message)
  (verifier-exit 1))
(define ((verifier-binary name same?) actual expected [message ""])
  (unless (same? actual expected)
    (verifier-fail (format "~a: ~e, ~e ~a" name actual expected message))))
(define ((verifier-unary name ok?) actual [message ""])
  (unless (ok? actual) (verifier-fail (format "~a: ~e ~a" name actual message))))
(define ((verifier-not same?) actual expected) (not (same? actual expected)))
(define verifier-checks
  (list (cons 'check-equal? (verifier-binary 'check-equal? equal?))
        (cons 'check-not-equal? (verifier-binary 'check-not-equal? (verifier-not equal?)))
        (cons 'check-eqv? (verifier-binary 'check-eqv? eqv?))
        (cons 'check-not-eqv? (verifier-binary 'check-not-eqv? (verifier-not eqv?)))
        (cons 'check-eq? (verifier-binary 'check-eq? eq?))
        (cons 'check-not-eq? (verifier-binary 'check-not-eq? (verifier-not eq?)))
        (cons 'check-within
              (lambda (actual expected epsilon [message ""])
                (unless (equal?/within actual expected epsilon)
                  (verifier-fail (format "check-within: ~e, ~e ~a" actual expected message)))))
        (cons 'check-= (lambda (actual expected epsilon [message ""])
                         (unless (<= (magnitude (- actual expected)) epsilon)
                           (verifier-fail (format "check-=: ~e, ~e ~a" actual expected message)))))
        (cons 'check-true (verifier-unary 'check-true (lambda (v) (eq? v #t))))
        (cons 'check-false (verifier-unary 'check-false (lambda (v) (eq? v #f))))
        (cons 'check-not-false (verifier-unary 'check-not-false (lambda (v) v)))
        (cons 'check-pred (lambda (pred actual [message ""])
                            (unless (pred actual)
                              (verifier-fail (format "check-pred: ~e" actual)))))
        (cons 'check (lambda (same? actual expected [message ""])
                       (unless (same? actual expected)
                         (verifier-fail (format "check: ~e, ~e" actual expected)))))
        (cons 'fail (lambda ([message ""]) (verifier-fail message)))))
(define verifier-tests-namespace (make-base-empty-namespace))
(parameterize ([current-namespace verifier-tests-namespace])
  (namespace-attach-module (namespace-anchor->empty-namespace verifier-anchor) 'racket)
  (namespace-attach-module (namespace-anchor->empty-namespace verifier-anchor) 'rackunit)
  (namespace-require 'racket)
  (namespace-require 'rackunit))
(define (verifier-own-checks)
  (for ([entry (in-list verifier-checks)])
    (namespace-set-variable-value! (car entry) (cdr entry) #t verifier-tests-namespace))
  (current-check-handler (lambda (e) (verifier-fail (exn-message e)))))
(define verifier-library-names (namespace-mapped-symbols verifier-tests-namespace))
(for ([name (in-list (namespace-mapped-symbols verifier-solution))]
      #:unless (memq name verifier-library-names)
      #:when (let ([binding (identifier-binding
                             (parameterize ([current-namespace verifier-solution])
                               (namespace-symbol->identifier name)) 0)])
               (and (list? binding)
                    (let-values ([(path base) (module-path-index-split (car binding))])
                      (not (or path base))))))
  (define value (namespace-variable-value
                 name #f (lambda () (with-handlers ([exn:fail? (lambda (e) verifier-exit)])
                                      (verifier-expression name)))
                 verifier-solution))
  (unless (eq? value verifier-exit)
    (namespace-set-variable-value! name value #t verifier-tests-namespace)))
(verifier-own-checks)
(parameterize ([current-namespace verifier-tests-namespace] [read-accept-reader #f])
  (define port (open-input-string TESTS))
  (port-count-lines! port)
  (let loop ()
    (define form (read-syntax "tests" port))
    (unless (eof-object? form)
      (eval form)
      (when (let ([datum (syntax->datum form)]) (and (pair? datum) (eq? (car datum) 'require)))
        (verifier-own-checks))
      (loop))))
(call-with-output-file "/proc/self/fd/3" #:exists 'append
  (lambda (o) (write-bytes (call-with-input-file "/proc/self/fd/4"
                             (lambda (i) (read-bytes 1000000 i))) o)))
"""


def _alias(form: Node, aliases: dict[str, str]) -> None:
    """`(define candidate f)`."""
    name, target = form.items[1], form.items[2]
    if target.kind != "atom" or number_value(target.text) is not None or name.text in aliases:
        raise NotPlainCalls(f"line {form.line}: a definition")
    aliases[name.text] = aliases.get(target.text, target.text)


def _suite(body: list[Node], aliases: dict[str, str]) -> list[Node]:
    """A test function's body: checks, or one `(let ((candidate f)) checks...)`."""
    if len(body) == 1 and body[0].head() == "let" and len(body[0].items) >= 3 and (
            body[0].items[1].kind == "list"):
        bindings = body[0].items[1]
        for binding in bindings.items:
            if (binding.kind != "list" or len(binding.items) != 2 or binding.items[0].kind != "atom"
                    or binding.items[1].kind != "atom" or binding.items[0].text in aliases):
                raise NotPlainCalls(f"line {binding.line}: a binding that is not an alias")
            aliases[binding.items[0].text] = binding.items[1].text
        body = body[0].items[2:]
    if not all(form.head() in _CHECKS for form in body):
        raise NotPlainCalls("a test function that is not only checks")
    return body
