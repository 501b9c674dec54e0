"""C++ assert tests as calls (see cfamily.py for the shapes): MultiPL-E's `auto candidate = f;
assert(candidate(ARGS) == (EXPECTED));` and HumanEval-X's `assert (f(ARGS) == K)`, its
`issame` helpers and `abs(f(x) - K) < 1e-4` checks.

The driver's serialiser is a template (needing no header a solution lacks but <type_traits>
and <utility>, and compiled without optimisation, so a driver compiles about as fast as the
tests it replaces) that
writes what the value is, whatever its declared type: an integer, char or enum as a number
(with its type where `==` converts by it: `unsigned`, `long`, cintegers.py), a
float exactly (as a double), a string (std::string, string_view, char*) as its bytes,
a container as a list (a map, a set as such), a tuple or pair as a tuple, an optional as an
optional; anything else as a value that equals nothing. It compiles for any type, so a
solution's choice of return type can make its values wrong, never the program unbuildable. It
calls no library function (cdriver.py), and calls its own `put` by its qualified name: an
unqualified call would also reach, by argument-dependent lookup, a `put` of the solution's
declared beside a type of its own that the value holds.
"""

from __future__ import annotations

import re
from typing import Any

from verifier.kinds.code.dialects.cdriver import HEX_FLOAT, WRITE
from verifier.kinds.code.dialects.cfamily import (
    CFamilyDialect,
    Comparator,
    template_argument_ends,
)
from verifier.kinds.code.dialects.clike import CType
from verifier.kinds.code.dialects.core import CallsPlan, NotPlainCalls, renamed_driver
from verifier.kinds.code.dialects.lexer import (
    Token,
    bracket_pairs,
    is_punct,
    token_at,
    tokenize,
    within_any,
)

_PRELUDE = r"""#include <type_traits>
#include <utility>
#pragma GCC push_options
#pragma GCC optimize ("O0")
namespace __verifier_calls {
template <class T, class = void> struct iterable : std::false_type {};
template <class T> struct iterable<T, std::void_t<decltype(std::declval<const T &>().begin()),
    decltype(std::declval<const T &>().end())>> : std::true_type {};
template <class T, class = void> struct keyed : std::false_type {};
template <class T> struct keyed<T, std::void_t<typename T::key_type>> : std::true_type {};
template <class T, class = void> struct mapped : std::false_type {};
template <class T> struct mapped<T, std::void_t<typename T::mapped_type>> : std::true_type {};
template <class T, class = void> struct text : std::false_type {};
template <class T> struct text<T, std::void_t<typename T::traits_type,
    decltype(std::declval<const T &>().data()), decltype(std::declval<const T &>().size())>>
    : std::true_type {};
template <class T, class = void> struct tuple_like : std::false_type {};
template <class T> struct tuple_like<T, std::void_t<decltype(std::tuple_size<T>::value)>>
    : std::true_type {};
template <class T, class = void> struct optional_like : std::false_type {};
template <class T> struct optional_like<T, std::void_t<typename T::value_type,
    decltype(std::declval<const T &>().has_value()), decltype(*std::declval<const T &>())>>
    : std::true_type {};
// The records, in a buffer of their own (no allocation, no header but these), written out
// when it is full and when the calls are done: one write, not one per call.
static char buffer[1 << 16];
static unsigned long used = 0;
__VERIFIER_WRITE
__VERIFIER_HEX_FLOAT
inline void flush() {
    const char *data = buffer;
    while (used > 0) {
        long written = write_out(data, used);
        if (written <= 0) { used = 0; return; }
        data += written;
        used -= static_cast<unsigned long>(written);
    }
}
inline void put_char(char c) {
    if (used == sizeof buffer) flush();
    buffer[used++] = c;
}
inline void put_text(const char *text) { while (*text) put_char(*text++); }
inline void put_bytes(const char *data, unsigned long size) {
    static const char digits[] = "0123456789abcdef";
    put_text("[\"b\",\"");
    for (unsigned long i = 0; i < size; ++i) {
        unsigned char c = static_cast<unsigned char>(data[i]);
        put_char(digits[c >> 4]);
        put_char(digits[c & 15]);
    }
    put_text("\"]");
}
// An unsigned integer of up to 128 bits (high, low) in decimal, by 64-bit divisions only (a
// 128-bit one is a call of libgcc's __udivti3).
inline void put_digits(unsigned long long high, unsigned long long low) {
    char digits[40];
    int length = 0;
    do {
        unsigned long long rest = high % 10, middle, bottom;
        high /= 10;
        middle = (rest << 32) | (low >> 32);
        bottom = ((middle % 10) << 32) | (low & 0xffffffffULL);
        low = ((middle / 10) << 32) | (bottom / 10);
        digits[length++] = static_cast<char>('0' + static_cast<int>(bottom % 10));
    } while (high || low);
    while (length) put_char(digits[--length]);
}
template <class T, class = void> struct allocated : std::false_type {};
template <class T> struct allocated<T, std::void_t<typename T::allocator_type>>
    : std::true_type {};
// Whether a class type is the standard library's (its name, as GCC spells it, is in std), with
// std's allocator where it has one: the serialiser reads a container by what it has (`begin`,
// `data`, `key_type`), so a class of the solution's that has them (its `begin` the right
// list's), or a std container whose allocator's pointers are the solution's, would say
// anything. What it holds is read in turn.
template <class T> constexpr bool library() {
    const char *text = __PRETTY_FUNCTION__;
    unsigned long at = 0;
    while (text[at] && !(text[at] == '=' && text[at + 1] == ' ')) ++at;
    if (!text[at]) return false;
    at += 2;
    for (const char *qualifier : {"const ", "volatile "}) {
        unsigned long i = 0;
        while (qualifier[i] && text[at + i] == qualifier[i]) ++i;
        if (!qualifier[i]) at += i;
    }
    if (!(text[at] == 's' && text[at + 1] == 't' && text[at + 2] == 'd' && text[at + 3] == ':'
          && text[at + 4] == ':')) return false;
    if constexpr (allocated<T>::value) return library<typename T::allocator_type>();
    return true;
}
template <class T> void put(const T &value);
template <class T, unsigned long... I>
void put_items(const T &value, std::integer_sequence<unsigned long, I...>) {
    put_text("[\"t\"");
    ((put_char(','), __verifier_calls::put(std::get<I>(value))), ...);
    put_char(']');
}
template <class T> void put(const T &value) {
    if constexpr (std::is_same_v<T, bool>) {
        put_text(value ? "true" : "false");
    } else if constexpr (std::is_enum_v<T>) {
        __verifier_calls::put(static_cast<std::underlying_type_t<T>>(value));
    } else if constexpr (std::is_integral_v<T>) {
        // Types `==` converts with (cintegers.py): `unsigned` and wider, `long` and wider.
        constexpr bool typed = sizeof(T) > sizeof(int) || (sizeof(T) == sizeof(int)
                                                            && std::is_unsigned_v<T>);
        if constexpr (typed) {
            put_text(std::is_unsigned_v<T> ? "[\"y\",\"u" : "[\"y\",\"i");
            put_text(sizeof(T) == 4 ? "32\"," : sizeof(T) == 8 ? "64\"," : "128\",");
        }
        unsigned __int128 left = static_cast<unsigned __int128>(value);
        if constexpr (std::is_signed_v<T>) {
            if (value < 0) {
                put_char('-');
                left = -left;
            }
        }
        put_digits(static_cast<unsigned long long>(left >> 64),
                   static_cast<unsigned long long>(left));
        if constexpr (typed) put_char(']');
    } else if constexpr (std::is_floating_point_v<T>) {
        double number = static_cast<double>(value);
        if (number != number) put_text("[\"f\",\"nan\"]");
        else if (number > 1.7976931348623157e308) put_text("[\"f\",\"inf\"]");
        else if (number < -1.7976931348623157e308) put_text("[\"f\",\"-inf\"]");
        else {
            char digits[32];
            int length = hex_float(number, digits);
            put_text("[\"h\",\"");
            for (int i = 0; i < length; ++i) put_char(digits[i]);
            put_text("\"]");
        }
    } else if constexpr (std::is_same_v<T, std::nullptr_t>) {
        put_text("null");
    } else if constexpr (std::is_pointer_v<T>) {
        if constexpr (std::is_same_v<std::remove_cv_t<std::remove_pointer_t<T>>, char>) {
            unsigned long length = 0;
            if (value == nullptr) put_text("null");
            else {
                while (value[length]) ++length;
                put_bytes(value, length);
            }
        } else {
            put_text("[\"x\",\"pointer\"]");
        }
    } else if constexpr (std::is_class_v<T> && !library<T>()) {
        put_text("[\"x\",\"a class of the solution's\"]");
    } else if constexpr (text<T>::value) {
        put_bytes(reinterpret_cast<const char *>(value.data()),
                  value.size() * sizeof(*value.data()));
    } else if constexpr (keyed<T>::value && mapped<T>::value) {
        put_text("[\"m\"");
        for (const auto &entry : value) {
            put_char(',');
            __verifier_calls::put(entry.first);
            put_char(',');
            __verifier_calls::put(entry.second);
        }
        put_char(']');
    } else if constexpr (iterable<T>::value) {
        put_text(keyed<T>::value ? "[\"s\"" : "[\"l\"");
        for (const auto &item : value) {
            put_char(',');
            __verifier_calls::put(static_cast<std::decay_t<decltype(*value.begin())>>(item));
        }
        put_char(']');
    } else if constexpr (tuple_like<T>::value) {
        __verifier_calls::put_items(
            value, std::make_integer_sequence<unsigned long, std::tuple_size<T>::value>{});
    } else if constexpr (optional_like<T>::value) {
        if (value.has_value()) {
            put_text("[\"?\",");
            __verifier_calls::put(*value);
            put_char(']');
        } else {
            put_text("null");
        }
    } else {
        put_text("[\"x\",\"unknown\"]");
    }
}
template <class T> void __verifier_record(int site, const T &value) {
    put_char('[');
    __verifier_calls::put(site);
    put_char(',');
    __verifier_calls::put(value);
    put_text("]\n");
}
}
#pragma GCC pop_options
""".replace("__VERIFIER_WRITE", WRITE.replace("NAME", "write_out")).replace(
    "__VERIFIER_HEX_FLOAT", HEX_FLOAT.replace("NAME", "hex_float"))


# HumanEval-X's comparison helpers, token by token: A and B stand for the parameters, T for
# their element type, TOL for a tolerance.
_ELEMENTS = ("bool F ( vector < T > A , vector < T > B ) { if ( A . size ( ) != B . size ( ) )"
             " return false ; for ( int i = 0 ; i < A . size ( ) ; i ++ ) { if ( A [ i ] != "
             "B [ i ] ) return false ; } return true ; }")
_TOLERANCE = _ELEMENTS.replace("if ( A [ i ] != B [ i ] )",
                               "if ( abs ( A [ i ] - B [ i ] ) > TOL )")
_NESTED = ("bool F ( vector < vector < T > > A , vector < vector < T > > B ) { if ( A . size ( )"
           " != B . size ( ) ) return false ; for ( int i = 0 ; i < A . size ( ) ; i ++ ) { if "
           "( A [ i ] . size ( ) != B [ i ] . size ( ) ) return false ; for ( int j = 0 ; j < "
           "A [ i ] . size ( ) ; j ++ ) if ( A [ i ] [ j ] != B [ i ] [ j ] ) return false ; } "
           "return true ; }")
_MAP = ("bool F ( map < K , V > A , map < K , V > B ) { if ( A . size ( ) != B . size ( ) ) "
        "return false ; map < K , V > :: iterator it ; for ( it = A . begin ( ) ; it != A . "
        "end ( ) ; it ++ ) { K w1 = it -> first ; V w2 = it -> second ; if ( B . find ( w1 ) "
        "== B . end ( ) ) return false ; if ( B [ w1 ] != w2 ) return false ; } return true ; }")
_HELPERS = {"equal": (_ELEMENTS, _NESTED, _MAP), "close_each": (_TOLERANCE,)}


class CppDialect(CFamilyDialect):
    language = "cpp"
    cpp = True
    prelude = _PRELUDE
    record = "__verifier_calls::__verifier_record({site}, {call});"
    finish = "__verifier_calls::flush();"

    def program(self, solution: str, plan: CallsPlan) -> str:
        """The solution and the driver, its namespace renamed to a name drawn per program: a
        `namespace __verifier_calls` of the solution's, declared first, with a `put` of its own
        for what its function returns, was what the record called. The program that says why
        instead where the solution declares in std a name the driver uses from there."""
        declared = _declared_in_std(solution)
        if declared:
            return _REFUSED.replace("NAMES", ", ".join(
                name if "::" in name else f"std::{name}" for name in declared))
        return renamed_driver(solution, plan.driver, "__verifier_calls")

    def comparator(self, tokens: list[Token], name: str, parameters: tuple[str, str],
                   types: tuple[Any, Any]) -> Comparator | None:
        if types[0] != types[1] or types[0].kind not in ("vector", "map"):
            return None
        element = types[0].args[0]
        words = [t.text for t in tokens]
        for kind, shapes in _HELPERS.items():
            for shape in shapes:
                tolerance = _matches(shape.split(), words, name, parameters, types[0])
                if tolerance is not None:
                    if kind == "close_each" and element.kind not in ("float", "double"):
                        return None
                    return Comparator(kind, types[0], tolerance)
        return None


def _matches(shape: list[str], words: list[str], name: str, parameters: tuple[str, str],
             declared: CType) -> float | None:
    """Whether the helper's words are the shape's, with its own names, types and tolerance:
    its tolerance (0 where it has none), else None."""
    position, tolerance = 0, 0.0
    for expected in shape:
        if position >= len(words):
            return None
        word = words[position]
        if expected in ("T", "K", "V"):
            span = _type_words(words, position)
            if span is None:
                return None
            position = span
            continue
        if expected == "TOL":
            try:
                tolerance = float(word)
            except ValueError:
                return None
        elif word != {"F": name, "A": parameters[0], "B": parameters[1]}.get(expected, expected):
            return None
        position += 1
    return tolerance if position == len(words) and declared.kind in ("vector", "map") else None


def _type_words(words: list[str], position: int) -> int | None:
    """Where a simple element type (`int`, `float`, `string`, `long long`, `std::string`)
    starting at `position` ends."""
    start = position
    if words[position:position + 2] == ["std", "::"]:
        position += 2
    while position < len(words) and words[position].isidentifier():
        position += 1
        if words[position - 1] not in ("long", "unsigned", "signed", "short"):
            break
    return position if position > start else None


# The names the driver's serialiser takes from std.
_STD_NAMES = frozenset(re.findall(r"std::(\w+)", _PRELUDE))
_REFUSED = """#include <stdio.h>
int main(void) {
    fputs("the solution declares NAMES in the standard library's namespace, whose names the "
          "driver uses and whose types it reads as the library's: it would record through the "
          "solution's own\\n", stderr);
    return 1;
}
"""


def _declared_in_std(solution: str) -> list[str]:
    """The driver's std names the solution declares there: in a `namespace std` of its own (an
    overload of `std::get` for pairs that reads another value), as an explicit specialisation
    (`template <> ... std::is_integral_v<...>`), or in a macro (which may spell either); the
    members of library class templates it specialises (`vector<...>::begin`); and the classes
    it declares in std (not a specialisation, `hash<...>`), which the driver would read as the
    library's (a `std::Liar` with a `begin` of its own)."""
    try:
        return sorted(_declared(tokenize(solution, preprocessor=True)))
    except NotPlainCalls:  # unreadable (or unbalanced): every name it spells, if it names std
        return sorted(set(re.findall(r"\w+", solution)) & _STD_NAMES) if "std" in solution else []


def _declared(tokens: list[Token]) -> set[str]:
    """What _declared_in_std finds in the tokens, in one pass of each kind (a walk from each
    `namespace std` or `template <>` to its end is quadratic in a solution of them);
    NotPlainCalls where a `namespace std` body is unbalanced."""
    # A macro that spells a driver's name stands for it (`#define G get`, then `G` in std); one
    # that could open std or specialise in it by itself counts with every such name it spells.
    spelled: dict[str, set[str]] = {}
    found: set[str] = set()
    for token in tokens:
        if token.kind == "directive":
            words = set(re.findall(r"\w+", token.text)) & _STD_NAMES
            defined = re.match(r"#\s*define\s+(\w+)", token.text)
            if defined and words:
                spelled[defined[1]] = words
            if re.search(r"\b(namespace|template)\b|##", token.text):
                found |= words

    def named(text: str) -> set[str]:
        return spelled.get(text, {text} & _STD_NAMES)

    # A macro that spells std may name the namespace (`#define S std`, `namespace S {`).
    standard = {"std"} | {defined[1] for t in tokens if t.kind == "directive" and (
        defined := re.match(r"#\s*define\s+(\w+)\s.*\bstd\b", t.text))}
    pairs = bracket_pairs(tokens)
    stops = _next_body_or_end(tokens)
    in_std: list[tuple[int, int]] = []  # the tokens of each `namespace std` (its body)
    specialising: list[tuple[int, int]] = []  # of each explicit specialisation's head
    for index, token in enumerate(tokens):
        if token.text == "namespace" and index + 1 < len(tokens) and (
                tokens[index + 1].text in standard):
            start = stops[index]
            if is_punct(token_at(tokens, start), "{") and start not in pairs:
                raise NotPlainCalls(f"line {tokens[start].line}: an unbalanced namespace std")
            in_std.append((start, pairs.get(start, start)))
        elif token.text == "template" and [t.text for t in tokens[index + 1:index + 3]] == [
                "<", ">"]:
            specialising.append((index, stops[index]))
    inside = within_any(in_std, len(tokens))
    found |= {name for index, token in enumerate(tokens) if inside[index]
              for name in named(token.text)}
    found |= {tokens[i + 1].text for i in range(len(tokens) - 1)
              if inside[i] and tokens[i].text in ("class", "struct", "union")
              and tokens[i + 1].kind == "name" and not is_punct(token_at(tokens, i + 2), "<")}
    qualified = within_any([(start, end - 2) for start, end in specialising], len(tokens))
    found |= {name for i, token in enumerate(tokens) if qualified[i] and token.text == "std"
              and is_punct(tokens[i + 1], "::") for name in named(tokens[i + 2].text)}
    return found | _specialised_members(tokens, within_any(
        [(start + 3, end) for start, end in specialising], len(tokens)))


def _next_body_or_end(tokens: list[Token]) -> list[int]:
    """For each position, the first `{` or `;` at or after it (the end if none)."""
    found, after = [len(tokens)] * len(tokens), len(tokens)
    for position in range(len(tokens) - 1, -1, -1):
        if is_punct(tokens[position], "{", ";"):
            after = position
        found[position] = after
    return found


def _specialised_members(tokens: list[Token], specialising: list[bool]) -> set[str]:
    """The members of a class template not the solution's own that an explicit
    specialisation (the tokens where `specialising` holds) defines
    (`std::vector<long>::begin`, which the driver's loop over a vector would call), named as
    `vector<...>::begin`."""
    own = {tokens[i + 1].text for i in range(len(tokens) - 1)
           if tokens[i].text in ("class", "struct", "union") and _in_template_head(tokens, i)}
    arguments = template_argument_ends(tokens)
    found = set()
    for index, token in enumerate(tokens):
        if (not specialising[index] or token.kind != "name"
                or not is_punct(token_at(tokens, index + 1), "<")):
            continue
        after = arguments[index + 1]
        member = token_at(tokens, after + 1)
        if (is_punct(token_at(tokens, after), "::") and member is not None
                and token.text not in own):
            found.add(f"{token.text}<...>::{member.text}")
    return found


def _in_template_head(tokens: list[Token], index: int) -> bool:
    """Whether the class key at `index` follows a template's parameter list (`template
    <class T> struct Box`), not one of its parameters (`template <class T>`)."""
    return is_punct(token_at(tokens, index - 1), ">") and not is_punct(
        token_at(tokens, index + 2), ",", ">", "=")
