"""OCaml assert tests as calls: MultiPL-E's

    let assertions =
     let candidate = f in
      (assert ((candidate ARGS) = EXPECTED));
      ...
      ()

and top-level checks (`let () = assert (f 1 2 = 3)`, `let _ = ...`, `assert (...);;`).
Recognised in each: `let candidate = f in`, then a sequence of `assert (COND)` (a last `()`
too), COND being `CALL = K`, `K = CALL`, `CALL <> K`, `CALL` (a bool), `not (CALL)`. CALL is a
function applied to literal arguments (copied verbatim), K a literal: integers (`-1`, `(-1)`),
floats, strings, chars, `true`/`false`, `()`, lists `[a; b]`, arrays `[|a; b|]`, tuples,
`Some`/`None`. (MultiPL-E writes negative integers `(~1)`, which OCaml does not parse: such
tests are not recognised, and fail to compile in-process as they would have anyway.)

OCaml's `=` is structural: it compares the values' runtime representations, which the static
types made alike in the tests. So each call is constrained to the type of the literal it is
compared with (`(f 3 : (int) list)`: a result of another type does not compile, as the tests
would not have), and the driver records the representation itself (Obj): an
immediate as an integer (ints, chars, bools, constant constructors, `()`, `[]`, `None`), a
string as its bytes, a float exactly, a block as its tag and fields, a chain of cons cells as a
list (flat, however long), a float array as tag 254 and its floats; the worker builds the same
representation from the literal and compares as `=` does (floats as IEEE, NaN unequal). A
closure or a custom block (Int64...) equals nothing; a value past 10 million nodes (cyclic)
too. The driver's serialiser, a module named per program, comes before the solution and opens
Stdlib, so a solution's own `(=)`, `List`, `Obj` or `Stdlib` do not reach it.

In-process tests (anything else) follow `open!` of a module of ours named per program,
defined before the solution as Stdlib's operators, functions and modules: a solution's
`let (=) _ _ = true`, its own `List` or `failwith` do not reach the tests (`assert` is a
keyword). Its own constructors named `(::)` or `[]`, and the run's record, still can (README).
"""

from __future__ import annotations

import re
from typing import Any

from verifier.kinds.code import appended
from verifier.kinds.code.dialects.core import (
    CallsPlan,
    Check,
    Dialect,
    NotPlainCalls,
    Site,
    drawn_name,
    sites_within_bounds,
)
from verifier.kinds.code.dialects.cursor import (
    Cursor,
    applied,
    bounded,
    depth,
    is_name,
    negated,
    token_at,
)
from verifier.kinds.code.dialects.lexer import Token, closing, is_punct, source_of, split_top
from verifier.kinds.code.dialects.scanner import (
    Escape,
    bytes_of,
    character,
    punctuation,
    resolve,
    scan,
    simple,
)

_SYMBOLS = r"!$%&*+\-./:<=>?@^|~"
_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\f\v]+)
  | (?P<newline>\n)
  | (?P<opener>\(\*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<char>'(?:[^'\\\n]|\\(?:[0-9]{3}|x[0-9a-fA-F]{2}|o[0-3][0-7]{2}|.))')
  | (?P<name>[A-Za-z_][A-Za-z0-9_']*|'[A-Za-z_][A-Za-z0-9_']*)
  | (?P<number>(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+
                 |[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9_]+)?)[lLn]?)
  | (?P<punct>""" + punctuation(";;", "(", ")", "[", "]", "{", "}", ",", ";", "`", "#")
    + r"""|[""" + _SYMBOLS + r"""]+)
""", re.X | re.S)


def tokenize(source: str) -> list[Token]:
    return scan(source, _TOKEN, {"(*": "*)"})


# --------------------------------------------------------------------------- literals


def _byte(code: int) -> bytes:
    if code > 255:
        raise NotPlainCalls("an escape out of range")
    return bytes([code])


_ESCAPES: list[Escape] = [
    (re.compile(r"[0-9]{3}"), lambda found: _byte(int(found.group()))),
    (re.compile(r"x([0-9a-fA-F]{2})"), lambda found: _byte(int(found.group(1), 16))),
    (re.compile(r"o([0-3][0-7]{2})"), lambda found: _byte(int(found.group(1), 8))),
    (re.compile(r"u\{([0-9a-fA-F]{1,6})\}"), lambda found: character(int(found.group(1), 16))),
    (re.compile(r"\n[ \t]*"), lambda found: ""),
    simple({"n": "\n", "t": "\t", "r": "\r", "b": "\b", "\\": "\\", '"': '"', "'": "'",
            " ": " "}),
]


def unescape(body: str) -> bytes:
    return bytes_of(resolve(body, _ESCAPES))


def number_value(text: str) -> int | float:
    if text[-1] in "lLn":
        raise NotPlainCalls("a boxed integer literal")
    digits = text.replace("_", "")
    if digits[:2].lower() in ("0x", "0o", "0b"):
        value = int(digits, 0)
    elif "." in digits or "e" in digits.lower():
        return float(digits)
    else:
        value = int(digits)
    if value >= 1 << 62:
        raise NotPlainCalls("an integer out of range")
    return value


def canonical(tag: int, fields: list[Any]) -> Any:
    """A block as the driver writes it: a cons cell whose tail is `[]` or a list is a list
    (flat), any other block a tuple of its tag and fields."""
    if tag == 0 and len(fields) == 2:
        tail = fields[1]
        if type(tail) is int and tail == 0:
            return [fields[0]]
        if type(tail) is list:
            return [fields[0], *tail]
    return (tag, *fields)


class LiteralParser(Cursor):
    """An OCaml literal expression into its runtime representation (the module doc) and its
    type, as an OCaml type expression (`_` where the literal leaves it open: `[]`, `None`)."""

    def value(self, depth: int = 0) -> tuple[Any, str]:
        depth = bounded(depth)
        if self.take("-", "-."):
            found, kind = self.value(depth)
            return negated(found), kind
        if self.take("Some"):
            found, kind = self.atom(depth)
            return canonical(0, [found]), f"({kind}) option"
        return self.atom(depth)

    def atom(self, depth: int) -> tuple[Any, str]:
        depth = bounded(depth)
        token = self.next()
        if token.kind == "number":
            number = number_value(token.text)
            return number, "float" if type(number) is float else "int"
        if token.kind == "string":
            return unescape(token.text[1:-1]), "string"
        if token.kind == "char":
            data = unescape(token.text[1:-1])
            if len(data) != 1:
                raise NotPlainCalls("a char of more than one byte")
            return data[0], "char"
        if is_name(token, "true", "false"):
            return int(token.text == "true"), "bool"
        if is_name(token, "None"):
            return 0, "_ option"
        if is_punct(token, "[") and self.take("||"):
            self.expect("]")
            return (0,), "_ array"
        if is_punct(token, "[") and self.take("|"):
            items, kind = self._items("|", depth)
            self.expect("]")
            if items and all(type(item) is float for item in items):
                return (254, *items), "float array"
            return canonical(0, items), f"({kind}) array"
        if is_punct(token, "["):
            items, kind = self._items("]", depth)
            result: Any = 0
            for item in reversed(items):
                result = canonical(0, [item, result])
            return result, f"({kind}) list"
        if is_punct(token, "("):
            if self.take(")"):
                return 0, "unit"
            parts = [self.value(depth)]
            while self.take(","):
                parts.append(self.value(depth))
            self.expect(")")
            if len(parts) == 1:
                return parts[0]
            return (canonical(0, [found for found, _ in parts]),
                    "(" + " * ".join(f"({kind})" for _, kind in parts) + ")")
        raise NotPlainCalls(f"line {token.line}: {token.text!r} is not a literal")

    def _items(self, closer: str, depth: int) -> tuple[list[Any], str]:
        """A list's or array's items and their type (the first's: OCaml's are all alike)."""
        parts = self.items(closer, ";", lambda: self.value(depth))[0]
        return [found for found, _ in parts], parts[0][1] if parts else "_"


def literal(tokens: list[Token]) -> tuple[Any, str]:
    parser = LiteralParser(tokens)
    found = parser.value()
    parser.end()
    return found


def _argument(tokens: list[Token]) -> None:
    parser = LiteralParser(tokens)
    parser.atom(0)
    parser.end()


def structural_equal(value: Any, expected: Any) -> bool:
    """OCaml's `=` on two representations: integers, floats (IEEE), strings, and blocks
    (tag and fields) alike."""
    if type(expected) is int:
        return type(value) is int and value == expected
    if type(expected) is float:
        return type(value) is float and value == expected
    if type(expected) is bytes:
        return type(value) is bytes and value == expected
    if type(expected) in (list, tuple):
        return (type(value) is type(expected) and len(value) == len(expected) and all(
            structural_equal(v, e) for v, e in zip(value, expected, strict=True)))
    return False


# --------------------------------------------------------------------------- the driver


_SERIALISER = r"""
module Verifier_calls = struct
  open! Stdlib
  exception Too_large
  external format_float : string -> float -> string = "caml_format_float"
  let channel = lazy (open_out_gen [Open_wronly; Open_append; Open_binary] 0 "/proc/self/fd/3")
  let hex = "0123456789abcdef"
  let float b x =
    match classify_float x with
    | FP_nan -> Buffer.add_string b "[\"f\",\"nan\"]"
    | FP_infinite -> Buffer.add_string b (if x > 0. then "[\"f\",\"inf\"]" else "[\"f\",\"-inf\"]")
    | _ ->
      let digits = format_float "%.17g" x in
      Buffer.add_string b digits;
      if String.for_all (fun c -> c = '-' || (c >= '0' && c <= '9')) digits then
        Buffer.add_string b ".0"
  let rec chain budget v =
    decr budget;
    if !budget < 0 then raise Too_large;
    if Obj.is_int v then (Obj.obj v : int) = 0
    else Obj.tag v = 0 && Obj.size v = 2 && chain budget (Obj.field v 1)
  let rec put b budget v =
    decr budget;
    if !budget < 0 then raise Too_large;
    if Obj.is_int v then Buffer.add_string b (string_of_int (Obj.obj v : int))
    else begin
      let tag = Obj.tag v in
      if tag = Obj.string_tag then begin
        let s : string = Obj.obj v in
        Buffer.add_string b "[\"b\",\"";
        String.iter (fun c -> Buffer.add_char b hex.[Char.code c lsr 4];
                      Buffer.add_char b hex.[Char.code c land 15]) s;
        Buffer.add_string b "\"]"
      end else if tag = Obj.double_tag then float b (Obj.obj v : float)
      else if tag = Obj.double_array_tag then begin
        Buffer.add_string b "[\"t\",254";
        for i = 0 to Obj.size v - 1 do
          Buffer.add_char b ','; float b (Obj.double_field v i)
        done;
        Buffer.add_char b ']'
      end else if tag >= Obj.lazy_tag then Buffer.add_string b "[\"x\",\"opaque\"]"
      else if tag = 0 && Obj.size v = 2 && chain (ref !budget) v then begin
        Buffer.add_string b "[\"l\"";
        let cell = ref v in
        while not (Obj.is_int !cell) do
          Buffer.add_char b ','; put b budget (Obj.field !cell 0); cell := Obj.field !cell 1
        done;
        Buffer.add_char b ']'
      end else begin
        Buffer.add_string b "[\"t\",";
        Buffer.add_string b (string_of_int tag);
        for i = 0 to Obj.size v - 1 do Buffer.add_char b ','; put b budget (Obj.field v i) done;
        Buffer.add_char b ']'
      end
    end
  let record site value =
    let v = Obj.repr value in
    let b = Buffer.create 64 in
    Buffer.add_char b '['; Buffer.add_string b (string_of_int site); Buffer.add_char b ',';
    (try put b (ref 10_000_000) v with Too_large ->
       Buffer.truncate b 0;
       Buffer.add_char b '['; Buffer.add_string b (string_of_int site);
       Buffer.add_string b ",[\"x\",\"too large\"]");
    Buffer.add_string b "]\n";
    let out = Lazy.force channel in
    Buffer.output_buffer out b; flush out
end
"""


class OCamlDialect(Dialect):
    language = "ocaml"

    def plan(self, tests: str) -> CallsPlan:
        tokens = tokenize(tests)
        items = _items(tests, tokens)
        blocks: list[str] = []
        sites: list[Site] = []
        for item in items:
            if is_name(item[0], "let"):
                words = [t.text for t in item[:4]]
                if words[1:4] == ["(", ")", "="]:
                    body = item[4:]
                elif len(words) == 4 and is_name(item[1]) and words[2] == "=":
                    body = item[3:]
                else:
                    raise NotPlainCalls(f"line {item[0].line}: a definition")
            else:
                body = item
            blocks.append(self._body(tests, body, sites))
        driver = "\n".join([_SERIALISER, *blocks, ""])
        return CallsPlan(sites_within_bounds(sites), driver)

    def program(self, solution: str, plan: CallsPlan) -> str:
        """The serialiser, under a module name drawn per program, then the solution (its lines
        numbered as its own) and the calls: after the solution, a `module Stdlib` of its own
        was what the serialiser's `open! Stdlib` opened, and one named as the serialiser would
        be what the calls call."""
        name = "V" + drawn_name(solution, plan.driver)
        serialiser, calls = plan.driver[:len(_SERIALISER)], plan.driver[len(_SERIALISER):]
        return (f"{serialiser.replace('Verifier_calls', name)}\n# 1 \"main.ml\"\n{solution}\n"
                f"{calls.replace('Verifier_calls', name)}")

    def _body(self, tests: str, tokens: list[Token], sites: list[Site]) -> str:
        """`let candidate = f in` (any number), then checks separated by `;`."""
        lines = ["let () ="]
        aliases: set[str] = set()
        while is_name(token_at(tokens, 0), "let"):
            if (len(tokens) < 5 or not is_name(tokens[1]) or not is_punct(tokens[2], "=")
                    or not is_name(tokens[3]) or not is_name(tokens[4], "in")):
                raise NotPlainCalls(f"line {tokens[0].line}: a let that is not an alias")
            aliases.add(tokens[1].text)
            lines.append(f"  {source_of(tests, tokens[:5])}")
            tokens = tokens[5:]
        checks = split_top(tokens, ";")
        if checks and not checks[-1]:
            checks.pop()
        if checks and [t.text for t in checks[-1]] == ["(", ")"]:
            checks.pop()
        if not checks:
            raise NotPlainCalls("no checks")
        for check in checks:
            check = _unwrapped(check)
            if not (is_name(token_at(check, 0), "assert") and len(check) > 1):
                raise NotPlainCalls(f"line {check[0].line if check else 0}: not an assert")
            site = self._site(tests, check[1:], check[0].line, aliases)
            lines.append(f"  Verifier_calls.record {len(sites)} ({site.call});")
            sites.append(site)
        lines.append("  ()")
        return "\n".join(lines)

    def _site(self, tests: str, tokens: list[Token], line: int, aliases: set[str]) -> Site:
        tokens = _unwrapped(tokens)
        if is_name(token_at(tokens, 0), "not"):
            return Site(line, self._call(tests, tokens[1:], aliases, "bool"),
                        Check("truth", negated=True))
        comparisons = [i for i, t in enumerate(tokens) if t.kind == "punct" and t.text not in (
            "(", ")", "[", "]", "|", "||", ";", "-", "-.") and depth(tokens, i) == 0]
        if not comparisons:
            return Site(line, self._call(tests, tokens, aliases, "bool"), Check("truth"))
        if len(comparisons) > 1 or tokens[comparisons[0]].text not in ("=", "<>"):
            raise NotPlainCalls(f"line {line}: a condition that is not an equality")
        at = comparisons[0]
        for call_side, literal_side in ((tokens[:at], tokens[at + 1:]),
                                        (tokens[at + 1:], tokens[:at])):
            try:
                expected, kind = literal(literal_side)
            except NotPlainCalls:
                continue
            return Site(line, self._call(tests, call_side, aliases, kind),
                        Check("equal", expected, negated=tokens[at].text == "<>"))
        raise NotPlainCalls(f"line {line}: no literal to compare with")

    @staticmethod
    def _call(tests: str, tokens: list[Token], aliases: set[str], kind: str) -> str:
        """The source of `f ARG...`, each argument an atom of literals, constrained to the type
        the tests compare it at (`kind`): `=` compares representations, which the tests' types
        made alike (an `int` 1 is `true`'s, a type of the solution's own may be a list's), so
        a result of another type must not compile, as the tests would not have."""
        tokens = _unwrapped(tokens)
        if not tokens or not is_name(tokens[0]) or not tokens[0].text[0].islower() or tokens[
                0].text in ("assert", "not", "let", "in", "if", "then", "else", "match", "fun",
                            "function", "true", "false", "begin", "end", "raise", "failwith"):
            raise NotPlainCalls("not a call")
        applied(tokens, aliases, _argument)
        return f"({source_of(tests, tokens)} : {kind})"

    def holds(self, check: Check, value: Any) -> bool:
        if check.kind == "truth":
            return type(value) is int and value == (0 if check.negated else 1)
        if check.kind == "equal":
            return structural_equal(value, check.expected) != check.negated
        return False

    # ------------------------------------------------------------------- in-process

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        """Our module of Stdlib's names defined before the solution, opened after it."""
        module = f"Verifier_stdlib_{tag}"
        return (f"module {module} = struct\n{_STDLIB_NAMES}end\n"
                + appended.assemble(self.language, solution, f"open! {module}\n{tests}"))


# What the tests' names refer to once our module is opened after the solution: Stdlib's.
_STDLIB_VALUES = """
( = ) ( <> ) ( == ) ( != ) ( < ) ( > ) ( <= ) ( >= ) ( && ) ( || ) ( + ) ( - ) ( * ) ( / )
( +. ) ( -. ) ( *. ) ( /. ) ( ** ) ( ^ ) ( @ ) ( ! ) ( := ) ( |> ) ( @@ ) ( ~- ) ( ~-. ) not
compare min max abs abs_float fst snd failwith invalid_arg raise ignore exit at_exit ref incr
decr ( mod ) ( land ) ( lor ) ( lxor ) ( lsl ) ( lsr ) ( asr ) succ pred float_of_int int_of_float
truncate float
string_of_int int_of_string string_of_float float_of_string string_of_bool bool_of_string
int_of_char char_of_int print_string print_endline print_int print_float print_newline
prerr_string prerr_endline sqrt exp log floor ceil nan infinity neg_infinity max_int min_int
"""
_STDLIB_MODULES = ("List Array String Char Bytes Printf Hashtbl Float Int Option Seq Buffer "
                   "Fun Bool Result Map Set Stack Queue Obj Sys")
_STDLIB_NAMES = "".join(
    [f"  let {name} = Stdlib.{name}\n" for name in re.findall(r"\( \S+ \)|\S+", _STDLIB_VALUES)]
    + [f"  module {name} = Stdlib.{name}\n" for name in _STDLIB_MODULES.split()]
    + ["  module Stdlib = Stdlib\n  exception Assert_failure = Stdlib.Assert_failure\n"])


def _items(tests: str, tokens: list[Token]) -> list[list[Token]]:
    """The tests' top-level items: each `let` at the start of a line starts one, `;;` ends
    one."""
    items: list[list[Token]] = []
    depth_now = 0
    for token in tokens:
        if is_punct(token, ";;"):
            if depth_now:
                raise NotPlainCalls(f"line {token.line}: ;; inside brackets")
            items.append([])
            continue
        if is_name(token, "let") and depth_now == 0 and token.newline and (
                not items or items[-1]) and tests.rfind("\n", 0, token.start) == token.start - 1:
            items.append([])
        if not items:
            items.append([])
        items[-1].append(token)
        if is_punct(token, "(", "[", "{"):
            depth_now += 1
        elif is_punct(token, ")", "]", "}"):
            depth_now -= 1
    found = [item for item in items if item]
    if not found:
        raise NotPlainCalls("no checks")
    return found


def _unwrapped(tokens: list[Token]) -> list[Token]:
    while (len(tokens) >= 2 and is_punct(tokens[0], "(") and closing(tokens, 0) == len(tokens) - 1
           and len(split_top(tokens[1:-1], ",")) == 1):
        tokens = tokens[1:-1]
    while len(tokens) >= 2 and is_name(tokens[0], "begin") and is_name(tokens[-1], "end"):
        tokens = tokens[1:-1]
    return tokens


