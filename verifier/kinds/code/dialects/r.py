"""R assert tests as calls: MultiPL-E's `stopifnot(isTRUE(all.equal(...)))` harness.

    test_humaneval <- function() {       test functions, called by name
        candidate <- f
        stopifnot(isTRUE(all.equal(candidate(ARGS), EXPECTED)))
    }                                    also stopifnot(all.equal(...)), stopifnot(identical(...))
    test_humaneval()

Expected values are R literals: NULL, NA, TRUE/FALSE, numbers (doubles; `1L` an integer),
strings, `c(...)` (combined and coerced as R does, names too) and `list(...)`. The worker
judges with R's own rules: all.equal compares modes (an integer vector equals a double one,
never a list or NULL), lengths, names and NA positions, then numbers within R's tolerance
(the mean relative difference of the elements that differ, 1.5e-8) and everything else
exactly; identical compares types too. The driver writes a vector as its type, names and
elements (a string as its bytes), a list likewise, anything with other attributes (a factor, a
matrix) as a value equal to nothing. Its serialiser is made before the solution runs, of base's
primitives and `.Internal`s as they were (see _SERIALISER), so neither the solution's global
functions nor base's rebound reach it, and runs with R's JIT compiler off once the call has
returned (compiling the serialiser would cost more than running it).
"""

from __future__ import annotations

import math
import re
from typing import Any

from verifier.kinds.code.dialects.core import (
    CallsPlan,
    Check,
    NotPlainCalls,
    drawn_name,
)
from verifier.kinds.code.dialects.lexer import (
    Token,
    closing,
    is_punct,
    source_of,
    split_top,
    unwrapped,
)
from verifier.kinds.code.dialects.scanner import Escape, character, resolve, simple, text_of
from verifier.kinds.code.dialects.scripts import (
    Frame,
    Reader,
    ScriptDialect,
    Step,
    lexer,
    literal,
    split_lines,
    texts,
    utf8,
)

_tokenize = lexer([
    ("comment", r"\#[^\n]*"),
    ("string", r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'"),
    ("number", r"0[xX][0-9a-fA-F]+L?|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[Li]?"),
    ("name", r"[A-Za-z.][A-Za-z0-9._]*|`[^`\n]+`"),
    ("punct", r"<<-|->>|<-|->|<=|>=|==|!=|&&|\|\||%[^%\n]*%|:::|::|\|>"
              r"|[-+*/^=<>!&|~?:;,$@(){}\[\]]"),
])
_ESCAPES: list[Escape] = [
    simple({"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
            "\\": "\\", '"': '"', "'": "'", "`": "`", " ": " "}),
    (re.compile("0(?![0-7])"), lambda found: "\0"),
    (re.compile("([0-7]{1,3})"), lambda found: chr(int(found[1], 8))),
    (re.compile("x\\{([0-9a-fA-F]{1,2})\\}|x([0-9a-fA-F]{1,2})|u\\{([0-9a-fA-F]{1,4})\\}"
                "|u([0-9a-fA-F]{1,4})|U\\{([0-9a-fA-F]{1,8})\\}|U([0-9a-fA-F]{1,8})"),
     lambda found: character(int(next(group for group in found.groups() if group), 16))),
]
_TOLERANCE = math.sqrt(2.220446049250313e-16)  # all.equal's default, sqrt(.Machine$double.eps)
_CONSTANTS = {"TRUE": ("logical", True), "FALSE": ("logical", False), "NA": ("logical", None),
              "NA_integer_": ("integer", None), "NA_real_": ("double", None),
              "NA_character_": ("character", None), "Inf": ("double", math.inf),
              "NaN": ("double", math.nan)}
_ORDER = ("logical", "integer", "double", "character")
_BUILTINS = frozenset({"stopifnot", "isTRUE", "all.equal", "identical", "c", "list", "function",
                       "print", "stop", "quit", "q", "invisible", "return", "local"})


# The serialiser, made before the solution runs (on its first line: one line, joined below)
# in an environment of its own whose parent is the empty one. R looks every name up when it
# runs (`if` and `paste0` alike) and base's closures call others by name, so it holds base's
# primitives as they were, copies of base's closures that are a bare `.Internal` call (they
# look `.Internal` and `list` up there) and its own calls of the `.Internal`s it needs
# (vapply's looks `[[` up where it is called); a solution that rebinds base's functions
# (`unlockBinding` on `baseenv()`) reaches none of them. The record function is too small
# for R's JIT compiler, whose R code the solution can rebind too, to compile it, and turns
# the compiler off for the rest once the call has returned.
_SERIALISER = r"""
RECORD <- local({
  own <- new.env(parent = emptyenv());
  for (name in c('{', '(', 'if', '<-', '<<-', 'function', 'return', '||', '&&', '!', '==',
                 '<', '>=', '+', '-', '[', '[<-', '[[', '.Internal', 'list', 'c', 'length',
                 'is.null', 'names', 'attributes', 'is.na', 'is.nan', 'as.character', 'all',
                 'abs', 'trunc', 'on.exit')) assign(name, get(name, baseenv()), envir = own);
  for (name in c('paste0', 'sprintf', 'typeof', 'charToRaw')) {
    copy <- get(name, baseenv()); environment(copy) <- own; assign(name, copy, envir = own)
  };
  own$out <- file('/proc/self/fd/3', 'wb', raw = TRUE);
  evalq({
    budget <- 0;
    each <- function(x, f, ...) .Internal(vapply(x, f, '', FALSE));
    enableJIT <- function(level) .Internal(enableJIT(level));
    joined <- function(items) if (length(items)) paste0(',', items, collapse = '') else '';
    bytes <- function(s) paste0('["b","', paste0(as.character(charToRaw(s)), collapse = ''), '"]');
    marked <- function(s, x) { s[is.na(x)] <- 'null'; s };
    number <- function(x) {
      if (is.nan(x)) '["f","nan"]' else if (is.na(x)) 'null' else if (x == Inf) '["f","inf"]'
      else if (x == -Inf) '["f","-inf"]'
      else { s <- sprintf('%.17g', x); if (abs(x) < 1e17 && trunc(x) == x) paste0(s, '.0') else s }
    };
    put <- function(value, depth) {
      budget <<- budget - 1;
      if (is.null(value)) return('null');
      type <- typeof(value);
      if (depth >= 100 || budget < 0 || !all(names(attributes(value)) == 'names') ||
          !(type == 'logical' || type == 'integer' || type == 'double' || type == 'character'
            || type == 'list')) return('["x","object"]');
      labels <- if (is.null(names(value))) 'null' else paste0('["l"', joined(each(
        names(value), function(n) if (is.na(n)) 'null' else bytes(n))), ']');
      items <- if (type == 'list') each(value, function(item) put(item, depth + 1))
        else if (type == 'logical') marked(c('false', 'true')[value + 1L], value)
        else if (type == 'integer') marked(sprintf('%d', value), value)
        else if (type == 'double') each(value, number)
        else each(value, function(s) if (is.na(s)) 'null' else bytes(s));
      paste0('["t","', type, '",', labels, ',["l"', joined(items), ']]')
    };
    function(site, value) {
      value;
      jit <- enableJIT(0);
      on.exit(enableJIT(jit));
      budget <<- 1000000;
      .Internal(writeBin(charToRaw(paste0('[', sprintf('%d', site), ',', put(value, 0), ']\n')),
                         out, NA_integer_, FALSE, FALSE));
      .Internal(flush(out))
    }
  }, own)
});
"""
_SERIALISER_LINE = " ".join(line.strip() for line in _SERIALISER.strip().splitlines()) + " "
_SERIALISER_CALL = ".__verifier_serialiser("  # the drawn name replaces it


class _Literal(Reader):
    """An R literal as the model has it: None (NULL), or (type, names, items) for a vector
    ("logical", "integer", "double", "character") or a list."""

    def value(self) -> Any:
        token = self.next()
        if token.kind == "name" and token.text == "NULL":
            return None
        if token.kind == "name" and token.text in _CONSTANTS:
            kind, item = _CONSTANTS[token.text]
            return (kind, None, [item])
        if token.kind == "number":
            return _number(token.text)
        if token.kind == "string":
            return ("character", None, [utf8(_string(token.text))])
        if is_punct(token, "-", "+") and self.peek() is not None:
            operand = self.value()
            if operand is None or operand[0] not in ("integer", "double") or operand[1]:
                raise NotPlainCalls("a sign before something else than a number")
            kind, _, items = operand
            return (kind, None, [None if x is None else (x if token.text == "+" else -x)
                                 for x in items])
        if token.kind == "name" and token.text in ("c", "list") and self.at("("):
            self.next()
            self.nested()
            names, items = self._arguments()
            self.depth -= 1
            return _list(names, items) if token.text == "list" else _combined(names, items)
        raise NotPlainCalls(f"line {token.line}: not a literal")

    def _arguments(self) -> tuple[list[bytes | None], list[Any]]:
        names: list[bytes | None] = []
        items: list[Any] = []
        while not self.at(")"):
            token = self.peek()
            if token is None:
                raise NotPlainCalls("a call without its end")
            if token.kind in ("name", "string") and self.at_next("="):
                self.position += 2
                names.append(utf8(_string(token.text) if token.kind == "string"
                                  else token.text.strip("`")))
            else:
                names.append(None)
            items.append(self.value())
            if not self.at(")"):
                self.expect(",")
        self.next()
        return names, items


class RDialect(ScriptDialect):
    language = "r"

    def plan(self, tests: str) -> CallsPlan:
        return _Frame(tests, _tokenize(tests)).plan("")

    def program(self, solution: str, plan: CallsPlan) -> str:
        """The serialiser made first, on the solution's first line (its lines keep their
        numbers), under a name drawn per program; the solution; the driver."""
        name = f".{drawn_name(solution, plan.driver)}"
        return (f"{_SERIALISER_LINE.replace('RECORD', name, 1)}{solution}\n"
                f"{plan.driver.replace(_SERIALISER_CALL, f'{name}(')}")

    def judge(self, check: Check, value: Any) -> bool:
        if check.kind != "equal":
            return False
        value = _model(value)
        if value is _OTHER:
            return False
        if check.how == "identical":
            return identical(value, check.expected)
        if check.how == "all.equal current":  # all.equal(EXPECTED, CALL): the literal leads
            return all_equal(check.expected, value)
        return all_equal(value, check.expected)


class _Frame(Frame):
    """Test functions (`name <- function() {...}`) called by name, `candidate <- f`, checks."""

    record = _SERIALISER_CALL + "{site}, {call})"
    reader = _Literal

    def __init__(self, tests: str, tokens: list[Token]) -> None:
        super().__init__(tests)
        self.statements = split_lines(tokens)
        self.aliases: set[str] = set()

    def read(self) -> None:
        for statement in self.statements:
            words = texts(statement)
            if len(words) > 6 and words[1] in ("<-", "=") and words[2:6] == [
                    "function", "(", ")", "{"] and closing(statement, 5) == len(statement) - 1:
                steps: list[Step] = []
                for inner in split_lines(statement[6:-1]):
                    self._statement(inner, steps)
                self.define(words[0], ["local({", *steps, "})"])
            elif words[1:] == ["(", ")"] and words[0] in self.functions:
                self.run(words[0])
            else:
                self._statement(statement, self.order)

    def _statement(self, statement: list[Token], into: list[Step]) -> None:
        words = texts(statement)
        line = statement[0].line
        if len(words) == 3 and words[1] in ("<-", "=") and statement[0].kind == "name" and (
                statement[2].kind == "name") and words[2] not in self.taken | _BUILTINS:
            self.aliases.add(words[0])
            self.taken.add(words[0])
            into.append(source_of(self.tests, statement))
            return
        if words[:2] != ["stopifnot", "("] or closing(statement, 1) != len(statement) - 1:
            raise NotPlainCalls(f"line {line}: a statement that is not plain calls")
        inside = unwrapped(statement[2:-1])
        if texts(inside[:2]) == ["isTRUE", "("] and closing(inside, 1) == len(inside) - 1:
            inside = unwrapped(inside[2:-1])
        how = inside[0].text if inside else ""
        if how not in ("all.equal", "identical") or not is_punct(inside[1], "(") or closing(
                inside, 1) != len(inside) - 1:
            raise NotPlainCalls(f"line {line}: a check that is not all.equal or identical")
        parts = split_top(inside[2:-1], ",")
        if len(parts) != 2 or any(is_punct(t, "=") for part in parts for t in part[1:2]):
            raise NotPlainCalls(f"line {line}: {how} with options")
        call, expected = self.either(parts[0], parts[1], line)
        if how == "all.equal" and call != unwrapped(parts[0]):
            how = "all.equal current"
        self.site(call, line, Check("equal", expected, how=how), into)

    def call(self, tokens: list[Token], line: int) -> list[Token]:
        if (len(tokens) < 3 or tokens[0].kind != "name" or tokens[0].text in _BUILTINS
                or (tokens[0].text in self.taken and tokens[0].text not in self.aliases)
                or not is_punct(tokens[1], "(") or closing(tokens, 1) != len(tokens) - 1):
            raise NotPlainCalls(f"line {line}: not a call of the solution")
        arguments = split_top(tokens[2:-1], ",")
        for argument in arguments if arguments != [[]] else []:
            if len(argument) > 2 and argument[0].kind == "name" and is_punct(argument[1], "="):
                argument = argument[2:]  # a named argument
            literal(_Literal, argument)
        return tokens


def _number(text: str) -> tuple[str, None, list[Any]]:
    if text.endswith("i"):
        raise NotPlainCalls("a complex number")
    integer = text.endswith("L")
    digits = text.rstrip("L").lower()
    value: float = float(int(digits, 16)) if digits.startswith("0x") else float(digits)
    if integer and value.is_integer() and abs(value) < 2 ** 31:
        return ("integer", None, [int(value)])
    return ("double", None, [value])


def _string(text: str) -> str:
    return text_of(resolve(text[1:-1], _ESCAPES))


def _list(names: list[bytes | None], items: list[Any]) -> tuple[str, Any, list[Any]]:
    return ("list", None if all(n is None for n in names) else [n or b"" for n in names], items)


def _combined(names: list[bytes | None], items: list[Any]) -> Any:
    """c(...): the items' elements in one vector of the highest type among them (logical <
    integer < double < character; numbers become text only as R would write them, which is
    not modelled: such a mix is not a literal here), names kept."""
    parts = [(name, item) for name, item in zip(names, items, strict=True) if item is not None]
    if not parts:
        return None
    if any(item[0] == "list" for _, item in parts):
        raise NotPlainCalls("c() of a list")
    kind = max((item[0] for _, item in parts), key=_ORDER.index)
    if kind == "character" and any(item[0] != "character" for _, item in parts):
        raise NotPlainCalls("c() of text and numbers")
    elements, labels = [], []
    for name, (item_kind, item_names, values) in parts:
        for index, element in enumerate(values):
            elements.append(_coerced(element, item_kind, kind))
            own = item_names[index] if item_names else b""
            if name and own:
                labels.append(name + b"." + own)
            elif name:
                labels.append(name if len(values) == 1 else name + str(index + 1).encode())
            else:
                labels.append(own)
    has_names = any(n is not None for n in names) or any(item[1] for _, item in parts)
    return (kind, [label or b"" for label in labels] if has_names else None, elements)


def _coerced(element: Any, kind: str, target: str) -> Any:
    if element is None or kind == target:
        return element
    if target == "integer":
        return int(element)
    if target == "double":
        return float(element)
    return element


_OTHER = object()


def _model(value: Any) -> Any:
    """A recorded value in the model of `_Literal`: None, or (type, names, items); anything
    else stands for a value the driver could not write."""
    if value is None:
        return None
    if not (isinstance(value, tuple) and len(value) == 3 and value[0] in (*_ORDER, "list")
            and isinstance(value[2], list) and (value[1] is None or isinstance(value[1], list))):
        return _OTHER
    kind, names, items = value
    if kind == "list":
        items = [_model(item) for item in items]
        if any(item is _OTHER for item in items):
            return _OTHER
    return (kind, names, items)


def _mode(kind: str) -> str:
    return "numeric" if kind in ("integer", "double") else kind


def _missing(item: Any) -> bool:
    return item is None or (type(item) is float and math.isnan(item))


def all_equal(target: Any, current: Any) -> bool:
    """Whether R's `isTRUE(all.equal(target, current))` holds, on the model."""
    if target is None or current is None:
        return target is None and current is None
    (kind, names, items), (other, other_names, other_items) = target, current
    if _mode(kind) != _mode(other) or len(items) != len(other_items):
        return False
    if (names is None) != (other_names is None) or (names is not None and names != other_names):
        return False
    if kind == "list":
        return all(all_equal(a, b) for a, b in zip(items, other_items, strict=True))
    if any(_missing(a) != _missing(b) for a, b in zip(items, other_items, strict=True)):
        return False
    differing = [(a, b) for a, b in zip(items, other_items, strict=True)
                 if not _missing(a) and a != b]
    if not differing:
        return True
    if _mode(kind) != "numeric":
        return False
    count = len(differing)
    scale = sum(abs(a) / count for a, _ in differing)
    if not (math.isfinite(scale) and scale > _TOLERANCE):
        scale = 1.0
    difference = sum(abs(a - b) / (count * scale) for a, b in differing)
    return not math.isnan(difference) and difference <= _TOLERANCE


def identical(actual: Any, expected: Any) -> bool:
    """R's `identical` on the model: the same type, names and elements (NaN is NaN, NA is NA)."""
    if actual is None or expected is None:
        return actual is None and expected is None
    (kind, names, items), (other, other_names, other_items) = actual, expected
    if kind != other or names != other_names or len(items) != len(other_items):
        return False
    if kind == "list":
        return all(identical(a, b) for a, b in zip(items, other_items, strict=True))
    return all((a is None and b is None) or (
        a is not None and b is not None and (a == b or (_missing(a) and _missing(b))))
        for a, b in zip(items, other_items, strict=True))
