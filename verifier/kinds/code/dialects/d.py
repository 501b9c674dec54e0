"""D assert tests as calls: MultiPL-E's `unittest { alias candidate = f; assert(candidate(ARGS)
== EXPECTED); }` then `void main(){}`, with its blocks for Nullable results:

    { auto result = candidate(ARGS); assert(result.isNull); }
    { auto result = candidate(ARGS); assert(!result.isNull && result.get == K); }
    { auto result = candidate(ARGS); assert(result[0].isNull); assert(!result[1].isNull && ...); }

(the last: each element of a tuple result checked, those not named not).
Recognised besides: top-level `import`s, several unittest blocks, `assert(CALL != K)`, the
truth of a call (`assert(CALL)`, `assert(!CALL)`), `assert(abs(CALL - K) < T)` (`fabs` too),
and a message after the condition. Literals: integers (`3L`, `3UL`), floats (`2.5`, `2.5f` a
float), strings (UTF-8 bytes, as D compares code units), chars (their code), arrays `[...]`,
associative arrays `[k: v]`, `tuple(...)`, `true`, `false`. Values compare as D's `==` does,
which is C++'s on this model (cfamily.equal): numbers across int and float, float promoted to
double (`0.1f != 0.1`), integers after the usual arithmetic conversions of their types (a
`uint` 4294967295 equals `-1`), arrays element-wise, associative arrays whatever their order.

The driver, after the solution, is a `main` of our own making the calls (each unittest block
a scope of its own) and recording each value through a template that writes what it is by
its type (integers, chars, floats exactly, strings as UTF-8, arrays, associative arrays,
tuples, Nullable as an optional; anything else as a value that equals nothing), its library
imports scoped inside it, out of the solution's reach. It calls no function it did not
define: a function of the runtime's or of C's library (`_d_arrayappendT`, which array appends
call, `snprintf`, `write`, `memcpy`) is a name a solution can define (`extern(C)`: the link
takes a program's own symbol over the library's), and a template instance of the library's a
name it can take (`pragma(mangle)`). So it builds the records in a buffer of its own and
writes them by a system call, formats numbers, floats (exactly) and text itself, reads an
associative array as the runtime lays it out, a Nullable and a Tuple by their fields, takes
each value by reference (a copy of a large one calls `memcpy`), and its struct is named per
program (its own template instances' names are unknown to the solution).

In-process tests (anything else) are run by our own `main` (the runtime's unit-test runner,
which a solution can replace, is not used) and each `assert` of the tests is the verifier's own
check under a name drawn per program (a solution's `assertHandler`, which makes D's `assert`
return, does not reach it), ending the run by raw system calls; a solution declaring at module
level a name the tests take from a module imported at module level (`abs`, `equal`) does not
compile.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from verifier.kinds.code import appended
from verifier.kinds.code.dialects.cfamily import equal
from verifier.kinds.code.dialects.cintegers import literal_type, tagged, untagged
from verifier.kinds.code.dialects.clike import float32
from verifier.kinds.code.dialects.core import (
    CallsPlan,
    Check,
    Dialect,
    NotPlainCalls,
    Site,
    renamed_driver,
    sites_within_bounds,
)
from verifier.kinds.code.dialects.cursor import (
    Cursor,
    bounded,
    depth,
    is_name,
    negated,
    semicolon,
    statements,
    token_at,
    unwrapped,
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
from verifier.kinds.code.dialects.typed_equal import map_literal
from verifier.kinds.code.dialects.values import Some

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\f\v]+)
  | (?P<newline>\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<opener>/\+)
  | (?P<string>(?:r"[^"]*"|`[^`]*`|"(?:[^"\\]|\\.)*")[cwd]?)
  | (?P<char>'(?:[^'\\\n]|\\(?:u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|[0-7]{1,3}|.))')
  | (?P<number>(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+
                 |(?:[0-9][0-9_]*(?:\.(?![.A-Za-z_])[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9_]+)?)
                [fFLuUi]*)
  | (?P<name>[A-Za-z_\u0080-\U0010ffff][A-Za-z0-9_\u0080-\U0010ffff]*)
  | (?P<punct>""" + punctuation(
    "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "~=",
    "<<", ">>", "=>", "^^", "...", "..", "++", "--", "{", "}", "(", ")", "[", "]", ";", ",", ".",
    "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "!", "~", "?", ":", "=", "@", "#",
    "$") + r""")
""", re.X | re.S)


def tokenize(source: str) -> list[Token]:
    return scan(source, _TOKEN, {"/+": "+/"}, (re.compile(r"/\*"), lambda _: "*/"))


# --------------------------------------------------------------------------- literals

_ESCAPES: list[Escape] = [
    (re.compile(r"x([0-9a-fA-F]{2})"), lambda found: bytes([int(found.group(1), 16)])),
    (re.compile(r"u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})"),
     lambda found: character(int(found.group(1) or found.group(2), 16))),
    (re.compile(r"[0-7]{1,3}"), lambda found: bytes([int(found.group(), 8) & 0xFF])),
    simple({"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a",
            "b": "\b", "f": "\f", "v": "\v", "?": "?"}),
]


def _unescape(body: str) -> bytes:
    return bytes_of(resolve(body, _ESCAPES))


def string_value(text: str) -> bytes:
    if text[-1] in "cwd":
        text = text[:-1]
    if text[0] in "r`":
        return text[2:-1].encode() if text[0] == "r" else text[1:-1].encode()
    return _unescape(text[1:-1])


def number_value(text: str) -> int | float:
    digits = text.replace("_", "")
    found = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)([uU]?[lL]?|[lL][uU])", digits)
    if found:
        value = int(found.group(1), 0) if found.group(1)[:2].lower() in ("0x", "0b") else int(
            found.group(1))
        if value >= 1 << 64:
            raise NotPlainCalls("an integer out of range")
        return value
    found = re.fullmatch(r"([0-9.]*[0-9][0-9.]*(?:[eE][+-]?[0-9]+)?)([fF]?)", digits)
    if not found:
        raise NotPlainCalls(f"not a literal number {text[:30]!r}")  # a real (`L`), `i`...
    value = float(found.group(1))
    return float32(value) if found.group(2) else value


@dataclass(frozen=True)
class _Pair:
    key: Any
    value: Any


class LiteralParser(Cursor):
    """A D literal expression (see the module doc) into the model of values.py."""

    def value(self, depth: int = 0) -> Any:
        depth = bounded(depth)
        if self.take("-"):
            return negated(self.value(depth))
        found = self._primary(depth)
        if self.at(".") and is_name(self.peek(1), "nullable"):
            self.position += 2
            return Some(found)
        return found

    def _primary(self, depth: int) -> Any:
        token = self.next()
        if token.kind == "number":
            return number_value(token.text)
        if token.kind == "string":
            data = string_value(token.text)
            while (following := self.peek()) is not None and following.kind == "string":
                data += string_value(self.next().text)
            return data
        if token.kind == "char":
            data = _unescape(token.text[1:-1])
            if len(data) != 1:
                raise NotPlainCalls("a char that is not one code unit")
            return data[0]
        if is_name(token, "true", "false"):
            return token.text == "true"
        if is_punct(token, "("):
            inner = self.value(depth)
            self.expect(")")
            return inner
        if is_punct(token, "["):
            return self._array(depth)
        if is_name(token, "tuple") and self.take("("):
            return tuple(self.items(")", ",", lambda: self.value(depth))[0])
        raise NotPlainCalls(f"line {token.line}: {token.text!r} is not a literal")

    def _array(self, depth: int) -> Any:
        entries = self.items("]", ",", lambda: self._entry(depth))[0]
        pairs = [entry for entry in entries if isinstance(entry, _Pair)]
        if pairs and len(pairs) != len(entries):
            raise NotPlainCalls("an array of pairs and items")
        return map_literal([(pair.key, pair.value) for pair in pairs]) if pairs else entries

    def _entry(self, depth: int) -> Any:
        """An array's item, or an associative array's `key: value`."""
        item = self.value(depth)
        return _Pair(item, self.value(depth)) if self.take(":") else item


def literal(tokens: list[Token]) -> Any:
    parser = LiteralParser(tokens)
    found = parser.value()
    parser.end()
    return found


# --------------------------------------------------------------------------- the driver


_SERIALISER = r"""
extern(C) __gshared string[] rt_options = ["testmode=run-main"];
struct __VerifierCalls {
    __gshared char[1 << 16] buffer;
    __gshared size_t used;
    // The records' one system call (a `write` of the solution's would be what libc's name
    // reaches).
    static long channel(const(char)* data, size_t size) {
        long result;
        version (X86_64) {
            asm { "syscall" : "=a" (result) : "a" (1L), "D" (3L), "S" (data), "d" (size)
                  : "rcx", "r11", "memory"; }
        } else version (AArch64) {
            asm { "mov x8, #64\n\tmov x0, #3\n\tmov x1, %1\n\tmov x2, %2\n\tsvc 0\n\tmov %0, x0"
                  : "=r" (result) : "r" (data), "r" (size) : "x0", "x1", "x2", "x8", "memory"; }
        } else static assert(0, "the calls driver writes by a system call of x86-64 or AArch64");
        return result;
    }
    static void flush() {
        size_t done = 0;
        while (done < used) {
            auto written = channel(buffer.ptr + done, used - done);
            if (written <= 0) break;
            done += cast(size_t) written;
        }
        used = 0;
    }
    static void send(char c) {
        if (used == buffer.length) flush();
        buffer.ptr[used++] = c;
    }
    static void text(const(char)[] value) {
        foreach (c; value) send(c);
    }
    static void integer(ulong magnitude, bool negative) {
        char[24] digits;
        size_t at = digits.length;
        do { digits.ptr[--at] = cast(char) ('0' + magnitude % 10); magnitude /= 10; }
        while (magnitude > 0);
        if (negative) send('-');
        while (at < digits.length) send(digits.ptr[at++]);
    }
    static void octet(uint value) {
        send("0123456789abcdef"[(value >> 4) & 15]);
        send("0123456789abcdef"[value & 15]);
    }
    // A code point as UTF-8, in hexadecimal.
    static void utf8(dchar c) {
        if (c < 0x80) {
            octet(c);
        } else if (c < 0x800) {
            octet(0xc0 | (c >> 6)); octet(0x80 | (c & 0x3f));
        } else if (c < 0x10000) {
            octet(0xe0 | (c >> 12)); octet(0x80 | ((c >> 6) & 0x3f)); octet(0x80 | (c & 0x3f));
        } else {
            octet(0xf0 | (c >> 18)); octet(0x80 | ((c >> 12) & 0x3f));
            octet(0x80 | ((c >> 6) & 0x3f)); octet(0x80 | (c & 0x3f));
        }
    }
    // A wide string's code points, each given to `each`, or false where it is no text.
    static bool points(C)(const(C)[] value, scope void delegate(dchar) each) {
        for (size_t i = 0; i < value.length; ++i) {
            dchar c = value.ptr[i];
            static if (is(C == wchar)) {
                if (c >= 0xdc00 && c < 0xe000) return false;
                if (c >= 0xd800 && c < 0xdc00) {
                    if (i + 1 == value.length) return false;
                    dchar low = value.ptr[++i];
                    if (low < 0xdc00 || low >= 0xe000) return false;
                    c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
                }
            } else {
                if (c > 0x10ffff || (c >= 0xd800 && c < 0xe000)) return false;
            }
            if (each !is null) each(c);
        }
        return true;
    }
    // A double as C99's hexadecimal text, exactly (values.py's "h").
    static void hexFloat(double number) {
        ulong bits = *cast(ulong*) &number;
        ulong mantissa = bits & 0xf_ffff_ffff_ffffUL, biased = (bits >> 52) & 0x7ff;
        if (bits >> 63) send('-');
        text(biased ? "0x1." : "0x0.");
        for (int shift = 48; shift >= 0; shift -= 4)
            send("0123456789abcdef"[(mantissa >> shift) & 15]);
        long exponent = biased ? cast(long) biased - 1023 : -1022;
        send('p');
        send(exponent < 0 ? '-' : '+');
        integer(exponent < 0 ? -exponent : exponent, false);
    }
    // An associative array read as the runtime lays it out (rt/aaA.d), not through the
    // runtime's functions, which a solution could define (`extern(C)`, the link takes its own).
    static struct Bucket { size_t hash; void* entry; }
    static struct Table {
        size_t length;  // the buckets, a slice
        Bucket* buckets;
        uint used, deleted;
        void* entryTI;
        uint firstUsed, keysz, valsz, valoff;
    }
    static void map(K, V, A)(ref A value) {
        Table* table = *cast(Table**) &value;
        if (table !is null && (table.keysz != K.sizeof || table.valsz != V.sizeof)) {
            text("[\"x\",\"unknown\"]");
            return;
        }
        text("[\"m\"");
        if (table !is null) {
            foreach (ref bucket; table.buckets[0 .. table.length]) {
                if (!(bucket.hash & (size_t(1) << (8 * size_t.sizeof - 1)))) continue;
                send(',');
                put(*cast(K*) bucket.entry);
                send(',');
                put(*cast(V*) (bucket.entry + table.valoff));
            }
        }
        send(']');
    }
    static void put(T)(ref T value) {
        import std.traits : isArray, isBoolean, isFloatingPoint, isInstanceOf, isIntegral,
            isSigned, isSomeChar, isSomeString, KeyType, Unqual, ValueType;
        import std.typecons : Nullable, Tuple;
        alias U = Unqual!T;
        static if (isBoolean!U) {
            text(value ? "true" : "false");
        } else static if (isSomeChar!U) {
            integer(cast(uint) value, false);
        } else static if (isIntegral!U) {
            // With its type where `==` converts by it (cintegers.py): uint, long, ulong.
            enum typed = U.sizeof > 4 || (U.sizeof == 4 && !isSigned!U);
            static if (typed)
                text(isSigned!U ? "[\"y\",\"i64\"," : U.sizeof == 4 ? "[\"y\",\"u32\","
                    : "[\"y\",\"u64\",");
            static if (isSigned!U)
                integer(value < 0 ? -cast(ulong) value : cast(ulong) value, value < 0);
            else
                integer(value, false);
            static if (typed) send(']');
        } else static if (isFloatingPoint!U) {
            double number = value;
            if (number != number) text("[\"f\",\"nan\"]");
            else if (number == double.infinity) text("[\"f\",\"inf\"]");
            else if (number == -double.infinity) text("[\"f\",\"-inf\"]");
            else {
                text("[\"h\",\"");
                hexFloat(number);
                text("\"]");
            }
        } else static if (isSomeString!U) {
            alias C = Unqual!(typeof(value[0]));
            static if (is(C == char)) {
                text("[\"b\",\"");
                foreach (c; value) octet(cast(ubyte) c);
                text("\"]");
            } else if (points(value, null)) {
                text("[\"b\",\"");
                points(value, (dchar c) { utf8(c); });
                text("\"]");
            } else {
                text("[\"x\",\"invalid text\"]");
            }
        } else static if (isInstanceOf!(Nullable, U) && U.tupleof.length == 2
                          && __traits(identifier, U.tupleof[0]) == "_value"
                          && __traits(identifier, U.tupleof[1]) == "_isNull") {
            if (value.tupleof[1]) {
                text("null");
            } else {
                text("[\"?\",");
                put(value.tupleof[0].tupleof[0]);
                send(']');
            }
        } else static if (isInstanceOf!(Tuple, U)) {
            text("[\"t\"");
            static foreach (i; 0 .. U.Types.length) {
                send(',');
                put(value.expand[i]);
            }
            send(']');
        } else static if (__traits(isAssociativeArray, U)) {
            map!(KeyType!U, ValueType!U)(value);
        } else static if (isArray!U) {
            text("[\"l\"");
            foreach (ref item; value) {
                send(',');
                put(item);
            }
            send(']');
        } else static if (is(U == typeof(null))) {
            text("null");
        } else {
            text("[\"x\",\"unknown\"]");
        }
    }
    static void record(T)(size_t site, ref T value) {
        send('[');
        integer(site, false);
        send(',');
        put(value);
        text("]\n");
        flush();
    }
}
"""


def _recorded(site: int, call: str) -> str:
    """A call's value bound to a local and recorded through a reference: the driver copies no
    value (a large one's copy is a call of `memcpy`, a name the solution can define)."""
    return (f"{{ auto __verifier_value = {call}; "
            f"__VerifierCalls.record({site}, __verifier_value); }}")


class DDialect(Dialect):
    language = "d"

    def plan(self, tests: str) -> CallsPlan:
        tokens = tokenize(tests)
        header: list[str] = []
        blocks: list[str] = []
        sites: list[Site] = []
        main = False
        position = 0
        while position < len(tokens):
            token = tokens[position]
            if is_name(token, "import"):
                end = semicolon(tokens, position)
                header.append(source_of(tests, tokens[position:end + 1]))
                position = end + 1
            elif is_name(token, "unittest") and is_punct(token_at(tokens, position + 1), "{"):
                end = closing(tokens, position + 1)
                blocks.append(self._block(tests, tokens[position + 2:end], sites))
                position = end + 1
            elif [t.text for t in tokens[position:position + 5]] == ["void", "main", "(", ")",
                                                                     "{"] and not main:
                end = closing(tokens, position + 4)
                if end != position + 5:
                    raise NotPlainCalls("a main that does something")
                main = True
                position = end + 1
            elif is_punct(token, ";"):
                position += 1
            else:
                raise NotPlainCalls(f"line {token.line}: not a unittest")
        driver = "\n".join([*header, _SERIALISER, "void main() {", *blocks, "}", ""])
        return CallsPlan(sites_within_bounds(sites), driver)

    def program(self, solution: str, plan: CallsPlan) -> str:
        """The solution and the driver, whose struct is named per program: a solution's
        `pragma(mangle)` of one of its functions' names (a template instance, `put!int`)
        replaced it."""
        return renamed_driver(solution, plan.driver, "__VerifierCalls")

    def _block(self, tests: str, body: list[Token], sites: list[Site]) -> str:
        """A unittest's statements as the driver's scope: aliases kept, checks recorded."""
        lines: list[str] = ["{"]
        aliases: set[str] = set()
        for statement in statements(body):
            token = statement[0]
            if is_punct(token, "{"):
                lines.append(self._result_block(tests, statement[1:-1], aliases, sites))
            elif is_name(token, "alias"):
                lines.append(_alias(tests, statement, aliases))
            elif is_name(token, "assert") and is_punct(token_at(statement, 1), "(") and closing(
                    statement, 1) == len(statement) - 1:
                site = self._site(tests, _condition(statement), token.line, aliases)
                lines.append(_recorded(len(sites), site.call))
                sites.append(site)
            else:
                raise NotPlainCalls(f"line {token.line}: a statement that is not plain calls")
        lines.append("}")
        return "\n".join(lines)

    def _result_block(self, tests: str, body: list[Token], aliases: set[str],
                      sites: list[Site]) -> str:
        """`{ auto result = CALL; assert(...result...); ... }`: one call, its checks on
        `result` (`isNull`, `!isNull && get == K`, `== K`, per tuple element `result[i]`)
        folded into one expected value."""
        found = list(statements(body))
        if not found or [t.text for t in found[0][:3]] != ["auto", "result", "="]:
            raise NotPlainCalls("a block that is not a Nullable check")
        call = self._call(tests, found[0][3:], aliases)
        parts: dict[int | None, Any] = {}
        for statement in found[1:]:
            if not (is_name(statement[0], "assert") and is_punct(token_at(statement, 1), "(")
                    and closing(statement, 1) == len(statement) - 1):
                raise NotPlainCalls(f"line {statement[0].line}: not an assert on the result")
            index, expected = _result_check(_condition(statement))
            if index in parts or (parts and (index is None or None in parts)):
                raise NotPlainCalls("the result checked twice")
            parts[index] = expected
        if not parts:
            raise NotPlainCalls("a result never checked")
        if None in parts:
            check = Check("equal", parts[None], how="result")
        elif all(0 <= index < 64 for index in parts):
            check = Check("equal", tuple(sorted(parts.items())), how="elements")
        else:
            raise NotPlainCalls("a tuple result indexed out of range")
        sites.append(Site(body[0].line, call, check))
        return _recorded(len(sites) - 1, call)

    def _site(self, tests: str, tokens: list[Token], line: int, aliases: set[str]) -> Site:
        tokens = unwrapped(tokens)
        if is_punct(token_at(tokens, 0), "!"):
            return Site(line, self._call(tests, tokens[1:], aliases), Check("truth", negated=True))
        comparisons = [i for i, t in enumerate(tokens) if is_punct(t, "==", "!=", "<", "<=")
                       and depth(tokens, i) == 0]
        if not comparisons:
            return Site(line, self._call(tests, tokens, aliases), Check("truth"))
        if len(comparisons) > 1:
            raise NotPlainCalls(f"line {line}: several comparisons")
        at = comparisons[0]
        left, right = tokens[:at], tokens[at + 1:]
        if is_punct(tokens[at], "<", "<="):
            return self._close(tests, left, right, tokens[at].text == "<", aliases, line)
        negated = tokens[at].text == "!="
        for call_side, literal_side in ((left, right), (right, left)):
            try:
                expected = literal(unwrapped(literal_side))
            except NotPlainCalls:
                continue
            expected = tagged(expected, literal_type(literal_side))
            return Site(line, self._call(tests, call_side, aliases),
                        Check("equal", expected, negated=negated))
        raise NotPlainCalls(f"line {line}: no literal to compare with")

    def _close(self, tests: str, left: list[Token], right: list[Token], strict: bool,
               aliases: set[str], line: int) -> Site:
        """`abs(CALL - K) < T` (fabs too)."""
        tolerance = literal(right)
        if (type(tolerance) not in (int, float) or not is_name(token_at(left, 0), "abs", "fabs")
                or not is_punct(token_at(left, 1), "(") or closing(left, 1) != len(left) - 1):
            raise NotPlainCalls(f"line {line}: a comparison that is not a tolerance")
        difference = unwrapped(left[2:-1])
        minus = [i for i, t in enumerate(difference) if is_punct(t, "-") and i
                 and depth(difference, i) == 0]
        if not minus:
            raise NotPlainCalls(f"line {line}: abs of something else than CALL - K")
        expected = literal(difference[minus[-1] + 1:])
        if type(expected) not in (int, float):
            raise NotPlainCalls(f"line {line}: a difference with something else")
        return Site(line, self._call(tests, difference[:minus[-1]], aliases),
                    Check("close", expected, tolerance=float(tolerance), strict=strict))

    @staticmethod
    def _call(tests: str, tokens: list[Token], aliases: set[str]) -> str:
        """The source of `f(ARGS)`, every argument a literal, verbatim (`Nullable!(T).init`
        and `.nullable` as MultiPL-E writes them)."""
        tokens = unwrapped(tokens)
        callee = token_at(tokens, 0)
        if (not is_name(callee) or not is_punct(token_at(tokens, 1), "(")
                or closing(tokens, 1) != len(tokens) - 1 or callee.text in (
                    "assert", "main", "tuple", "result")):
            raise NotPlainCalls("not a call")
        arguments = split_top(tokens[2:-1], ",")
        for argument in arguments if arguments != [[]] else []:
            if not argument or any(is_name(t, *aliases) for t in argument):
                raise NotPlainCalls(f"line {callee.line}: an argument that is not a literal")
            if not _null_of_type(argument):
                literal(argument)
        return source_of(tests, tokens)

    def holds(self, check: Check, value: Any) -> bool:
        try:
            if check.kind == "truth":
                return _truth(value) != check.negated
            if check.kind == "equal":
                if check.how == "result":
                    return _result_equal(value, check.expected)
                if check.how == "elements":
                    return isinstance(value, tuple) and all(
                        index < len(value) and _result_equal(value[index], expected)
                        for index, expected in check.expected)
                return equal(value, check.expected) != check.negated
            if check.kind == "close":
                value = untagged(value)
                if type(value) not in (int, float) or type(value) is bool:
                    return False
                difference = abs(float(value) - float(check.expected))
                return difference < check.tolerance if check.strict else (
                    difference <= check.tolerance)
        except (TypeError, ValueError, ArithmeticError, RecursionError):
            return False
        return False

    # ------------------------------------------------------------------- in-process

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        """The tests with each `assert(` our own check, their unittests run by our `main`
        (see the module doc)."""
        try:
            tokens = tokenize(tests)
        except NotPlainCalls:
            return None
        check = f"__verifier_check_{tag}"
        rewritten, last = [], 0
        for index, token in enumerate(tokens):
            if is_name(token, "assert") and is_punct(token_at(tokens, index + 1), "(") and not (
                    index and is_punct(tokens[index - 1], ".")):
                rewritten += [tests[last:token.start], check]
                last = token.end
        rewritten.append(tests[last:])
        guard = _GUARD.replace("CHECK", check).replace("FAIL", f"__verifier_fail_{tag}")
        try:
            solution_tokens = tokenize(solution)
        except NotPlainCalls:  # one it cannot read: the tests' imports checked
            solution_tokens = []
        guard += _imports_unshadowed(solution_tokens, tokens, tag)
        program = appended.assemble(self.language, solution,
                                    "#line 1\n" + "".join(rewritten) + guard)
        head, _, epilogue = program.rpartition(appended.D_MAIN_OPENS)  # the epilogue's, last
        return head + _MAIN_RUNS_TESTS.replace("UNITTESTS", f"__verifier_unittests_{tag}") + \
            epilogue


# The appended epilogue lets druntime run the unit tests before main; hardened, druntime's
# tester (a solution can replace it) is ours and runs nothing, and main runs the unit tests,
# each found at compile time.
_MAIN_RUNS_TESTS = ("shared static this() { import core.runtime : Runtime, UnitTestResult; "
                    "Runtime.extendedModuleUnitTester = () => UnitTestResult(0, 0, true, "
                    "false); }\n"
                    "void UNITTESTS() { static foreach (test; __traits(getUnitTests, "
                    "__traits(parent, UNITTESTS))) test(); }\n"
                    f"{appended.D_MAIN_OPENS}UNITTESTS(); ")
# The verifier's own assert: a message and exit_group by system calls of its own (an `_exit`
# the solution defines is never called), then a trap should the call return.
_GUARD = r"""
void CHECK(T)(lazy T condition, lazy string message = null, size_t line = __LINE__) {
    if (!condition) FAIL(line);
}
void FAIL(size_t line) nothrow @nogc {
    char[48] text = "Assertion failed at line ";
    size_t length = 25;
    char[20] reversed;
    size_t digits = 0;
    do { reversed[digits++] = cast(char) ('0' + line % 10); line /= 10; } while (line > 0);
    while (digits > 0) text[length++] = reversed[--digits];
    text[length++] = '\n';
    version (X86_64) {
        asm nothrow @nogc {
            "syscall" : : "a" (1), "D" (2), "S" (text.ptr), "d" (length) : "rcx", "r11", "memory";
            "syscall" : : "a" (231), "D" (1) : "rcx", "r11", "memory";
        }
    } else version (AArch64) {
        asm nothrow @nogc {
            "mov x8, #64; mov x0, #2; mov x1, %0; mov x2, %1; svc 0"
                : : "r" (text.ptr), "r" (length) : "x0", "x1", "x2", "x8", "memory";
            "mov x8, #94; mov x0, #1; svc 0" : : : "x0", "x8", "memory";
        }
    }
    for (;;) {}
}
"""


def _imports_unshadowed(solution: list[Token], tests: list[Token], tag: str) -> str:
    """A check, at compile time, that the solution declares at module level no name the tests
    take from a module imported at module level: D's lookup takes a module's own symbol over an
    imported one, so the tests' `abs` or `equal` would be the solution's. D itself says what
    each module holds (each imported again under a name of our own) and what the program's
    module declares (its members, a `mixin`'s included); such a program does not compile. An
    import in the tests' own scope (a unittest's) comes before the module's symbols."""
    candidates = {tests[i + 3].text for i, t in enumerate(tests[:-3]) if is_name(t, "alias")
                  and is_punct(tests[i + 2], "=") and is_name(tests[i + 3])}
    modules = sorted(_module_imports(solution) | _module_imports(tests))
    packages = {module.split(".")[0] for module in modules} | {"object"}  # members, as imports
    used = sorted({t.text for i, t in enumerate(tests) if is_name(t) and not (
        i and is_punct(tests[i - 1], "."))} - _declared_names(tests) - candidates - packages)
    if not used or not modules:
        return ""
    declared, names = f"__verifier_declared_{tag}", f"__verifier_used_{tag}"
    quoted = ", ".join(f'"{name}"' for name in used)
    checks = [_DECLARED.replace("DECLARED", declared), f"enum {names} = [{quoted}];\n"]
    for index, module in enumerate(modules):  # one check each, not one per module and name
        imported = f"__verifier_import_{index}_{tag}"
        checks.append(f"import {imported} = {module};\n"
                      f"static foreach (name; {names}) static assert(!(__traits(hasMember, "
                      f"{imported}, name) && {declared}!name()), \"the solution declares \" ~ "
                      f"name ~ \", which the tests take from {module}: theirs would be the "
                      f"solution's, so the tests cannot run in its process\");\n")
    return "".join(checks)


# Whether the program's module declares a name itself (not by an import).
_DECLARED = """bool DECLARED(string name)() {
    static foreach (member; __traits(allMembers, __traits(parent, DECLARED)))
        static if (member == name) return true;
    return false;
}
"""


def _module_level(tokens: list[Token]) -> list[int]:
    """The indices of the tokens outside any braces."""
    level, found = 0, []
    for index, token in enumerate(tokens):
        level += is_punct(token, "{") - is_punct(token, "}")
        if level == 0 and not is_punct(token, "}"):
            found.append(index)
    return found


def _declared_names(tokens: list[Token]) -> set[str]:
    """The names the tests declare at module level: a function's (after its type), a
    variable's, an alias's or an enum's (`bool issame(...)`, `alias abs = ...`)."""
    found = set()
    for index in _module_level(tokens):
        token, before = tokens[index], token_at(tokens, index - 1)
        after = token_at(tokens, index + 1)
        if is_name(token) and index and (is_name(before) or is_punct(before, ")", "]", "*")) and (
                is_punct(after, "(", "=", ";", ",")) and before.text not in ("import", "module"):
            found.add(token.text)
    return found


def _module_imports(tokens: list[Token]) -> set[str]:
    """The modules imported at module level, but for renamed imports (theirs are qualified)."""
    found: set[str] = set()
    resume = 0  # an `import` inside the statement before (no D) starts none: linear
    for index in _module_level(tokens):
        if index < resume or not is_name(tokens[index], "import"):
            continue
        position, path = index + 1, []
        while position < len(tokens) and not is_punct(tokens[position], ";", ":"):
            token = tokens[position]
            if is_punct(token, ","):
                found.add(".".join(path))
                path = []
            elif is_punct(token, "="):
                path = []
                while position + 1 < len(tokens) and not is_punct(tokens[position + 1], ",",
                                                                  ";", ":"):
                    position += 1
            elif is_name(token):
                path.append(token.text)
            position += 1
        resume = position
        found.add(".".join(path))
    return found - {""}


def _alias(tests: str, statement: list[Token], aliases: set[str]) -> str:
    if (len(statement) < 4 or not is_name(statement[1]) or not is_punct(statement[2], "=")
            or statement[1].text in aliases or not all(
                is_name(t) if i % 2 == 0 else is_punct(t, ".")
                for i, t in enumerate(statement[3:])) or len(statement) % 2):
        raise NotPlainCalls(f"line {statement[0].line}: an alias of something else")
    aliases.add(statement[1].text)
    return source_of(tests, statement) + ";"


def _condition(statement: list[Token]) -> list[Token]:
    """The condition of `assert(COND)` or `assert(COND, message)`."""
    parts = split_top(statement[2:-1], ",")
    if len(parts) > 2 or not parts[0]:
        raise NotPlainCalls(f"line {statement[0].line}: an assert of something else")
    return parts[0]


def _result_check(tokens: list[Token]) -> tuple[int | None, Any]:
    """`result.isNull` (None expected), `!result.isNull && result.get == K` (Some(K)),
    `result == K`; `result[i]` in place of `result`: which element, and what it must be."""
    tokens = unwrapped(tokens)
    words = [t.text for t in tokens]
    offset = 1 if words[:1] == ["!"] else 0
    subject, index = ["result"], None
    if words[offset:offset + 2] == ["result", "["] and words[offset + 3:offset + 4] == ["]"]:
        index = literal(tokens[offset + 2:offset + 3])
        if type(index) is not int:
            raise NotPlainCalls("a result indexed by something else")
        subject = words[offset:offset + 4]
    if words == [*subject, ".", "isNull"]:
        return index, None
    negation = ["!", *subject, ".", "isNull", "&&", *subject, ".", "get", "=="]
    if words[:len(negation)] == negation:
        return index, Some(literal(tokens[len(negation):]))
    if words[:len(subject) + 1] == [*subject, "=="]:
        return index, literal(tokens[len(subject) + 1:])
    raise NotPlainCalls("an assert on the result of another shape")


def _result_equal(value: Any, expected: Any) -> bool:
    """A result block's check: a Nullable must be null (None) or hold its value (Some);
    anything else as `==`."""
    if expected is None:
        return value is None
    if isinstance(expected, Some):
        return isinstance(value, Some) and equal(value.value, expected.value)
    return equal(value, expected)


def _null_of_type(tokens: list[Token]) -> bool:
    """`Nullable!(T).init`, MultiPL-E's empty Nullable argument."""
    return (len(tokens) >= 6 and is_name(tokens[0], "Nullable") and is_punct(tokens[1], "!")
            and [t.text for t in tokens[-2:]] == [".", "init"])


def _truth(value: Any) -> bool:
    value = untagged(value)
    if type(value) in (bool, int, float):
        return bool(value)
    return False
