"""C and C++ tests: the plain-call shapes both share, the driver around them, their value
semantics, and the hardened in-process program for what is not plain calls.

The tests recognised (MultiPL-E's C++, HumanEval-X's C++, and the same shapes in C) are, at
top level, `#include` lines, `#undef NDEBUG`, `using` directives, comparison helpers a dialect
knows by their exact text (HumanEval-X's `issame`), and one `int main()` whose statements are

    auto candidate = f;                  a name for the solution's function
    T x = LITERAL;                       a variable the calls may take (T x{...} too)
    assert(CALL == K);                   also !=, K == CALL, and a helper: assert(issame(CALL, K))
    assert(CALL);  assert(!CALL);        the truth of a call (`not`, parentheses)
    assert(abs(CALL - K) < T);           also <=, + K, K - CALL, fabs, std::abs (C: abs truncates)
    assert(strcmp(CALL, "s") == 0);      (and != 0, !strcmp(...))
    return 0;                            last

where CALL is `f(ARGS)` with every argument a literal or such a variable, and K a literal.
Anything else (loops, other statements, other helpers, other macros) is not plain calls.

The driver (after the solution) undefines every name it uses, so a solution's macros cannot
break it (`#define int long long`), then makes the calls in order, records each value
(`record`) and writes the records on fd 3 (`finish`).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from typing import Any

from verifier.kinds.code import appended
from verifier.kinds.code.dialects.cintegers import (
    converted,
    literal_type,
    tagged,
    typed,
    untagged,
)
from verifier.kinds.code.dialects.clike import (
    FLOAT,
    LiteralParser,
    Typed,
    convert,
    float32,
    model,
    parse_type,
)
from verifier.kinds.code.dialects.core import (
    CallsPlan,
    Check,
    Dialect,
    NotPlainCalls,
    Site,
    sites_within_bounds,
)
from verifier.kinds.code.dialects.lexer import (
    Token,
    bracket_pairs,
    closing,
    depth_at,
    is_punct,
    source_of,
    split_top,
    token_at,
    tokenize,
    unwrapped,
    used_declarations,
    within_any,
)
from verifier.kinds.code.dialects.values import Map, OfType, Opaque, SetOf, Some

_ABS = {"abs": "", "fabs": "", "fabsf": "", "fabsl": "", "llabs": "", "labs": ""}
_FLOW = frozenset({"for", "while", "do", "if", "else", "switch", "goto", "break", "continue",
                   "try", "throw", "case", "static", "extern", "register", "asm", "__asm__"})
# Names the tests may use that are the standard library's macros: kept, not undefined, when
# the in-process program undefines the tests' names.
_STANDARD_MACRO_NAMES = """
NULL EOF RAND_MAX EXIT_SUCCESS EXIT_FAILURE CHAR_BIT CHAR_MAX CHAR_MIN SCHAR_MAX SCHAR_MIN
UCHAR_MAX SHRT_MAX SHRT_MIN USHRT_MAX INT_MAX INT_MIN UINT_MAX LONG_MAX LONG_MIN ULONG_MAX
LLONG_MAX LLONG_MIN ULLONG_MAX SIZE_MAX INT8_MAX INT8_MIN INT16_MAX INT16_MIN INT32_MAX
INT32_MIN INT64_MAX INT64_MIN UINT8_MAX UINT16_MAX UINT32_MAX UINT64_MAX INTMAX_MAX
FLT_MAX FLT_MIN FLT_EPSILON DBL_MAX DBL_MIN DBL_EPSILON LDBL_MAX LDBL_EPSILON HUGE_VAL
INFINITY NAN M_PI M_E M_SQRT2 M_LN2 M_LN10 stdin stdout stderr errno true false bool
isnan isinf isfinite signbit fpclassify isgreater isless offsetof va_start va_arg va_end
va_copy static_assert alignof alignas noreturn complex imaginary I PRId64 PRIu64 SCNd64
__LINE__ __FILE__ __func__ __cplusplus __STDC__ __GNUC__ NDEBUG
and or not xor bitand bitor compl and_eq or_eq xor_eq not_eq defined __has_include
"""  # the last line: C++'s alternative tokens, never macros
STANDARD_MACROS = frozenset(_STANDARD_MACRO_NAMES.split())


@dataclass(frozen=True)
class Comparator:
    """A helper of the tests the dialect judges itself: `kind` "equal" or "close_each"
    (HumanEval-X's float `issame`: no pair of elements further apart than `tolerance`), the
    type both arguments are converted to."""

    kind: str
    type: Any
    tolerance: float = 0.0


@dataclass
class _Scope:
    """What main's statements have bound so far."""

    aliases: set[str] = field(default_factory=set)  # auto candidate = f;
    variables: dict[str, Typed] = field(default_factory=dict)  # literal-initialised
    opaque: set[str] = field(default_factory=set)  # declared with a type not understood
    as_arguments: set[str] = field(default_factory=set)
    as_expected: set[str] = field(default_factory=set)
    references: dict[str, set[str]] = field(default_factory=dict)  # the variables each's uses


class CFamilyDialect(Dialect):
    """C (`cpp` False) or C++; subclasses give the serialiser (`prelude`), the statement that
    records a value (`record`, with {site} and {call}) and their comparators."""

    cpp: bool
    prelude: str
    record: str
    finish: str  # the statement that writes out what the records left in their buffer

    @functools.cached_property
    def prelude_names(self) -> frozenset[str]:
        """Every name the driver's own code uses, undefined before it: all but the compiler's
        own (`__x86_64__`, `defined`)."""
        return frozenset(t.text for t in tokenize(self.prelude + "int main() { return 0; }")
                         if t.kind == "name" and t.text != "defined"
                         and not re.fullmatch(r"__\w+__", t.text))

    def comparator(self, tokens: list[Token], name: str, parameters: tuple[str, str],
                   types: tuple[Any, Any]) -> Comparator | None:
        """The comparator a helper function of the tests is, or None."""
        return None

    # ------------------------------------------------------------------- recognition

    def plan(self, tests: str) -> CallsPlan:
        tokens = tokenize(tests, preprocessor=True)
        header: list[str] = []
        comparators: dict[str, Comparator] = {}
        main: list[Token] | None = None
        closes = position = _leading_closes(tokens)
        while position < len(tokens):
            token = tokens[position]
            if token.kind == "directive":
                header += self._directive(token)
                position += 1
            elif token.text == "using":
                end = _statement_end(tokens, position)
                header.append(source_of(tests, tokens[position:end + 1]))
                position = end + 1
            elif is_punct(token, ";"):
                position += 1
            else:
                name, body, position = self._function(tokens, position, comparators)
                if name == "main":
                    if main is not None:
                        raise NotPlainCalls("two mains")
                    main = body
        if main is None:
            raise NotPlainCalls("no main")
        lines, sites = self._main(tests, main, comparators)
        driver = "\n".join([*["}"] * closes,
                            *(f"#undef {name}" for name in sorted(self.prelude_names)),
                            self.prelude, *header, "int main() {", *lines, self.finish,
                            "return 0;", "}", ""])
        return CallsPlan(sites_within_bounds(sites), driver)

    def _directive(self, token: Token) -> list[str]:
        words = token.text[1:].split()
        if words[:1] == ["include"] or token.text.startswith("#include"):
            return [token.text]
        if words == ["undef", "NDEBUG"]:
            return []
        raise NotPlainCalls(f"line {token.line}: a directive {token.text[:40]!r}")

    def _function(self, tokens: list[Token], position: int,
                  comparators: dict[str, Comparator]) -> tuple[str, list[Token], int]:
        """A function definition at `position`: its name, body tokens, and where it ends;
        a helper becomes a comparator or the tests are not plain calls."""
        found = parse_type(tokens, position)
        if found is None or found[1] + 1 >= len(tokens):
            raise NotPlainCalls(f"line {tokens[position].line}: not a function")
        _, at = found
        name = tokens[at]
        if name.kind != "name" or not is_punct(tokens[at + 1], "("):
            raise NotPlainCalls(f"line {name.line}: not a function")
        parameters_end = closing(tokens, at + 1)
        if parameters_end + 1 >= len(tokens) or not is_punct(tokens[parameters_end + 1], "{"):
            raise NotPlainCalls(f"line {name.line}: a declaration")
        body_end = closing(tokens, parameters_end + 1)
        body = tokens[parameters_end + 2:body_end]
        if name.text != "main":
            comparator = self._helper(tokens[position:body_end + 1], name.text,
                                      tokens[at + 2:parameters_end])
            if comparator is None or name.text in comparators:
                raise NotPlainCalls(f"line {name.line}: a helper {name.text!r}")
            comparators[name.text] = comparator
        elif tokens[at + 2:parameters_end] and [t.text for t in
                                                tokens[at + 2:parameters_end]] != ["void"]:
            raise NotPlainCalls("main takes arguments")
        return name.text, body, body_end + 1

    def _helper(self, tokens: list[Token], name: str,
                parameters: list[Token]) -> Comparator | None:
        parts = split_top(parameters, ",", angles=True)
        if len(parts) != 2:
            return None
        names, types = [], []
        for part in parts:
            found = parse_type(part, 0)
            if found is None or found[1] != len(part) - 1 or part[-1].kind != "name":
                return None
            names.append(part[-1].text)
            types.append(found[0])
        return self.comparator(tokens, name, (names[0], names[1]), (types[0], types[1]))

    def _main(self, tests: str, body: list[Token], comparators: dict[str, Comparator]
              ) -> tuple[list[str], list[Site]]:
        lines: list[str] = []
        declared: list[str | None] = []  # per line, the variable it declares
        sites: list[Site] = []
        scope = _Scope()
        position = 0
        while position < len(body):
            if is_punct(body[position], ";"):
                position += 1
                continue
            end = _statement_end(body, position)
            statement = body[position:end]
            position = end + 1
            head = statement[0]
            if head.text == "return":
                if [t.text for t in statement] not in (["return", "0"], ["return"]) or any(
                        not is_punct(t, ";") for t in body[position:]):
                    raise NotPlainCalls(f"line {head.line}: a return before the end")
            elif head.kind == "name" and head.text == "assert" and is_punct(
                    token_at(statement, 1), "(") and closing(statement, 1) == len(statement) - 1:
                site = self._site(tests, statement[2:-1], head.line, scope, comparators)
                lines.append(self.record.format(site=len(sites), call=site.call))
                declared.append(None)
                sites.append(site)
            else:
                declared.append(self._declaration(statement, scope, comparators))
                lines.append(source_of(tests, statement) + ";")
        needed = _needed(scope)
        if needed & scope.as_expected:
            raise NotPlainCalls("a variable both passed to a call and expected")
        return used_declarations(lines, {index: name for index, name in enumerate(declared)
                                         if name is not None}), sites

    def _declaration(self, statement: list[Token], scope: _Scope,
                     comparators: dict[str, Comparator]) -> str | None:
        """`T x = LITERAL`, `T x{...}`, or `auto candidate = f`; else not plain calls. The
        variable declared (None: an alias)."""
        head = statement[0]
        if head.text in _FLOW or head.kind != "name":
            raise NotPlainCalls(f"line {head.line}: a statement that is not plain calls")
        found = parse_type(statement, 0)
        if found is None or found[1] >= len(statement) or statement[found[1]].kind != "name":
            raise NotPlainCalls(f"line {head.line}: a statement that is not plain calls")
        declared, at = found
        name = statement[at].text
        if name in scope.variables or name in scope.opaque or name in scope.aliases or (
                name in comparators):
            raise NotPlainCalls(f"line {head.line}: {name!r} bound twice")
        rest = statement[at + 1:]
        if is_punct(token_at(rest, 0), "{"):
            initial = rest
        elif is_punct(token_at(rest, 0), "=") and len(rest) > 1:
            initial = rest[1:]
        else:
            raise NotPlainCalls(f"line {head.line}: a declaration without a literal")
        if (head.text == "auto" and len(initial) == 1 and initial[0].kind == "name"
                and initial[0].text not in scope.variables.keys() | comparators.keys()):
            scope.aliases.add(name)
            return None
        scope.references[name] = {t.text for t in initial if t.text in scope.variables}
        literal = LiteralParser(initial, self.cpp, scope.variables).whole()
        try:
            value = model(literal) if head.text == "auto" else convert(literal, declared)
        except NotPlainCalls:
            scope.opaque.add(name)  # a type this dialect does not model: arguments only
            return name
        scope.variables[name] = Typed(value, declared if head.text != "auto" else literal.type)
        return name

    # ------------------------------------------------------------------- checks

    def _site(self, tests: str, tokens: list[Token], line: int, scope: _Scope,
              comparators: dict[str, Comparator]) -> Site:
        tokens = unwrapped(tokens)
        if not tokens:
            raise NotPlainCalls(f"line {line}: an empty assert")
        negated = is_punct(tokens[0], "!") or tokens[0].text == "not"
        operand = unwrapped(tokens[1:]) if negated else tokens
        if (found := self._strcmp(tests, operand, scope)) is not None:
            call, expected = found
            return Site(line, call, Check("equal", expected, negated=not negated))
        comparisons = [i for i, t in enumerate(tokens) if is_punct(t, "==", "!=")
                       and depth_at(tokens, i) == 0]
        if negated:
            return Site(line, self._call(tests, operand, scope, comparators),
                        Check("truth", negated=True))
        if len(comparisons) > 1:
            raise NotPlainCalls(f"line {line}: several comparisons")
        if comparisons:
            return self._comparison(tests, tokens, comparisons[0], line, scope, comparators)
        head = tokens[0]
        if head.text in comparators and is_punct(token_at(tokens, 1), "(") and closing(
                tokens, 1) == len(tokens) - 1:
            return self._compared(tests, tokens[2:-1], comparators[head.text], line, scope,
                                  comparators)
        if (found := self._close(tests, tokens, line, scope, comparators)) is not None:
            return found
        return Site(line, self._call(tests, tokens, scope, comparators), Check("truth"))

    def _comparison(self, tests: str, tokens: list[Token], at: int, line: int, scope: _Scope,
                    comparators: dict[str, Comparator]) -> Site:
        left, right = unwrapped(tokens[:at]), unwrapped(tokens[at + 1:])
        negated = tokens[at].text == "!="
        if (found := self._strcmp(tests, left, scope)) is not None and self._expected(
                right, scope) == 0:
            call, expected = found
            return Site(line, call, Check("equal", expected, negated=negated))
        call, literal = self._either(tests, left, right, scope, comparators, line)
        if literal.type.kind == "braced":
            raise NotPlainCalls(f"line {line}: == with a braced list")
        expected = tagged(model(literal), literal_type(right) or literal_type(left))
        return Site(line, call, Check("equal", expected, negated=negated, how="=="))

    def _compared(self, tests: str, arguments: list[Token], comparator: Comparator, line: int,
                  scope: _Scope, comparators: dict[str, Comparator]) -> Site:
        parts = split_top(arguments, ",")
        if len(parts) != 2:
            raise NotPlainCalls(f"line {line}: a helper of other than two arguments")
        call, literal = self._either(tests, parts[0], parts[1], scope, comparators, line)
        expected = convert(literal, comparator.type)
        single = comparator.type.args[:1] == (FLOAT,)
        return Site(line, call, Check(comparator.kind, expected, tolerance=comparator.tolerance,
                                      how="f32" if single else ""))

    def _close(self, tests: str, tokens: list[Token], line: int, scope: _Scope,
               comparators: dict[str, Comparator]) -> Site | None:
        """`abs(CALL - K) < T` and its variants, or None."""
        for index, token in enumerate(tokens):
            if is_punct(token, "<", "<=", ">", ">=") and depth_at(tokens, index) == 0:
                left, right = tokens[:index], tokens[index + 1:]
                if token.text in (">", ">="):
                    left, right = right, left
                strict = token.text in ("<", ">")
                absolute = self._absolute(left)
                if absolute is None:
                    continue
                function, inside = absolute
                tolerance = self._expected(right, scope)
                if type(tolerance) not in (int, float):
                    raise NotPlainCalls(f"line {line}: a tolerance that is not a number")
                call, expected = self._difference(tests, inside, scope, comparators, line)
                return Site(line, call, Check("close", expected, tolerance=float(tolerance),
                                              strict=strict, how=function))
        return None

    def _absolute(self, tokens: list[Token]) -> tuple[str, list[Token]] | None:
        """`abs(X)` (fabs, std::abs...): how the dialect computes it, and X's tokens."""
        start = 2 if tokens[:2] and tokens[0].text == "std" and is_punct(
            token_at(tokens, 1), "::") else 0
        head = token_at(tokens, start)
        if head is None or head.text not in _ABS or not is_punct(token_at(tokens, start + 1), "("):
            return None
        if closing(tokens, start + 1) != len(tokens) - 1:
            return None
        integer = not self.cpp and head.text in ("abs", "labs", "llabs")
        return ("int_abs" if integer else ""), tokens[start + 2:-1]

    def _difference(self, tests: str, tokens: list[Token], scope: _Scope,
                    comparators: dict[str, Comparator], line: int) -> tuple[str, float]:
        """X - K, X + K or K - X inside abs: the call, and the K it is compared with."""
        tokens = unwrapped(tokens)
        for index, token in enumerate(tokens):
            if not is_punct(token, "-", "+") or index == 0 or depth_at(tokens, index):
                continue
            left, right = tokens[:index], tokens[index + 1:]
            for call_side, literal_side, sign in ((left, right, token.text == "+"),
                                                  (right, left, False)):
                if token.text == "+" and call_side is right:
                    continue
                try:
                    call = self._call(tests, call_side, scope, comparators)
                    value = self._expected(literal_side, scope)
                except NotPlainCalls:
                    continue
                if type(value) not in (int, float, bool):
                    raise NotPlainCalls(f"line {line}: a difference with something else")
                return call, (-value if sign else value)
        raise NotPlainCalls(f"line {line}: abs of something else than CALL - K")

    def _strcmp(self, tests: str, tokens: list[Token], scope: _Scope
                ) -> tuple[str, bytes] | None:
        """`strcmp(CALL, "s")` (either order): the call and the expected bytes, or None."""
        if not (tokens and tokens[0].text == "strcmp" and is_punct(token_at(tokens, 1), "(")
                and closing(tokens, 1) == len(tokens) - 1):
            return None
        parts = split_top(tokens[2:-1], ",")
        if len(parts) != 2:
            return None
        call, literal = self._either(tests, parts[0], parts[1], scope, {}, tokens[0].line)
        if type(literal.value) is not bytes:
            raise NotPlainCalls(f"line {tokens[0].line}: strcmp with something else")
        return call, literal.value

    def _either(self, tests: str, first: list[Token], second: list[Token], scope: _Scope,
                comparators: dict[str, Comparator], line: int) -> tuple[str, Typed]:
        """One side the call, the other a literal, in either order."""
        for call_side, literal_side in ((first, second), (second, first)):
            try:
                literal = self._literal(literal_side, scope)
            except NotPlainCalls:
                continue
            return self._call(tests, unwrapped(call_side), scope, comparators), literal
        raise NotPlainCalls(f"line {line}: no literal to compare with")

    def _literal(self, tokens: list[Token], scope: _Scope) -> Typed:
        literal = LiteralParser(tokens, self.cpp, scope.variables).whole()
        scope.as_expected |= {t.text for t in tokens if t.text in scope.variables}
        return literal

    def _expected(self, tokens: list[Token], scope: _Scope) -> Any:
        return model(self._literal(tokens, scope))

    def _call(self, tests: str, tokens: list[Token], scope: _Scope,
              comparators: dict[str, Comparator]) -> str:
        """The source of `f(ARGS)`, every argument a literal or a variable of the tests."""
        tokens = unwrapped(tokens)
        position = 0
        while (is_punct(token_at(tokens, position + 1), "::")
               and tokens[position].kind == "name"):
            position += 2
        callee = token_at(tokens, position)
        if (callee is None or callee.kind != "name"
                or not is_punct(token_at(tokens, position + 1), "(")
                or closing(tokens, position + 1) != len(tokens) - 1):
            raise NotPlainCalls("not a call")
        if (callee.text in scope.variables or callee.text in scope.opaque
                or callee.text in comparators or callee.text in ("assert", "main")):
            raise NotPlainCalls(f"line {callee.line}: a call of the tests' own {callee.text!r}")
        arguments = split_top(tokens[position + 2:-1], ",")
        for argument in arguments if arguments != [[]] else []:
            if len(argument) == 1 and (argument[0].text in scope.variables
                                       or argument[0].text in scope.opaque):
                scope.as_arguments.add(argument[0].text)
            elif not argument or argument[0].text in scope.aliases:
                raise NotPlainCalls(f"line {callee.line}: an argument that is not a literal")
            else:
                LiteralParser(argument, self.cpp, {}).whole()
        return source_of(tests, tokens)

    # ------------------------------------------------------------------- judging

    def holds(self, check: Check, value: Any) -> bool:
        try:
            if check.how == "f32":
                value = _single(value)
            if check.kind == "truth":
                return _truth(value) != check.negated
            if check.kind == "equal":
                return equal(value, check.expected) != check.negated
            if check.kind == "close":
                difference = _distance(value, check.expected, check.how == "int_abs")
                return difference < check.tolerance if check.strict else (
                    difference <= check.tolerance)
            if check.kind == "close_each":
                return (isinstance(value, list) and len(value) == len(check.expected) and not any(
                    _distance(a, b, False) > check.tolerance
                    for a, b in zip(value, check.expected, strict=True)))
        except (TypeError, ValueError, ArithmeticError, RecursionError):
            return False
        return False

    # ------------------------------------------------------------------- in-process

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        """The appended program with the tests' names undefined (a solution's macros cannot
        reach them: `#define NDEBUG`, `#define assert(x)`, `#define issame(a, b) 1`) and each
        `assert` of the tests the verifier's own check, named after `tag`, that ends the
        program by system calls of its own (an `__assert_fail`, `abort` or `_exit` the
        solution defines is never called)."""
        try:
            tokens = tokenize(tests, preprocessor=True)
        except NotPlainCalls:
            return None
        shadowed = sorted(_library_names_defined(solution) & _library_names_used(tokens))
        if shadowed:
            return _REFUSED.replace("NAMES", ", ".join(shadowed))
        check, fail = f"__verifier_check_{tag}", f"__verifier_fail_{tag}"
        names = {t.text for t in tokens + _epilogue_tokens(self.language)
                 if t.kind == "name"} - STANDARD_MACROS
        # after the `}`s that close the prompt's function: the guard defines functions
        closes = _leading_closes(tokens)
        last = tokens[closes - 1].end if closes else 0
        guard = "\n".join([*(f"#undef {name}" for name in sorted(names | _GUARD_NAMES)),
                           _GUARD.replace("CHECK", check).replace("FAIL", fail),
                           f"#line {tokens[closes - 1].line if closes else 1}", ""])
        rewritten = [tests[:last] + "\n" if closes else "", guard]
        ends_main = _end_of_main(tokens) if self.language == "c" else None
        for index, token in enumerate(tokens):
            if token.kind == "name" and token.text == "assert" and is_punct(
                    token_at(tokens, index + 1), "("):
                rewritten += [tests[last:token.start], check]
                last = token.end
            elif index == ends_main:
                rewritten += [tests[last:token.start], "return 0;"]
                last = token.start
        rewritten.append(tests[last:])
        return appended.assemble(self.language, solution, "".join(rewritten))


def _end_of_main(tokens: list[Token]) -> int | None:
    """The index of the `}` that ends the tests' `main` in C. A `main` that reaches it returns
    0 (C99); renamed, as the epilogue calls it (appended.py), it would return whatever was left
    in the register: a right solution's run failed. The guard returns 0 there."""
    pairs = bracket_pairs(tokens)
    for index, token in enumerate(tokens):
        if token.kind == "name" and token.text == "main" and is_punct(
                token_at(tokens, index + 1), "(") and index + 1 in pairs:
            body = pairs[index + 1] + 1
            if is_punct(token_at(tokens, body), "{") and body in pairs:
                return pairs[body]
    return None


# The C and C++ libraries' functions tests call by name. A definition of one in the program is
# what the tests' call reaches: the link takes the program's own symbol over libc's (`strcmp`
# returning 0), and C++ overload resolution takes a better-matching overload of the solution's
# over std's (`abs(long)`, a `max` that is no template). Nothing in the program's source can
# reach the library's past such a definition (`__builtin_strcmp` may be lowered to the symbol;
# dlsym is itself a symbol the program can define), so the program is refused instead, as Java's
# and Go's are: the tests could not judge the solution, the solution would judge itself.
_LIBRARY_FUNCTIONS = """
strcmp strncmp strcasecmp strncasecmp strcoll strlen strnlen strcpy strncpy strcat strncat
strchr strrchr strstr strpbrk strspn strcspn strtok strdup strndup strerror strxfrm memcmp
memcpy memmove memset memchr bcmp bzero atoi atol atoll atof strtol strtoll strtoul strtoull
strtod strtof strtold abs labs llabs div ldiv lldiv rand srand random srandom qsort bsearch
malloc calloc realloc free exit abort atexit getenv system fabs fabsf fabsl sqrt sqrtf sqrtl
cbrt pow powf powl exp exp2 expm1 log log2 log10 log1p floor floorf ceil ceilf round roundf
lround llround trunc fmod remainder fmin fmax fdim hypot sin cos tan asin acos atan atan2 sinh
cosh tanh isnan isinf isfinite signbit copysign nearbyint rint lrint llrint frexp ldexp modf
isalpha isdigit isalnum isspace isupper islower ispunct isxdigit isprint iscntrl isgraph
isblank toupper tolower printf fprintf sprintf snprintf puts fputs putchar scanf sscanf
time clock difftime
max min minmax swap sort stable_sort partial_sort nth_element reverse rotate unique count
count_if find find_if find_if_not all_of any_of none_of equal mismatch accumulate
inner_product partial_sum iota gcd lcm lower_bound upper_bound binary_search equal_range
max_element min_element minmax_element next_permutation prev_permutation fill copy
transform remove remove_if replace is_sorted is_permutation includes merge to_string stoi
stol stoll stoul stoull stof stod stold getline begin end size empty distance advance next
prev make_pair make_tuple get tie move forward
"""
_LIBRARY_NAMES = frozenset(_LIBRARY_FUNCTIONS.split())
_LABELS = frozenset({"asm", "__asm", "__asm__", "alias", "ifunc", "weakref", "symver"})
_REFUSED = """#include <stdio.h>
int main(void) {
    fputs("the solution defines NAMES, which the tests call: the program would take its own over "
          "the library's, so the tests cannot run in its process\\n", stderr);
    return 1;
}
"""


def _library_names_used(tests: list[Token]) -> set[str]:
    """The library functions the tests name, not as a member (`v.size()`, `s.find(x)`), and do
    not define themselves (a helper of theirs named `count`), nor take as the solution's (`auto
    candidate = strlen`: the problem's). A parameter list never closed defines nothing."""
    pairs = bracket_pairs(tests)
    own = {tests[i - 1].text for i, t in enumerate(tests) if is_punct(t, "(") and i
           and tests[i - 1].kind == "name" and i in pairs
           and is_punct(token_at(tests, pairs[i] + 1), "{")}
    own |= {tests[i + 1].text for i, t in enumerate(tests[:-2]) if is_punct(t, "=")
            and tests[i + 1].kind == "name" and is_punct(tests[i + 2], ";")}
    return {t.text for i, t in enumerate(tests) if t.kind == "name" and t.text in _LIBRARY_NAMES
            and not is_punct(token_at(tests, i - 1), ".", "->")} - own


def _library_names_defined(solution: str) -> set[str]:
    """The library functions the solution defines where the tests' calls reach them: at file
    or namespace scope (not as a member of a class), by name or as a symbol (an `asm` label, an
    `alias`, `#pragma redefine_extname`, a top-level `asm` defining it, or a macro of its own
    given the name at that scope: `DEF(strcmp)`). A solution the lexer
    cannot read (past C++'s raw strings) is taken to define every library name it spells; a
    bracket it leaves open (a response cut off at `long abs(long x`) holds the rest of it,
    and a library name's parameter list left open is a definition. One pass of each kind, so
    time linear in the solution however its brackets nest."""
    try:
        tokens = tokenize(_without_raw_strings(solution), preprocessor=True)
    except NotPlainCalls:
        return set(re.findall(r"\w+", solution)) & _LIBRARY_NAMES
    pairs = bracket_pairs(tokens)
    arguments = template_argument_ends(tokens)
    bodies = _bodies_follow(tokens, pairs)
    found: set[str] = set()
    scopes: list[bool] = []  # per open brace: whether it is a namespace's (or extern "C")
    enclosed = 0  # how many of them are not
    macro_calls: list[tuple[int, int]] = []  # the argument tokens of the solution's macros
    labels: list[tuple[int, int]] = []  # and of asm labels and attributes naming a symbol
    macros = {defined.group(1) for t in tokens if t.kind == "directive" and (
        defined := re.match(r"#\s*define\s+(\w+)\(", t.text))}
    for index, token in enumerate(tokens):
        if token.kind == "directive" and "redefine_extname" in token.text:
            found |= set(re.findall(r"\w+", token.text)) & _LIBRARY_NAMES
        elif token.text in macros and not enclosed and is_punct(token_at(tokens, index + 1),
                                                                 "("):
            # DEF(strcmp): a definition the macro may make
            macro_calls.append((index + 2, pairs.get(index + 1, len(tokens))))
        elif token.kind == "name" and token.text in _LABELS and is_punct(
                token_at(tokens, index + 1), "("):
            labels.append((index + 2, pairs.get(index + 1, len(tokens))))
        elif is_punct(token, "{"):
            scopes.append(_namespace_brace(tokens, index))
            enclosed += not scopes[-1]
        elif is_punct(token, "}"):
            if scopes:
                enclosed -= not scopes.pop()
        elif (token.kind == "name" and token.text in _LIBRARY_NAMES and not enclosed
              and not is_punct(token_at(tokens, index - 1), ".", "->")):
            parameters = arguments.get(index + 1, index + 1)
            if is_punct(token_at(tokens, parameters), "(") and (
                    parameters not in pairs or bodies[pairs[parameters] + 1]):
                found.add(token.text)
    in_macro, in_label = within_any(macro_calls, len(tokens)), within_any(labels, len(tokens))
    for index, token in enumerate(tokens):
        if in_macro[index] and token.text in _LIBRARY_NAMES:
            found.add(token.text)
        if in_label[index] and token.kind == "string":
            found |= set(re.findall(r"\w+", token.text)) & _LIBRARY_NAMES
    return found


def template_argument_ends(tokens: list[Token]) -> dict[int, int]:
    """For each `<`, the position past the template arguments (`max<long>`,
    `vector<long>::begin`) it opens: past the `>` that closes it (nested ones included), or
    past the first `;`, `{` or `}` before that, or the end. One pass for all of them (a walk
    from each is quadratic in `a<a<a<...`)."""
    ends: dict[int, int] = {}
    open_: list[int] = []
    for position, token in enumerate(tokens):
        if is_punct(token, "<"):
            open_.append(position)
        elif is_punct(token, ">") and open_:
            ends[open_.pop()] = position + 1
        elif is_punct(token, ";", "{", "}"):
            ends.update(dict.fromkeys(open_, position + 1))
            open_.clear()
    ends.update(dict.fromkeys(open_, len(tokens)))
    return ends


def _without_raw_strings(source: str) -> str:
    """`source` with each C++ raw string (`R"x(...)x"`) an empty string, in one pass."""
    out, last = [], 0
    for found in re.finditer(r'R"([^()\\\s"]{0,16})\(', source):
        if found.start() < last:
            continue
        end = source.find(f'){found.group(1)}"', found.end())
        if end < 0:
            break
        out += [source[last:found.start()], '""']
        last = end + len(found.group(1)) + 2
    return "".join([*out, source[last:]])


def _namespace_brace(tokens: list[Token], index: int) -> bool:
    """Whether the `{` at `index` opens a namespace or an `extern "C"` block."""
    back = index - 1
    while back >= 0 and (tokens[back].kind == "name" or is_punct(tokens[back], "::")):
        if tokens[back].text == "namespace":
            return True
        back -= 1
    return back >= 1 and tokens[back].kind == "string" and tokens[back - 1].text == "extern"


def _bodies_follow(tokens: list[Token], pairs: dict[int, int]) -> list[bool]:
    """For each position (and the end), whether a function's parameter list ending before it
    is followed by its body (past qualifiers, attributes and a trailing return type), not by
    `;` or an operator; a bracket left open there counts as a body. One pass from the end
    (a walk from each position is quadratic in `abs()abs()...`)."""
    follows = [False] * (len(tokens) + 1)
    for position in range(len(tokens) - 1, -1, -1):
        token = tokens[position]
        if is_punct(token, "{"):
            follows[position] = True
        elif is_punct(token, "(", "["):
            follows[position] = position not in pairs or follows[pairs[position] + 1]
        elif token.kind == "name" or is_punct(token, "->", "::", "<", ">", "&", "*", ","):
            follows[position] = follows[position + 1]
    return follows


@functools.cache
def _epilogue_tokens(language: str) -> list[Token]:
    """The tokens of what the in-process program adds after the tests (the renamed entry and
    the epilogue that calls it): a solution's macro of one of their names (`#define f() 0`
    in C++'s `__verifier_call`) would skip the tests, so they are undefined too."""
    added = appended.APPENDED[language]
    entry = added.entry[1].format(type="", params="") if added.entry else ""
    return tokenize(f"{entry}\n{added.epilogue}",
                    preprocessor=True)


# The verifier's own assert for in-process tests: a message, then exit_group by a system call
# of its own; a trap and a loop should even that return (a seccomp filter of the solution's).
_GUARD = r"""
#if defined(__x86_64__)
#define FAIL_WRITE 1
#define FAIL_EXIT 231
#elif defined(__aarch64__)
#define FAIL_WRITE 64
#define FAIL_EXIT 94
#endif
static long FAIL_sys(long number, long a, long b, long c) {
#if defined(__x86_64__)
    long result;
    __asm__ volatile ("syscall" : "=a"(result) : "a"(number), "D"(a), "S"(b), "d"(c)
                      : "rcx", "r11", "memory");
    return result;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = number;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    __asm__ volatile ("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
    return x0;
#else
    return number + a + b + c;
#endif
}
static void FAIL(int line) {
    char text[64] = "Assertion failed at line ";
    int length = 25, digits = 0;
    char reversed[12];
    do { reversed[digits++] = (char)('0' + line % 10); line /= 10; } while (line > 0);
    while (digits > 0) text[length++] = reversed[--digits];
    text[length++] = '\n';
    FAIL_sys(FAIL_WRITE, 2, (long)text, length);
    FAIL_sys(FAIL_EXIT, 1, 0, 0);
    __builtin_trap();
    for (;;) {}
}
#define CHECK(condition) ((condition) ? (void)0 : FAIL(__LINE__))
"""
_GUARD_NAMES = frozenset({"__asm__", "volatile", "static", "long", "int", "char", "void",
                          "register", "return", "do", "while", "for", "__builtin_trap",
                          "result", "number", "line", "text", "length", "digits", "reversed",
                          "condition", "x0", "x1", "x2", "x8", "a", "b", "c"})


def _needed(scope: _Scope) -> set[str]:
    """The variables the calls take, and those their initialisers use, all the way down."""
    needed = set(scope.as_arguments)
    waiting = list(needed)
    while waiting:
        for used in scope.references.get(waiting.pop(), ()):
            if used not in needed:
                needed.add(used)
                waiting.append(used)
    return needed


def _leading_closes(tokens: list[Token]) -> int:
    """How many `}` open the tests: MultiPL-E's close the prompt's function, whose body the
    solution (prompt and completion) leaves open."""
    closes = 0
    while closes < len(tokens) and is_punct(tokens[closes], "}"):
        closes += 1
    return closes


def _statement_end(tokens: list[Token], position: int) -> int:
    """The index of the `;` ending the statement at `position` (brackets skipped)."""
    while position < len(tokens):
        token = tokens[position]
        if is_punct(token, "(", "[", "{"):
            position = closing(tokens, position) + 1
            continue
        if is_punct(token, ";"):
            return position
        if is_punct(token, ")", "]", "}"):
            break
        position += 1
    raise NotPlainCalls("a statement without its semicolon")


def _number(value: Any) -> bool:
    return type(value) in (int, float, bool)


def equal(actual: Any, expected: Any, converting: bool = True) -> bool:
    """C++'s `==` on the model: numbers across int and float (converted to double), integers
    after the usual arithmetic conversions of their types (cintegers.py: an `unsigned`
    4294967295 equals `-1`), an optional equal to what it holds, a tuple element by element,
    containers element by element (by value: a `vector<unsigned>` and a `vector<int>` do not
    compare in C++ at all), maps and sets whatever the order."""
    if isinstance(actual, Some) or isinstance(expected, Some):
        if isinstance(actual, Some) and isinstance(expected, Some):
            return equal(actual.value, expected.value, converting)
        if actual is None or expected is None:
            return False
        return equal(actual.value if isinstance(actual, Some) else actual,
                     expected.value if isinstance(expected, Some) else expected, converting)
    if isinstance(actual, OfType) or isinstance(expected, OfType):
        actual_tag, a = typed(actual)
        expected_tag, e = typed(expected)
        if actual_tag is not None and expected_tag is not None:
            if converting:
                a, e = converted(a, actual_tag, e, expected_tag)
            return a == e
        actual, expected = untagged(actual), untagged(expected)
        if isinstance(actual, OfType) or isinstance(expected, OfType):
            return False  # a type no driver writes
        return equal(actual, expected, converting)  # an integer against a float: its value
    if actual is None or expected is None:
        return actual is None and expected is None
    if _number(actual) and _number(expected):
        if type(actual) is float or type(expected) is float:
            return float(actual) == float(expected)
        return int(actual) == int(expected)
    if type(actual) is bytes and type(expected) is bytes:
        return actual == expected
    if isinstance(actual, list | tuple) and isinstance(expected, list | tuple):
        within = converting and type(actual) is tuple and type(expected) is tuple
        return len(actual) == len(expected) and all(
            equal(a, e, within) for a, e in zip(actual, expected, strict=True))
    if isinstance(actual, Map) and isinstance(expected, Map):
        return _same_entries(actual.pairs, expected.pairs)
    if isinstance(actual, SetOf) and isinstance(expected, SetOf):
        return _same_entries(tuple((i, True) for i in actual.items),
                             tuple((i, True) for i in expected.items))
    return False


def _same_entries(actual: tuple, expected: tuple) -> bool:
    found = {}
    for key, value in actual:
        found[_key(key)] = value
    if len(found) != len(actual) or len(actual) != len(expected):
        return False
    return all(_key(key) in found and equal(found[_key(key)], value, converting=False)
               for key, value in expected)


def _key(value: Any) -> Any:
    """A hashable stand-in for a key, equal where `equal` is (within a container: by value)."""
    value = untagged(value)
    if _number(value):
        number = float(value) if type(value) is float or abs(value) < 1 << 53 else value
        return ("n", int(number) if type(number) is float and number.is_integer() else number)
    if isinstance(value, list | tuple):
        return ("l", tuple(_key(item) for item in value))
    if isinstance(value, Some):
        return _key(value.value)
    if isinstance(value, Opaque):
        return ("x", id(value))
    return (type(value).__name__, value if type(value) in (bytes, str) or value is None
            else id(value))


def _truth(value: Any) -> bool:
    value = untagged(value)
    if _number(value):
        return value != 0 or (type(value) is float and math.isnan(value))
    return isinstance(value, Some | bytes)


def _distance(value: Any, expected: Any, integer: bool) -> float:
    value = untagged(value)
    if not _number(value) or not _number(expected):
        raise TypeError("not a number")
    difference = float(value) - float(expected)
    return float(abs(math.trunc(difference))) if integer else abs(difference)


def _single(value: Any) -> Any:
    """A value as its float elements would be in single precision (a vector<float>)."""
    if type(value) is float:
        return float32(value)
    if isinstance(value, list):
        return [_single(item) for item in value]
    return value
