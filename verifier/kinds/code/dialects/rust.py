"""Rust assert tests as calls: MultiPL-E's `fn main() { let candidate = f;
assert_eq!(candidate(ARGS), EXPECTED); }` (its leading `}`, which closes the prompt's
function, included) and the other shapes of the std macros.

Recognised, in `fn main`, after any `use` items: `let candidate = f;` (a path), then checks

    assert_eq!(CALL, K)   assert_eq!(K, CALL)   assert_ne!(...)     (a message after them too)
    assert!(CALL)   assert!(!CALL)   assert!(CALL == K)   assert!(CALL != K)
    assert!((CALL - K).abs() < T)    (also <=)

where CALL is a path called with literal arguments (copied verbatim) and K a literal: numbers
(an integer literal is an integer, `1.0`, `1e3`, `2f64` are floats), bools, strings
(`String::from("a")`, `"a".to_string()`, `"a"`), `vec![...]`, `Vec::new()`, arrays, tuples,
`Some(...)`, `None`, `HashMap::from([(k, v), ...])`, sets likewise. Values compare as Rust's
`==` would with the literal typed by the call's return type (typed.py): an f32 value against
`0.1` is against 0.1f32.

The driver is a module of our own (`__verifier_calls`, renamed per program: a solution cannot
implement its `Record` trait for a type of its own) holding a `Record` trait implemented for
the standard types, reaching std only through a crate alias of its own (`extern crate std as
__verifier_calls_std`: a solution's `extern crate self as std` or macros cannot reach it), then
a `main` making the calls in order. A return type it does not know does not compile, as the
tests would not have with a literal of that type.

In-process tests (anything else) get the std macros and prelude names they use qualified
through a crate alias named per program, so a solution's `macro_rules! assert_eq`, its own
`String`, `vec!` or `extern crate self as std` do not reach them; a solution whose own trait
gives a type not its own a method the tests call (`len`, `contains`) is refused; a solution's own
return type with a lying `PartialEq` still reaches them (README).
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
    renamed_driver,
    sites_within_bounds,
)
from verifier.kinds.code.dialects.cursor import (
    Cursor,
    bounded,
    depth,
    is_name,
    negated,
    token_at,
    unwrapped,
)
from verifier.kinds.code.dialects.lexer import (
    Token,
    bracket_pairs,
    closing,
    is_punct,
    source_of,
    split_top,
)
from verifier.kinds.code.dialects.scanner import (
    Escape,
    character,
    punctuation,
    resolve,
    scan,
    simple,
    text_of,
)
from verifier.kinds.code.dialects.typed_equal import map_literal, typed_holds
from verifier.kinds.code.dialects.values import Map, SetOf, Some

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\f\v]+)
  | (?P<newline>\n)
  | (?P<comment>//[^\n]*)
  | (?P<opener>/\*)
  | (?P<string>b?r(?P<hashes>\#*)"(?:.*?)"(?P=hashes)|b?"(?:[^"\\]|\\.)*")
  | (?P<char>b?'(?:[^'\\\n]|\\(?:u\{[0-9a-fA-F_]{1,8}\}|x[0-9a-fA-F]{2}|.))')
  | (?P<lifetime>'[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>(?:0x[0-9a-fA-F_]+|0o[0-7_]+|0b[01_]+
                 |[0-9][0-9_]*(?:\.(?![.A-Za-z_])[0-9_]*)?(?:[eE][+-]?[0-9_]+)?)
                (?:[iu](?:8|16|32|64|128|size)|f32|f64)?)
  | (?P<name>r\#[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_\u0080-\U0010ffff][A-Za-z0-9_\u0080-\U0010ffff]*)
  | (?P<punct>""" + punctuation(
    "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "^=",
    "&=", "|=", "<<=", ">>=", "..=", "...", "..", "{", "}", "(", ")", "[", "]", ";", ",", ".",
    "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "!", "~", "?", ":", "=", "@", "#",
    "$") + r""")
""", re.X | re.S)
_RAW = (re.compile(r'b?r(#*)"'), lambda opened: '"' + opened.group(1))  # a raw string's closer


def tokenize(source: str) -> list[Token]:
    """Rust tokens (nested block comments, raw and byte strings, lifetimes, suffixed numbers);
    NotPlainCalls on what it cannot read."""
    return scan(source, _TOKEN, {"/*": "*/"}, _RAW)


# --------------------------------------------------------------------------- literals

_ESCAPES: list[Escape] = [
    simple({"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}),
    (re.compile(r"\n[ \t\r\n]*"), lambda found: ""),  # a line continuation
    (re.compile(r"x([0-7][0-9a-fA-F])"), lambda found: chr(int(found.group(1), 16))),
    (re.compile(r"u\{([0-9a-fA-F_]{1,8})\}"),
     lambda found: character(int(found.group(1).replace("_", ""), 16))),
]
_MAPS = {"HashMap", "BTreeMap"}
_SETS = {"HashSet", "BTreeSet"}
_LISTS = {"Vec", "VecDeque"}
_STRING_METHODS = {"to_string", "to_owned", "into"}


class _Char:
    """A char literal: an argument may be one, an expected value may not (a char is recorded
    as a value that equals nothing, so such tests run in-process)."""


def string_value(text: str) -> str:
    """The value of a (raw) string literal."""
    if text.startswith("b"):
        raise NotPlainCalls("a byte string")
    if text.startswith("r"):
        return text[text.index('"') + 1:text.rindex('"')]
    return text_of(resolve(text[1:-1], _ESCAPES))


def number_value(text: str) -> int | float:
    """A Rust number literal: an int, or a float (a `.`, an exponent, an f32/f64 suffix)."""
    digits = text.replace("_", "")
    radix = digits[:2] in ("0x", "0o", "0b")
    suffix = re.search(r"(?:[iu](?:8|16|32|64|128|size)|f32|f64)$" if not radix
                       else r"[iu](?:8|16|32|64|128|size)$", digits)
    if suffix:
        digits = digits[:suffix.start()]
    floating = suffix is not None and suffix.group().startswith("f")
    try:
        if radix:
            return int(digits, 0)
        if floating or "." in digits or "e" in digits.lower():
            value = float(digits)
            return value
        value = int(digits)
    except ValueError:
        raise NotPlainCalls(f"not a number {text[:30]!r}") from None
    if value >= 1 << 128:
        raise NotPlainCalls("an integer out of range")
    return value


class LiteralParser(Cursor):
    """A Rust literal expression (see the module doc) into the model of values.py."""

    def value(self, depth: int = 0) -> Any:
        depth = bounded(depth)
        while self.take("&"):
            self.take("mut")
        if self.take("-"):
            return negated(self.value(depth))
        token = self.next()
        if token.kind == "number":
            return number_value(token.text)
        if token.kind == "char":
            if token.text.startswith("b"):
                raise NotPlainCalls("a byte literal")
            return _Char()
        if token.kind == "string":
            found = string_value(token.text)
            if self.at(".") and is_name(self.peek(1), *_STRING_METHODS):
                self.position += 2
                self.expect("(")
                self.expect(")")
            return found
        if is_punct(token, "("):
            return self._parenthesised(depth)
        if is_punct(token, "["):
            return self._array(depth, "]")
        if token.kind == "name":
            return self._named(token, depth)
        raise NotPlainCalls(f"line {token.line}: {token.text!r} is not a literal")

    def _parenthesised(self, depth: int) -> Any:
        items, commas = self.items(")", ",", lambda: self.value(depth))
        return items[0] if len(items) == 1 and not commas else tuple(items)

    def _array(self, depth: int, closer: str) -> list[Any]:
        if self.take(closer):
            return []
        first = self.value(depth)
        if self.take(";"):
            count = self.value(depth)
            self.expect(closer)
            if type(count) is not int or not 0 <= count <= 10_000:
                raise NotPlainCalls("a repeat count out of range")
            return [first] * count
        items = [first]
        while self.take(","):
            if self.at(closer):
                break
            items.append(self.value(depth))
        self.expect(closer)
        return items

    def _path(self, first: Token) -> list[str]:
        """The words of a path starting at `first` (`std::collections::HashMap`), turbofish
        type arguments skipped."""
        words = [first.text]
        while self.at("::"):
            self.position += 1
            if self.at("<"):
                self._skip_generics()
                continue
            words.append(self.next().text)
        return words

    def _skip_generics(self) -> None:
        self.expect("<")
        depth = 1
        while depth:
            token = self.next()
            if is_punct(token, "<"):
                depth += 1
            elif is_punct(token, ">"):
                depth -= 1
            elif is_punct(token, "{", "}", ";"):  # a tuple type's parentheses are types'
                raise NotPlainCalls("not a type")

    def _named(self, token: Token, depth: int) -> Any:
        if token.text in ("true", "false"):
            return token.text == "true"
        words = self._path(token)
        name = words[-1]
        if len(words) == 1 and name == "vec" and self.take("!"):
            opener = self.next()
            closers = {"[": "]", "(": ")", "{": "}"}
            if not is_punct(opener, *closers):
                raise NotPlainCalls("vec! without brackets")
            return self._array(depth, closers[opener.text])
        if name == "None" and words in (["None"], ["Option", "None"],
                                        ["std", "option", "Option", "None"]):
            return None
        if name == "Some" and words in (["Some"], ["Option", "Some"],
                                        ["std", "option", "Option", "Some"]):
            self.expect("(")
            inner = self.value(depth)
            self.expect(")")
            return Some(inner)
        if len(words) < 2:
            raise NotPlainCalls(f"line {token.line}: {name!r} is not a literal")
        owner, method = words[-2], words[-1]
        self.expect("(")
        if method == "new" and self.take(")"):
            return self._empty(owner)
        if method == "from" and owner in {"String"} | _LISTS | _MAPS | _SETS:
            inner = self.value(depth)
            self.expect(")")
            return self._converted(owner, inner)
        raise NotPlainCalls(f"line {token.line}: {owner}::{method} is not a literal")

    @staticmethod
    def _empty(owner: str) -> Any:
        if owner == "String":
            return ""
        if owner in _LISTS:
            return []
        if owner in _MAPS:
            return Map(())
        if owner in _SETS:
            return SetOf(())
        raise NotPlainCalls(f"{owner}::new() is not a literal")

    @staticmethod
    def _converted(owner: str, inner: Any) -> Any:
        if owner == "String":
            if type(inner) is not str:
                raise NotPlainCalls("String::from of something else")
            return inner
        if type(inner) is not list:
            raise NotPlainCalls(f"{owner}::from of something else than an array")
        if owner in _LISTS:
            return inner
        if owner in _SETS:
            return SetOf(tuple(inner))
        if not all(type(entry) is tuple and len(entry) == 2 for entry in inner):
            raise NotPlainCalls("a map of something else than pairs")
        return map_literal(inner)


def literal(tokens: list[Token]) -> Any:
    parser = LiteralParser(tokens)
    found = parser.value()
    parser.end()
    return found


def _expected(tokens: list[Token]) -> Any:
    found = literal(tokens)
    if _has_char(found, 0):
        raise NotPlainCalls("a char expected")
    return found


def _has_char(value: Any, depth: int) -> bool:
    if isinstance(value, _Char):
        return True
    if depth > 70:
        return True
    if isinstance(value, list | tuple):
        return any(_has_char(item, depth + 1) for item in value)
    if isinstance(value, Some):
        return _has_char(value.value, depth + 1)
    if isinstance(value, Map):
        return any(_has_char(k, depth + 1) or _has_char(v, depth + 1) for k, v in value.pairs)
    if isinstance(value, SetOf):
        return any(_has_char(item, depth + 1) for item in value.items)
    return False


# --------------------------------------------------------------------------- the driver


_CRATE = "__verifier_calls_std"
_SERIALISER = r"""
extern crate std as __verifier_calls_std;
#[allow(dead_code, unused_imports, unused_variables, non_snake_case, non_camel_case_types)]
mod __verifier_calls {
    use __verifier_calls_std::boxed::Box;
    use __verifier_calls_std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
    use __verifier_calls_std::io::Write;
    use __verifier_calls_std::option::Option::{self, None, Some};
    use __verifier_calls_std::os::unix::io::FromRawFd;
    use __verifier_calls_std::string::{String, ToString};
    use __verifier_calls_std::vec::Vec;
    pub trait Record {
        fn put(&self, out: &mut String);
    }
    #[inline]
    fn text(out: &mut String, value: &str) {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        out.push('"');
        for c in value.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 => {
                    out.push_str("\\u00");
                    out.push(DIGITS[(c as usize) >> 4] as char);
                    out.push(DIGITS[(c as usize) & 15] as char);
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }
    #[inline]
    fn float(out: &mut String, value: f64) {
        if value.is_nan() {
            out.push_str("[\"f\",\"nan\"]");
        } else if value.is_infinite() {
            out.push_str(if value > 0.0 { "[\"f\",\"inf\"]" } else { "[\"f\",\"-inf\"]" });
        } else {
            let mut digits = String::new();
            let _ = __verifier_calls_std::fmt::Write::write_fmt(
                &mut digits, __verifier_calls_std::format_args!("{:?}", value));
            let integral = !digits.contains('.') && !digits.contains('e');
            out.push_str(&digits);
            if integral {
                out.push_str(".0");
            }
        }
    }
    macro_rules! __verifier_integers {
        ($($t:ty),*) => {$(impl Record for $t {
            #[inline] fn put(&self, out: &mut String) { out.push_str(&self.to_string()); }
        })*};
    }
    __verifier_integers!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
    impl Record for bool {
        #[inline] fn put(&self, out: &mut String) {
            out.push_str(if *self { "true" } else { "false" });
        }
    }
    impl Record for f64 {
        #[inline] fn put(&self, out: &mut String) { float(out, *self); }
    }
    impl Record for f32 {
        #[inline] fn put(&self, out: &mut String) {
            out.push_str("[\"f32\",");
            float(out, *self as f64);
            out.push(']');
        }
    }
    impl Record for char {
        #[inline] fn put(&self, out: &mut String) { out.push_str("[\"x\",\"char\"]"); }
    }
    impl Record for str {
        #[inline] fn put(&self, out: &mut String) { text(out, self); }
    }
    impl Record for String {
        #[inline] fn put(&self, out: &mut String) { text(out, self); }
    }
    impl Record for () {
        #[inline] fn put(&self, out: &mut String) { out.push_str("[\"t\"]"); }
    }
    impl<T: Record + ?Sized> Record for &T {
        #[inline] fn put(&self, out: &mut String) { (**self).put(out); }
    }
    impl<T: Record + ?Sized> Record for &mut T {
        #[inline] fn put(&self, out: &mut String) { (**self).put(out); }
    }
    impl<T: Record + ?Sized> Record for Box<T> {
        #[inline] fn put(&self, out: &mut String) { (**self).put(out); }
    }
    impl<T: Record + ?Sized> Record for __verifier_calls_std::rc::Rc<T> {
        #[inline] fn put(&self, out: &mut String) { (**self).put(out); }
    }
    impl<T: Record + ?Sized> Record for __verifier_calls_std::sync::Arc<T> {
        #[inline] fn put(&self, out: &mut String) { (**self).put(out); }
    }
    impl<'a, T: Record + __verifier_calls_std::borrow::ToOwned + ?Sized> Record
            for __verifier_calls_std::borrow::Cow<'a, T> {
        #[inline] fn put(&self, out: &mut String) { (**self).put(out); }
    }
    fn items<'a, T: Record + 'a, I: __verifier_calls_std::iter::Iterator<Item = &'a T>>(
            out: &mut String, tag: &str, values: I) {
        out.push_str(tag);
        for value in values {
            out.push(',');
            value.put(out);
        }
        out.push(']');
    }
    impl<T: Record> Record for [T] {
        #[inline] fn put(&self, out: &mut String) { items(out, "[\"l\"", self.iter()); }
    }
    impl<T: Record, const N: usize> Record for [T; N] {
        #[inline] fn put(&self, out: &mut String) { items(out, "[\"l\"", self.iter()); }
    }
    impl<T: Record> Record for Vec<T> {
        #[inline] fn put(&self, out: &mut String) { items(out, "[\"l\"", self.iter()); }
    }
    impl<T: Record> Record for VecDeque<T> {
        #[inline] fn put(&self, out: &mut String) { items(out, "[\"l\"", self.iter()); }
    }
    impl<T: Record, S> Record for HashSet<T, S> {
        #[inline] fn put(&self, out: &mut String) { items(out, "[\"s\"", self.iter()); }
    }
    impl<T: Record> Record for BTreeSet<T> {
        #[inline] fn put(&self, out: &mut String) { items(out, "[\"s\"", self.iter()); }
    }
    fn entries<'a, K: Record + 'a, V: Record + 'a,
               I: __verifier_calls_std::iter::Iterator<Item = (&'a K, &'a V)>>(
            out: &mut String, values: I) {
        out.push_str("[\"m\"");
        for (key, value) in values {
            out.push(',');
            key.put(out);
            out.push(',');
            value.put(out);
        }
        out.push(']');
    }
    impl<K: Record, V: Record, S> Record for HashMap<K, V, S> {
        #[inline] fn put(&self, out: &mut String) { entries(out, self.iter()); }
    }
    impl<K: Record, V: Record> Record for BTreeMap<K, V> {
        #[inline] fn put(&self, out: &mut String) { entries(out, self.iter()); }
    }
    impl<T: Record> Record for Option<T> {
        #[inline] fn put(&self, out: &mut String) {
            match self {
                Some(value) => {
                    out.push_str("[\"?\",");
                    value.put(out);
                    out.push(']');
                }
                None => out.push_str("null"),
            }
        }
    }
    macro_rules! __verifier_tuples {
        ($(($($name:ident),+)),*) => {$(impl<$($name: Record),+> Record for ($($name,)+) {
            #[inline] fn put(&self, out: &mut String) {
                let ($($name,)+) = self;
                out.push_str("[\"t\"");
                $(out.push(','); $name.put(out);)+
                out.push(']');
            }
        })*};
    }
    __verifier_tuples!((A), (A, B), (A, B, C), (A, B, C, D), (A, B, C, D, E),
                       (A, B, C, D, E, F), (A, B, C, D, E, F, G), (A, B, C, D, E, F, G, H));
    pub fn record<T: Record + ?Sized>(site: usize, value: &T) {
        let mut out = String::from("[");
        out.push_str(&site.to_string());
        out.push(',');
        value.put(&mut out);
        out.push_str("]\n");
        let mut channel = __verifier_calls_std::mem::ManuallyDrop::new(
            unsafe { __verifier_calls_std::fs::File::from_raw_fd(3) });
        let _ = channel.write_all(out.as_bytes());
    }
}
"""


_ASSERTS = {"assert", "assert_eq", "assert_ne"}


class RustDialect(Dialect):
    language = "rust"

    def plan(self, tests: str) -> CallsPlan:
        tokens = tokenize(tests)
        position = 0
        while position < len(tokens) and (is_punct(tokens[position], "}") or
                                          is_name(tokens[position], "use")):
            position = (_statement_end(tokens, position)[1] if tokens[position].text == "use"
                        else position + 1)
        head = tokens[:position]
        rest = tokens[position:]
        if [t.text for t in rest[:5]] != ["fn", "main", "(", ")", "{"]:
            raise NotPlainCalls("no fn main")
        end = closing(rest, 4)
        if end != len(rest) - 1:
            raise NotPlainCalls("something after fn main")
        lines, sites = self._main(tests, rest[5:end])
        prefix = source_of(tests, head)
        driver = "\n".join([prefix, _SERIALISER, "fn main() {", *lines, "}", ""])
        return CallsPlan(sites_within_bounds(sites), driver)

    def _main(self, tests: str, body: list[Token]) -> tuple[list[str], list[Site]]:
        lines: list[str] = []
        sites: list[Site] = []
        aliases: set[str] = set()
        position = 0
        while position < len(body):
            if is_punct(body[position], ";"):
                position += 1
                continue
            end, position_after = _statement_end(body, position)
            statement = body[position:end]
            position = position_after
            head = statement[0]
            if head.text == "let":
                lines.append(self._alias(tests, statement, aliases) + ";")
            elif (is_name(head, *_ASSERTS) and is_punct(token_at(statement, 1), "!")
                  and is_punct(token_at(statement, 2), "(", "[", "{")
                  and closing(statement, 2) == len(statement) - 1):
                site = self._site(tests, head, statement[3:-1], aliases)
                lines.append(f"__verifier_calls::record({len(sites)}, &({site.call}));")
                sites.append(site)
            else:
                raise NotPlainCalls(f"line {head.line}: a statement that is not plain calls")
        return lines, sites

    @staticmethod
    def _alias(tests: str, statement: list[Token], aliases: set[str]) -> str:
        """`let candidate = path`: the statement's source."""
        if (len(statement) < 4 or not is_name(statement[1]) or not is_punct(statement[2], "=")
                or statement[1].text in aliases):
            raise NotPlainCalls(f"line {statement[0].line}: a let that is not an alias")
        path = statement[3:]
        if not all(is_name(t) if i % 2 == 0 else is_punct(t, "::") for i, t in enumerate(path)) \
                or len(path) % 2 == 0:
            raise NotPlainCalls(f"line {statement[0].line}: a let that is not an alias")
        aliases.add(statement[1].text)
        return source_of(tests, statement)

    def _site(self, tests: str, macro: Token, inner: list[Token], aliases: set[str]) -> Site:
        parts = split_top(inner, ",")
        if parts and not parts[-1]:
            parts.pop()
        if not parts or not all(parts):
            raise NotPlainCalls(f"line {macro.line}: an empty argument")
        if macro.text == "assert":
            return self._condition(tests, macro.line, parts[0], aliases)
        if len(parts) < 2:
            raise NotPlainCalls(f"line {macro.line}: {macro.text}! of one argument")
        call, expected = self._either(tests, parts[0], parts[1], aliases, macro.line)
        return Site(macro.line, call, Check("equal", expected, negated=macro.text == "assert_ne"))

    def _condition(self, tests: str, line: int, tokens: list[Token], aliases: set[str]) -> Site:
        tokens = unwrapped(tokens)
        if is_punct(token_at(tokens, 0), "!"):
            return Site(line, self._call(tests, tokens[1:], aliases),
                        Check("truth", negated=True))
        comparisons = [i for i, t in enumerate(tokens) if is_punct(t, "==", "!=", "<", "<=")
                       and depth(tokens, i) == 0 and not is_punct(token_at(tokens, i - 1), "::")]
        if not comparisons:
            return Site(line, self._call(tests, tokens, aliases), Check("truth"))
        if len(comparisons) > 1:
            raise NotPlainCalls(f"line {line}: several comparisons")
        at = comparisons[0]
        left, right = tokens[:at], tokens[at + 1:]
        if is_punct(tokens[at], "==", "!="):
            call, expected = self._either(tests, left, right, aliases, line)
            return Site(line, call, Check("equal", expected, negated=tokens[at].text == "!="))
        return self._close(tests, left, right, tokens[at].text == "<", aliases, line)

    def _close(self, tests: str, left: list[Token], right: list[Token], strict: bool,
               aliases: set[str], line: int) -> Site:
        """`(CALL - K).abs() < T`."""
        tolerance = literal(right)
        if (type(tolerance) not in (int, float) or len(left) < 5
                or [t.text for t in left[-4:]] != [".", "abs", "(", ")"]):
            raise NotPlainCalls(f"line {line}: a comparison that is not a tolerance")
        difference = unwrapped(left[:-4])
        if len(difference) == len(left) - 4:
            raise NotPlainCalls(f"line {line}: abs of something unparenthesised")
        minus = [i for i, t in enumerate(difference) if is_punct(t, "-") and i
                 and depth(difference, i) == 0]
        if not minus:
            raise NotPlainCalls(f"line {line}: abs of something else than CALL - K")
        at = minus[-1]
        call = self._call(tests, difference[:at], aliases)
        expected = literal(difference[at + 1:])
        if type(expected) not in (int, float):
            raise NotPlainCalls(f"line {line}: a difference with something else")
        return Site(line, call, Check("close", expected, tolerance=float(tolerance),
                                      strict=strict))

    def _either(self, tests: str, first: list[Token], second: list[Token], aliases: set[str],
                line: int) -> tuple[str, Any]:
        for call_side, literal_side in ((first, second), (second, first)):
            try:
                expected = _expected(literal_side)
            except NotPlainCalls:
                continue
            return self._call(tests, call_side, aliases), expected
        raise NotPlainCalls(f"line {line}: no literal to compare with")

    @staticmethod
    def _call(tests: str, tokens: list[Token], aliases: set[str]) -> str:
        """The source of `path(ARGS)`, every argument a literal."""
        tokens = unwrapped(tokens)
        position = 0
        while is_name(token_at(tokens, position)) and is_punct(token_at(tokens, position + 1),
                                                              "::"):
            position += 2
        callee = token_at(tokens, position)
        if (not is_name(callee) or not is_punct(token_at(tokens, position + 1), "(")
                or closing(tokens, position + 1) != len(tokens) - 1):
            raise NotPlainCalls("not a call")
        if callee.text in ("Some", "Ok", "Err", "Box", "String", "Vec", "vec", "main"):
            raise NotPlainCalls(f"line {callee.line}: a call of {callee.text!r}")
        arguments = split_top(tokens[position + 2:-1], ",")
        if arguments and not arguments[-1]:
            arguments.pop()
        for argument in arguments:
            if not argument or any(is_name(t, *aliases) for t in argument):
                raise NotPlainCalls(f"line {callee.line}: an argument that is not a literal")
            literal(argument)
        return source_of(tests, tokens)

    def program(self, solution: str, plan: CallsPlan) -> str:
        """The solution and the driver, its module renamed to a name drawn per program: an
        `impl __verifier_calls::Record` of the solution's for a type of its own was what the
        record called. A solution that may define a symbol under a name of its choosing is
        refused (see _SYMBOL_MAKERS)."""
        makers = _symbol_makers(solution)
        if makers:
            return _REFUSED_SYMBOLS.replace("NAMES", ", ".join(makers))
        return renamed_driver(solution, plan.driver, "__verifier_calls")

    def holds(self, check: Check, value: Any) -> bool:
        return typed_holds(check, value, integers_are_polymorphic=False)

    # ------------------------------------------------------------------- in-process

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        """The appended program with the std macros and prelude names the tests use qualified
        through a crate alias named after `tag` (see the module doc)."""
        try:
            tokens = tokenize(tests)
        except NotPlainCalls:
            return None
        called = {tokens[i + 1].text for i, t in enumerate(tokens[:-2]) if is_punct(t, ".")
                  and is_name(tokens[i + 1]) and is_punct(tokens[i + 2], "(", "::")}
        try:
            shadowing = sorted(_foreign_trait_methods(tokenize(solution)) & called)
        except NotPlainCalls:  # one it cannot read: each function it names as a method called
            shadowing = sorted(set(re.findall(r"\bfn\s+(\w+)", solution)) & called
                               if "trait" in solution else ())
        if shadowing:
            return _REFUSED.replace("NAMES", ", ".join(shadowing))
        crate = f"__verifier_std_{tag}"
        own = _declared(tokens)
        rewritten, last = [], 0
        for index, token in enumerate(tokens):
            path = _qualified(tokens, index, own)
            if path is not None:
                rewritten += [tests[last:token.start], f"{crate}::{path}"]
                last = token.end
        rewritten.append(tests[last:])
        hardened = "".join(rewritten) + f"\nextern crate std as {crate};\n"
        return appended.assemble(self.language, solution, hardened)


# A method of a trait of the solution's, implemented for a type that is not the solution's own
# (`impl Len for Vec<i64> { fn len(self) ... }`), is what the tests' `v.len()` calls: Rust's
# method lookup tries each receiver type in turn (by value, then `&`, `&mut`, then through
# `Deref`), and the trait's method at an earlier step wins over std's (an inherent `len(&self)`,
# a slice's `contains` reached through `Vec`'s Deref). No path of the tests' can avoid it short
# of knowing every receiver's type, so such a program is refused; a trait for the solution's own
# types (its own `PartialEq` aside, README) reaches nothing the tests call on std's values.
_REFUSED = """fn main() {
    eprintln!("the solution's own trait gives NAMES to types not its own, and the tests call \\
methods of those names: they would reach its methods before std's, so the tests cannot run in \\
its process");
    std::process::exit(1);
}
"""


# What gives a symbol a name of the solution's choosing: `#[no_mangle]`, `#[export_name]`,
# assembly (`global_asm!`, `asm!`, `naked_asm!`: a `.globl write`), and what reaches the
# driver's allocations (`#[global_allocator]`), or brings in such text from elsewhere
# (`include!`). The driver and the solution are one program, linked as one: a `write`,
# `memcpy` or `realloc` the solution defines is the one std's `File::write_all` and `String`
# reach (the link takes a program's own symbol over the C library's), so a wrong solution's
# `write` rewrote the records. Macros cannot build these names: each is in the source.
_SYMBOL_MAKERS = frozenset({"no_mangle", "export_name", "global_asm", "asm", "naked_asm",
                            "global_allocator", "include"})
_REFUSED_SYMBOLS = """fn main() {
    eprintln!("the solution uses NAMES, which can define a symbol under a name of its own \\
choosing (a `write` or `memcpy` of C's) that the calls driver would reach");
    std::process::exit(1);
}
"""


def _symbol_makers(solution: str) -> list[str]:
    """The names of _SYMBOL_MAKERS the solution uses (raw identifiers too); of one it cannot
    read, every such word in its text."""
    try:
        names = {t.text.removeprefix("r#") for t in tokenize(solution) if t.kind == "name"}
    except NotPlainCalls:
        names = set(re.findall(r"\w+", solution))
    return sorted(names & _SYMBOL_MAKERS)


def _foreign_trait_methods(tokens: list[Token]) -> set[str]:
    """The methods of the solution's own traits that it implements for a type not its own
    (std's, a generic `T`, a reference or slice of one): a fn counts for the innermost trait
    around it. Linear in the tokens, whatever the solution (a pass of each kind)."""
    own_types = {tokens[i + 1].text for i, t in enumerate(tokens[:-1])
                 if t.text in ("struct", "enum", "union") and is_name(tokens[i + 1])}
    bodies = _item_bodies(tokens)
    methods: dict[str, set[str]] = {}
    foreign: set[str] = set()
    traits: list[tuple[int, set[str]]] = []  # the open traits' bodies: (closing index, fns)
    for index, token in enumerate(tokens):
        while traits and traits[-1][0] < index:
            traits.pop()
        body = bodies.get(index)
        if token.text == "trait" and body:
            traits.append((body[1], set()))
            methods[tokens[index + 1].text] = traits[-1][1]
        elif token.text == "impl" and body:
            header, depth = [], 0
            for t in tokens[index + 1:body[0]]:
                if depth == 0:
                    header.append(t)
                depth += is_punct(t, "<") - is_punct(t, ">")  # `->` is no `>`
            words = [t.text for t in header]
            if "for" in words:
                at = words.index("for")
                impl_traits = [t.text for t in header[:at] if is_name(t)]
                end = words.index("where") if "where" in words else len(words)
                if impl_traits and not _own_type(words[at + 1:end], own_types):
                    foreign.add(impl_traits[-1])
        elif token.text == "fn" and traits and is_name(token_at(tokens, index + 1)):
            traits[-1][1].add(tokens[index + 1].text)
    return set().union(*(methods.get(name, set()) for name in foreign))


def _own_type(words: list[str], own_types: set[str]) -> bool:
    """Whether an impl's self type (its header's words at angle depth 0) is one the solution
    declares: its name, after a path of `crate`, `self` or `super`, with its generic arguments
    at most; an array, slice, tuple, reference or pointer of one is std's."""
    while len(words) > 2 and words[0] in ("crate", "self", "super") and words[1] == "::":
        words = words[2:]
    return bool(words) and words[0] in own_types and words[1:] in ([], ["<"])


def _item_bodies(tokens: list[Token]) -> dict[int, tuple[int, int]]:
    """The token range of the `{...}` body of each `trait NAME` and `impl` (the first `{`
    after it, before any `;` or `}`), by its index. Of several such items before one `{`
    (`impl impl ... {`, no Rust) only the last has it: a header holds no other. NotPlainCalls
    if a body's braces are unbalanced."""
    pairs = bracket_pairs(tokens)
    found: dict[int, tuple[int, int]] = {}
    waiting: int | None = None
    inside = 0  # brackets open in the header: an array type's `;` (`[T; N]`) ends nothing
    for index, token in enumerate(tokens):
        if token.text == "impl" or (token.text == "trait" and is_name(
                token_at(tokens, index + 1))):
            waiting, inside = index, 0
        elif is_punct(token, "(", "["):
            inside += 1
        elif is_punct(token, ")", "]"):
            inside -= 1
        elif is_punct(token, ";") and inside > 0:
            continue
        elif is_punct(token, ";", "}"):
            waiting = None
        elif is_punct(token, "{") and waiting is not None:
            if index not in pairs:
                raise NotPlainCalls(f"line {token.line}: unbalanced braces")
            found[waiting] = (index, pairs[index])
            waiting = None
    return found


_STD_MACROS = {name: name for name in (
    "assert", "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne",
    "vec", "panic", "format", "print", "println", "eprint", "eprintln", "write", "writeln",
    "unreachable", "unimplemented", "todo", "matches", "dbg")}
_PRELUDE = {
    "String": "string::String", "Vec": "vec::Vec", "Some": "option::Option::Some",
    "None": "option::Option::None", "Option": "option::Option", "Ok": "result::Result::Ok",
    "Err": "result::Result::Err", "Result": "result::Result", "Box": "boxed::Box",
    "HashMap": "collections::HashMap", "HashSet": "collections::HashSet",
    "BTreeMap": "collections::BTreeMap", "BTreeSet": "collections::BTreeSet",
    "VecDeque": "collections::VecDeque", "ToString": "string::ToString",
}


def _qualified(tokens: list[Token], index: int, own: set[str]) -> str | None:
    """The std path a token of the tests names, if it is a std macro or prelude name used
    unqualified (not after `::` or `.`, not one the tests declare themselves)."""
    token = tokens[index]
    if token.kind != "name" or token.text in own:
        return None
    before = tokens[index - 1] if index else None
    if is_punct(before, "::", ".") or (before is not None and before.text in (
            "fn", "struct", "enum", "mod", "trait", "type", "macro_rules", "let", "const",
            "static", "union")):
        return None
    bang = is_punct(token_at(tokens, index + 1), "!")
    if bang:
        return _STD_MACROS.get(token.text)
    return _PRELUDE.get(token.text)


def _declared(tokens: list[Token]) -> set[str]:
    """Names the tests declare themselves (items, macros, bindings): never qualified."""
    return {tokens[i + 1].text for i, t in enumerate(tokens[:-1]) if t.text in (
        "fn", "struct", "enum", "mod", "trait", "type", "macro_rules", "let", "const", "static",
        "union", "mut", "use", "as") and tokens[i + 1].kind == "name"} | {
        tokens[i + 1].text for i, t in enumerate(tokens[:-1]) if is_punct(t, "!")
        and tokens[i].text == "macro_rules"}


def _statement_end(tokens: list[Token], position: int) -> tuple[int, int]:
    """Where the statement at `position` ends (exclusive) and the next one starts: at its `;`,
    or after the `}` of a macro in braces (`assert!{...}`), which needs none."""
    while position < len(tokens):
        token = tokens[position]
        if is_punct(token, "(", "[", "{"):
            end = closing(tokens, position)
            if (is_punct(token, "{") and is_punct(token_at(tokens, position - 1), "!")
                    and not is_punct(token_at(tokens, end + 1), ";", ".", "?")):
                return end + 1, end + 1
            position = end + 1
            continue
        if is_punct(token, ";"):
            return position, position + 1
        if is_punct(token, ")", "]", "}"):
            break
        position += 1
    raise NotPlainCalls("a statement without its semicolon")
