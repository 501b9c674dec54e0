"""Perl assert tests as calls: MultiPL-E's Test::Deep harness and `die`/`exit` on a comparison.

    use Test::Deep;                      the frame (the driver needs no module)
    sub testhumaneval {                  test subs, called by name
        my $candidate = \\&f;
        if(eq_deeply($candidate->(ARGS),EXPECTED)) {
            print "ok!" }else{
            exit 1;
            }
    }
    testhumaneval();
    if (f(ARGS) != K) { die "..."; }     also ==/eq/ne, `unless`, `die ... unless CALL == K;`

Expected values are Perl literals: undef, numbers, strings ('...' and "..." without
interpolation), array refs `[...]` and hash refs `{k => v}`. eq_deeply compares scalars with
`eq`: a number as Perl writes it (`1.0` is "1", 0.1 + 0.2 is "0.3"), undef only with undef,
arrays and hashes by their contents, a blessed reference with nothing here (one blessed into
a class named ARRAY or HASH too: the driver reads references with overloading off, where a
blessed one shows its class, so a class's `@{}` or `""` does not speak for it). eq_deeply
takes its arguments as a list, so a call that returns two equal values would be compared with
itself, whatever the expected value: here a call that returns more than one value fails its
check (none is undef). The driver records each call as the list it returns, a scalar as its
string and its number; `==` and `eq` in scalar context.
"""

from __future__ import annotations

import math
import re
from typing import Any

from verifier.kinds.code import appended
from verifier.kinds.code.dialects.core import (
    CallsPlan,
    Check,
    NotPlainCalls,
)
from verifier.kinds.code.dialects.lexer import (
    Token,
    closing,
    depth_at,
    is_punct,
    source_of,
    split_top,
    token_at,
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
    texts,
    top_level,
)
from verifier.kinds.code.dialects.values import Map

_tokenize = lexer([
    ("comment", r"\#[^\n]*|(?<![^\n])=[a-zA-Z][^\n]*\n.*?(?:\n=cut\b[^\n]*|\Z)"),
    ("string", r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'"),
    ("variable", r"[$@%&][A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*"),
    ("number", r"0[xX][0-9a-fA-F_]+|0[bB][01_]+"
               r"|(?:[0-9][0-9_]*(?:\.(?!\.)[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?"),
    ("name", r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*"),
    ("punct", r"=>|->|==|!=|<=>|<=|>=|&&|\|\||//|\*\*|\+\+|--|=~|!~|::|\.\.\.?"
              r"|[-+*/%.=<>!&|^~?:;,(){}\[\]\\]"),
])
_UV_MAX = (1 << 64) - 1
_INTERPOLATION = re.compile(r"[$@][A-Za-z0-9_{:$]")
_ESCAPES: list[Escape] = [
    simple({"n": "\n", "t": "\t", "r": "\r", "f": "\f", "b": "\b", "a": "\a", "e": "\x1b"}),
    (re.compile("0(?![0-9])"), lambda found: "\0"),
    (re.compile("x\\{([0-9a-fA-F]{0,6})\\}|x([0-9a-fA-F]{0,2})"),
     lambda found: character(int(found[1] or found[2] or "0", 16))),
    (re.compile("([^A-Za-z0-9])", re.S), lambda found: found[1]),
]
_LEADING_NUMBER = re.compile(
    r"\s*([+-]?(?:inf(?:inity)?|nan|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?))", re.I)
_PRAGMAS = frozenset({"strict", "warnings", "Test::Deep", "utf8", "Test::More"})
_EQUALITY = {"==": ("==", False), "!=": ("==", True), "eq": ("eq", False), "ne": ("eq", True)}


_DRIVER_HEAD = r"""
;{
BEGIN { ${^WARNING_BITS} = undef; $^H &= ~0x602; }
my $__verifier_record = do {
    BEGIN { $^H &= ~0x1F001; %^H = (); }  # no `use integer`, `use bignum` of the solution
    BEGIN { $^H |= 0x01000000; }  # `no overloading`: a reference is read as what it holds
    CORE::open(my $out, '>&=', 3) or CORE::die "no channel: $!";
    CORE::binmode $out;
    CORE::select((CORE::select($out), $| = 1)[0]);
    my ($put, $budget);
    $put = sub {
        my ($value, $depth) = @_;
        $budget -= 1;
        return 'null' unless defined $value;
        my $type = CORE::ref $value;
        if ($type eq '') {
            my $text = "$value";
            return '["x","wide"]' if $text =~ /[^\x{0}-\x{10ffff}]/;
            $text =~ s/([\x00-\x1f"\\\x{7f}-\x{10ffff}])/CORE::ord($1) > 0xffff
                ? CORE::sprintf('\\u%04x\\u%04x', 0xd800 + ((CORE::ord($1) - 0x10000) >> 10),
                          0xdc00 + ((CORE::ord($1) - 0x10000) & 0x3ff))
                : CORE::sprintf('\\u%04x', CORE::ord($1))/ge;
            my $number = 0 + $value;
            my $written;
            if ($number != $number) { $written = '["f","nan"]' }
            elsif ($number == 9**9**9) { $written = '["f","inf"]' }
            elsif ($number == -9**9**9) { $written = '["f","-inf"]' }
            else {
                $written = "$number";
                $written = CORE::sprintf('%.17g', $number) unless $written =~ /\A-?[0-9]+\z/;
            }
            return '["t","' . $text . '",' . $written . ']';
        }
        # Blessed (into a class named ARRAY or HASH, which `ref` cannot tell from an array or a
        # hash): its class's methods are what eq_deeply would meet, not plain data.
        return '["x","ref"]' if $depth >= 100 or $budget < 0 or CORE::index("$value", '=') >= 0;
        if ($type eq 'ARRAY') {
            return CORE::join(',', '["l"', map { $put->($_, $depth + 1) } @$value) . ']';
        }
        if ($type eq 'HASH') {
            return CORE::join(',', '["m"', map { ($put->($_, $depth + 1),
                                             $put->($value->{$_}, $depth + 1)) }
                                     sort keys %$value) . ']';
        }
        return '["x","ref"]';
    };
    sub {
        my ($site, $value) = @_;
        $budget = 1000000;
        local ($\, $,);
        print {$out} '[' . $site . ',' . $put->($value, 0) . "]\n";
    };
};
"""


# Before in-process tests, at compile time (the tests are compiled after it): no global
# override of a builtin (`*CORE::GLOBAL::die`), no sub of the current package standing for one
# (`use subs 'die'`), no module the solution pretended was loaded (`$INC{'Test/Deep.pm'}`).
_GUARD = """
;BEGIN {{ no strict 'refs'; delete $CORE::GLOBAL::{{$_}} for keys %CORE::GLOBAL::;
delete ${{__PACKAGE__ . '::'}}{{$_}} for qw({builtins});
delete $INC{{$_}} for grep {{ !defined $INC{{$_}} or $INC{{$_}} !~ m{{^/usr/}} }} keys %INC; }}
"""
_OVERRIDABLE = ("die exit warn print printf sprintf defined ref scalar length join sort reverse "
                "keys values each exists delete push pop shift unshift splice abs int sqrt lc uc "
                "substr index rindex wantarray eval do require open close binmode sleep time "
                "kill fork exec system glob readline")


class _Literal(Reader):
    """A Perl literal: undef, numbers (a unary minus), strings, array and hash refs."""

    def value(self) -> Any:
        token = self.next()
        if token.kind == "name" and token.text == "undef":
            return None
        if token.kind == "number":
            return _scalar(_number(token.text))
        if token.kind == "string":
            return _scalar(_string(token.text))
        if is_punct(token, "-") and self.peek() is not None and self.peek().kind == "number":
            number = _number(self.next().text)
            return _scalar(-number if type(number) is float or number <= 1 << 63 else
                           -float(number))
        if is_punct(token, "["):
            self.nested()
            items = self._items("]")
            self.depth -= 1
            return items
        if is_punct(token, "{"):
            self.nested()
            flat = self._items("}", keys=True)
            self.depth -= 1
            if len(flat) % 2:
                raise NotPlainCalls("a hash with a key and no value")
            entries = {}
            for index in range(0, len(flat), 2):
                key = flat[index]
                if not isinstance(key, tuple):
                    raise NotPlainCalls("a hash key that is not a scalar")
                entries[key[0]] = flat[index + 1]
            return Map(tuple(((text, _text_number(text)), item)
                             for text, item in entries.items()))
        raise NotPlainCalls(f"line {token.line}: not a literal")

    def _items(self, end: str, keys: bool = False) -> list[Any]:
        items: list[Any] = []
        while not self.at(end):
            if self.peek() is None:
                raise NotPlainCalls("a list without its end")
            token = self.peek()
            if keys and len(items) % 2 == 0 and token.kind == "name" and self.at_next("=>"):
                self.next()
                items.append(_scalar(token.text))  # a bareword before => is a string
            else:
                items.append(self.value())
            if not self.at(end):
                self.separator(",", "=>")
        self.next()
        return items


class PerlDialect(ScriptDialect):
    language = "perl"

    def plan(self, tests: str) -> CallsPlan:
        return _Frame(tests, _tokenize(tests)).plan(_DRIVER_HEAD)

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        return appended.assemble(self.language, solution,
                                 _GUARD.format(builtins=_OVERRIDABLE) + tests)

    def judge(self, check: Check, value: Any) -> bool:
        if check.kind != "equal":
            return False
        if check.how == "eq_deeply":  # the call's list: one value, or none (undef)
            if not isinstance(value, list) or len(value) > 1:
                return False
            return deeply(value[0] if value else None, check.expected) != check.negated
        if check.how == "==":
            return (_numeric(value) == _numeric(check.expected)) != check.negated
        return (_stringy(value) == _stringy(check.expected)) != check.negated


class _Frame(Frame):
    """`use` lines, test subs called by name, the alias `my $candidate = \\&f;`, checks."""

    reader = _Literal
    closing = ("}",)

    def __init__(self, tests: str, tokens: list[Token]) -> None:
        super().__init__(tests)
        self.tokens = tokens
        self.aliases: set[str] = set()
        self.contexts: list[str] = []  # per site: "list" or "scalar"

    def read(self) -> None:
        position = 0
        while position < len(self.tokens):
            position = self._statement(position, self.order, top=True)

    def _statement(self, position: int, into: list[Step], top: bool = False) -> int:
        tokens = self.tokens
        words = texts(tokens[position:position + 6])
        head = tokens[position]
        if is_punct(head, ";"):
            return position + 1
        if top and words[:1] == ["use"] and words[1:2] and words[1] in _PRAGMAS:
            end = _statement_end(tokens, position)
            if texts(tokens[position + 2:end]) not in ([], ["qw", "(", ")"]):
                raise NotPlainCalls("a module imported with arguments")
            return end + 1
        if top and words[:1] == ["sub"] and len(words) > 2 and words[2] == "{":
            return self._sub(position)
        if top and words[:1] and words[0] in self.functions and words[1:4] == ["(", ")", ";"]:
            self.run(words[0])
            return position + 4
        if words[:1] == ["my"] and len(words) >= 6 and tokens[position + 1].kind == "variable" \
                and words[2:4] == ["=", "\\"] and tokens[position + 4].kind == "variable" \
                and words[4].startswith("&") and words[5] == ";" and words[1].startswith("$"):
            if words[4][1:] in self.taken:
                raise NotPlainCalls("an alias of the tests' own sub")
            self.aliases.add(words[1])
            into.append(source_of(self.tests, tokens[position:position + 6]))
            return position + 6
        if words[:1] in (["if"], ["unless"]) and is_punct(token_at(tokens, position + 1), "("):
            return self._conditional(position, into)
        if words[:1] in (["die"], ["exit"]):
            return self._postfix(position, into)
        raise NotPlainCalls(f"line {head.line}: a statement that is not plain calls")

    def _sub(self, position: int) -> int:
        tokens = self.tokens
        name = tokens[position + 1]
        end = closing(tokens, position + 2)
        steps: list[Step] = ["{"]
        inner = position + 3
        while inner < end:
            inner = self._statement(inner, steps)
        steps.append("}")
        if name.kind != "name":
            raise NotPlainCalls("a sub of the tests without a name")
        self.define(name.text, steps)
        return end + 1

    def _conditional(self, position: int, into: list[Step]) -> int:
        """`if (C) { print ... } else { exit 1; }`, `if (C) { die ... }`, `unless (C) {...}`."""
        tokens = self.tokens
        keyword = tokens[position].text
        end = closing(tokens, position + 1)
        condition = tokens[position + 2:end]
        if not is_punct(token_at(tokens, end + 1), "{"):
            raise NotPlainCalls("a condition without a block")
        block_end = closing(tokens, end + 1)
        block = tokens[end + 2:block_end]
        after = block_end + 1
        if texts(tokens[after:after + 2]) == ["else", "{"]:
            else_end = closing(tokens, after + 1)
            if keyword != "if" or not _prints(block) or not _fails(tokens[after + 2:else_end]):
                raise NotPlainCalls("an if/else that is not a check")
            self._condition(condition, True, tokens[position].line, into)
            return else_end + 1
        if not _fails(block):
            raise NotPlainCalls("a conditional that does not fail")
        self._condition(condition, keyword == "unless", tokens[position].line, into)
        return after

    def _postfix(self, position: int, into: list[Step]) -> int:
        """`die "..." unless C;`, `die "..." if C;` (and exit)."""
        tokens = self.tokens
        end = _statement_end(tokens, position)
        statement = tokens[position:end]
        modifiers = [i for i, token in enumerate(statement) if token.kind == "name"
                     and token.text in ("if", "unless") and depth_at(statement, i) == 0]
        if len(modifiers) != 1 or not _fails(statement[:modifiers[0]] + [tokens[end]]):
            raise NotPlainCalls("a die that is not a check")
        at = modifiers[0]
        self._condition(statement[at + 1:], statement[at].text == "unless", tokens[position].line,
                        into)
        return end + 1

    def _condition(self, condition: list[Token], passes: bool, line: int,
                   into: list[Step]) -> None:
        """A check whose condition holds (`passes`) or fails when the test passes."""
        condition = unwrapped(condition)
        if condition and is_punct(condition[0], "!"):
            condition, passes = unwrapped(condition[1:]), not passes
        if texts(condition[:2]) == ["eq_deeply", "("] and closing(condition, 1) == len(
                condition) - 1:
            parts = split_top(condition[2:-1], ",")
            if len(parts) != 2:
                raise NotPlainCalls(f"line {line}: eq_deeply of other than two arguments")
            call, expected = self.either(parts[0], parts[1], line)
            self.contexts.append("list")
            self.site(call, line, Check("equal", expected, negated=not passes, how="eq_deeply"),
                      into)
            return
        comparisons = [i for i, t in enumerate(condition) if t.text in _EQUALITY
                       and t.kind in ("punct", "name") and depth_at(condition, i) == 0]
        if len(comparisons) != 1:
            raise NotPlainCalls(f"line {line}: not one comparison")
        at = comparisons[0]
        how, negated = _EQUALITY[condition[at].text]
        call, expected = self.either(condition[:at], condition[at + 1:], line)
        if not isinstance(expected, tuple):
            raise NotPlainCalls(f"line {line}: a reference compared with {how}")
        self.contexts.append("scalar")
        self.site(call, line, Check("equal", expected, negated=negated == passes, how=how), into)

    def call(self, tokens: list[Token], line: int) -> list[Token]:
        """`$candidate->(ARGS)` or `f(ARGS)`, each argument a literal."""
        if len(tokens) >= 4 and tokens[0].text in self.aliases and is_punct(tokens[1], "->"):
            opening = 2
        elif (len(tokens) >= 3 and tokens[0].kind == "name" and tokens[0].text not in self.taken
              and tokens[0].text not in _BUILTINS):
            opening = 1
        else:
            raise NotPlainCalls(f"line {line}: not a call of the solution")
        if not is_punct(tokens[opening], "(") or closing(tokens, opening) != len(tokens) - 1:
            raise NotPlainCalls(f"line {line}: not a call of the solution")
        arguments = split_top(tokens[opening + 1:-1], ",")
        for argument in arguments if arguments != [[]] else []:
            literal(_Literal, argument)
        return tokens

    def recorded(self, site: int, call: list[Token]) -> str:
        source = source_of(self.tests, call)
        wrapped = f"[{source}]" if self.contexts[site] == "list" else f"scalar({source})"
        return f"$__verifier_record->({site}, {wrapped});"


_BUILTINS = frozenset({"eq_deeply", "print", "die", "exit", "eval", "do", "require", "sub", "my",
                       "our", "local", "return", "defined", "scalar", "ref", "bless", "undef"})


def _statement_end(tokens: list[Token], position: int) -> int:
    depth = 0
    for index in range(position, len(tokens)):
        token = tokens[index]
        if is_punct(token, "(", "[", "{"):
            depth += 1
        elif is_punct(token, ")", "]", "}"):
            depth -= 1
            if depth < 0:
                break
        elif depth == 0 and is_punct(token, ";"):
            return index
    raise NotPlainCalls("a statement without its semicolon")


def _prints(block: list[Token]) -> bool:
    """`print "ok!"` (with or without its semicolon), or nothing."""
    words = [t for t in block if not is_punct(t, ";")]
    return not words or (len(words) == 2 and words[0].text == "print"
                         and words[1].kind == "string")


def _fails(block: list[Token]) -> bool:
    """`exit N;` (N not 0) or `die ...;`: the test fails there."""
    words = texts(block)
    if words[-1:] != [";"] or len(top_level(block, ";")) != 1:
        return False
    if words[0] == "die":
        return all(t.kind in ("string", "number") or is_punct(t, ",", "(", ")", ".", ";")
                   for t in block[1:])
    inner = [w for w in words[1:-1] if w not in ("(", ")")]
    return words[0] == "exit" and len(inner) == 1 and inner[0].isdigit() and int(inner[0]) != 0


def _number(text: str) -> int | float:
    digits = text.replace("_", "").lower()
    if digits.startswith(("0x", "0b")):
        value = int(digits[2:], 16 if digits[1] == "x" else 2)
    elif "." in digits or "e" in digits:
        return float(digits)
    else:
        value = int(digits, 8) if len(digits) > 1 and digits[0] == "0" else int(digits)
    return value if value <= _UV_MAX else float(value)


def _string(text: str) -> str:
    """A Perl string literal's characters: the source's bytes, one character each (no `use
    utf8`), escapes decoded; interpolation is not a literal."""
    body = text[1:-1].encode("utf-8", "surrogatepass").decode("latin-1")
    if text[0] == "'":
        return body.replace("\\\\", "\0").replace("\\'", "'").replace("\0", "\\")
    pieces = resolve(body, _ESCAPES)
    if any(_INTERPOLATION.search(piece) for piece in pieces[::2]):  # the text between escapes
        raise NotPlainCalls("a string with interpolation")
    return text_of(pieces)


def _text_number(text: str) -> int | float:
    """A string as Perl numifies it: its leading number, else 0."""
    found = _LEADING_NUMBER.match(text)
    if found is None:
        return 0
    number = found.group(1).lower().lstrip("+")
    if "inf" in number or "nan" in number:
        return float(number.replace("infinity", "inf"))
    if "." in number or "e" in number:
        return float(number)
    value = int(number)
    return value if -(1 << 63) <= value <= _UV_MAX else float(value)


def _scalar(value: int | float | str) -> tuple[str, int | float]:
    """A defined scalar as the model has it: its string (what `eq` compares) and its
    number (what `==` compares)."""
    if type(value) is str:
        return value, _text_number(value)
    return _numeral(value), value


def _numeral(number: int | float) -> str:
    """A number as Perl writes it: an integer in full, a float with 15 significant digits."""
    if type(number) is int:
        return str(number)
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Inf" if number > 0 else "-Inf"
    if number == 0:
        return "0"
    return format(number, ".15g")


def _numeric(value: Any) -> Any:
    if value is None:
        return 0
    if isinstance(value, tuple) and len(value) == 2:
        return value[1]
    return object()  # a reference: its address, equal to no literal


def _stringy(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, tuple) and len(value) == 2:
        return value[0]
    return object()


def deeply(got: Any, expected: Any) -> bool:
    """Test::Deep's eq_deeply on the model: scalars by `eq`, undef only with undef, arrays and
    hashes by their contents."""
    if got is None or expected is None:
        return got is None and expected is None
    if isinstance(got, tuple) and isinstance(expected, tuple):
        return len(got) == len(expected) == 2 and got[0] == expected[0]
    if isinstance(got, list) and isinstance(expected, list):
        return len(got) == len(expected) and all(
            deeply(g, e) for g, e in zip(got, expected, strict=True))
    if isinstance(got, Map) and isinstance(expected, Map):
        found = {_stringy(key): value for key, value in got.pairs}
        wanted = {_stringy(key): value for key, value in expected.pairs}
        return found.keys() == wanted.keys() and all(
            deeply(found[key], value) for key, value in wanted.items())
    return False
