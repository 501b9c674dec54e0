"""C++ assert tests as calls (see cfamily.py for the shapes): MultiPL-E's `auto candidate = f;
assert(candidate(ARGS) == (EXPECTED));` and HumanEval-X's `assert (f(ARGS) == K)`, its
`issame` helpers and `abs(f(x) - K) < 1e-4` checks.

The driver's serialiser is a template that writes what the value is, whatever its declared
type: an integer, char or enum as a number, a float exactly (`%.17g`, then as double), a
string (std::string, string_view, char*) as its bytes, a container as a list (a map, a set
as such), a tuple or pair as a tuple, an optional as an optional; anything else as a value
that equals nothing. It compiles for any type, so a solution's choice of return type can
make its values wrong, never the program unbuildable.
"""

from __future__ import annotations

from typing import Any

from verifier.code.dialects.cfamily import CFamilyDialect, Comparator
from verifier.code.dialects.clike import CType
from verifier.code.dialects.lexer import Token

_PRELUDE = r"""#include <string>
#include <utility>
#include <iterator>
#include <type_traits>
#include <cstdio>
#include <unistd.h>
namespace __verifier_calls {
template <class T, class = void> struct iterable : std::false_type {};
template <class T> struct iterable<T, std::void_t<decltype(std::begin(std::declval<const T &>())),
    decltype(std::end(std::declval<const T &>()))>> : std::true_type {};
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
inline void bytes(std::string &out, const char *data, std::size_t size) {
    static const char digits[] = "0123456789abcdef";
    out += "[\"b\",\"";
    for (std::size_t i = 0; i < size; ++i) {
        unsigned char c = static_cast<unsigned char>(data[i]);
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    out += "\"]";
}
template <class T> void put(std::string &out, const T &value);
template <class T, std::size_t... I>
void items(std::string &out, const T &value, std::index_sequence<I...>) {
    out += "[\"t\"";
    ((out += ',', put(out, std::get<I>(value))), ...);
    out += ']';
}
template <class T> void put(std::string &out, const T &value) {
    char digits[64];
    if constexpr (std::is_same_v<T, bool>) {
        out += value ? "true" : "false";
    } else if constexpr (std::is_enum_v<T>) {
        put(out, static_cast<std::underlying_type_t<T>>(value));
    } else if constexpr (std::is_integral_v<T> && sizeof(T) > 8) {
        bool negative = value < 0;
        unsigned __int128 left = negative ? -static_cast<unsigned __int128>(value)
                                          : static_cast<unsigned __int128>(value);
        int length = 0;
        do { digits[length++] = static_cast<char>('0' + static_cast<int>(left % 10)); left /= 10; }
        while (left);
        if (negative) out += '-';
        while (length) out += digits[--length];
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
        out.append(digits, std::snprintf(digits, sizeof digits, "%lld",
                                         static_cast<long long>(value)));
    } else if constexpr (std::is_integral_v<T>) {
        out.append(digits, std::snprintf(digits, sizeof digits, "%llu",
                                         static_cast<unsigned long long>(value)));
    } else if constexpr (std::is_floating_point_v<T>) {
        double number = static_cast<double>(value);
        if (number != number) out += "[\"f\",\"nan\"]";
        else if (number > 1.7976931348623157e308) out += "[\"f\",\"inf\"]";
        else if (number < -1.7976931348623157e308) out += "[\"f\",\"-inf\"]";
        else {
            int length = std::snprintf(digits, sizeof digits, "%.17g", number);
            out.append(digits, length);
            bool integral = true;
            for (int i = 0; i < length; ++i) integral &= digits[i] == '-' || (digits[i] >= '0'
                                                                               && digits[i] <= '9');
            if (integral) out += ".0";
        }
    } else if constexpr (std::is_same_v<T, std::nullptr_t>) {
        out += "null";
    } else if constexpr (std::is_pointer_v<T>) {
        using Item = std::remove_cv_t<std::remove_pointer_t<T>>;
        if constexpr (std::is_same_v<Item, char>) {
            const char *data = value;
            if (data == nullptr) out += "null";
            else bytes(out, data, std::char_traits<char>::length(data));
        } else {
            out += "[\"x\",\"pointer\"]";
        }
    } else if constexpr (text<T>::value) {
        bytes(out, reinterpret_cast<const char *>(value.data()),
              value.size() * sizeof(*value.data()));
    } else if constexpr (keyed<T>::value && mapped<T>::value) {
        out += "[\"m\"";
        for (const auto &entry : value) {
            out += ',';
            put(out, entry.first);
            out += ',';
            put(out, entry.second);
        }
        out += ']';
    } else if constexpr (iterable<T>::value) {
        out += keyed<T>::value ? "[\"s\"" : "[\"l\"";
        for (const auto &item : value) {
            out += ',';
            put(out, static_cast<std::decay_t<decltype(*std::begin(value))>>(item));
        }
        out += ']';
    } else if constexpr (tuple_like<T>::value) {
        items(out, value, std::make_index_sequence<std::tuple_size<T>::value>{});
    } else if constexpr (optional_like<T>::value) {
        if (value.has_value()) {
            out += "[\"?\",";
            put(out, *value);
            out += ']';
        } else {
            out += "null";
        }
    } else {
        out += "[\"x\",\"unknown\"]";
    }
}
template <class T> void record(int site, const T &value) {
    std::string out = "[" + std::to_string(site) + ",";
    put(out, value);
    out += "]\n";
    const char *data = out.data();
    std::size_t left = out.size();
    while (left > 0) {
        ssize_t written = ::write(3, data, left);
        if (written <= 0) return;
        data += written;
        left -= static_cast<std::size_t>(written);
    }
}
}
"""


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
    record = "__verifier_calls::record({site}, {call});"

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
