"""Java assert tests as calls: MultiPL-E's and HumanEval-X's shapes.

MultiPL-E's tests close the function the solution completes, then hold a `main` of the
solution's class (`Problem`):

        }
        public static void main(String[] args) {
        assert(closeElements((new ArrayList<Float>(Arrays.asList((float)1.0f))), (0.3f)) == (true));
        assert(makeAPile((3l)).equals((new ArrayList<Long>(Arrays.asList((long)3l)))));
        }
    }

HumanEval-X's are a class of their own whose `main` gathers the checks in a list:

    public class Main {
        public static void main(String[] args) {
            Solution s = new Solution();
            List<Boolean> correct = Arrays.asList(
                    s.sortThird(new ArrayList<>(Arrays.asList(5, 3))).equals(Arrays.asList(3, 5)),
                    !s.isPrime(6), s.triangleArea(5, 3) == 7.5, ...);
            if (correct.contains(false)) {
                throw new AssertionError();
            }
        }
    }

Each check is one of shapes.py's. `main` may also bind instances (`Solution s = new
Solution();`) and literal variables. The driver keeps the tests' text around `main` (so calls
resolve in the same class, as the tests' did) and replaces its body by the calls, each value
written by java_record.py's recorder.

Values compare as Java does: a primitive `==` by value (a long and a double as doubles), an
`equals` with types (`Integer` 1 is not `Long` 1, an `ArrayList` equals any `List` of equal
elements, `Double.equals` by bits), an empty `Optional` unlike null.

In-process tests (anything else) are hardened: each `assert` of the tests, and each `throw new
AssertionError(...)`, becomes a call of the verifier's own check (a class named per program)
that prints the failure and halts the JVM: no `-da` or `setDefaultAssertionStatus(false)`,
no `catch (AssertionError e)`, shutdown hook or uncaught-exception handler sees it.
"""

from __future__ import annotations

from typing import Any

from verifier.kinds.code import appended
from verifier.kinds.code.dialects.compiled_reading import java_code
from verifier.kinds.code.dialects.core import (
    CallsPlan,
    Check,
    Dialect,
    NotPlainCalls,
    Site,
    sites_within_bounds,
)
from verifier.kinds.code.dialects.entry import find_entry, statements, words_at
from verifier.kinds.code.dialects.java_record import JAVA_RECORDER, RECORDER
from verifier.kinds.code.dialects.lexer import (
    Token,
    closing,
    is_punct,
    source_of,
    split_top,
    tokenize,
    used_declarations,
)
from verifier.kinds.code.dialects.rewrite import checks_rewritten
from verifier.kinds.code.dialects.shadowing import Declaring, driven, refusal
from verifier.kinds.code.dialects.shapes import Scope, ShapeReader, Spelling, judged, unwrapped
from verifier.kinds.code.dialects.tokens import top_level
from verifier.kinds.code.dialects.typed import (
    TypedReader,
    in_range,
    integer_value,
    of_float,
    read_generic,
    unescape,
    utf16_joined,
)
from verifier.kinds.code.dialects.values import Map, OfType, SetOf, Some

_INTEGERS = {"byte": ("Byte", 8), "short": ("Short", 16), "int": ("Integer", 32),
             "long": ("Long", 64), "Byte": ("Byte", 8), "Short": ("Short", 16),
             "Integer": ("Integer", 32), "Long": ("Long", 64)}
_FLOATS = {"float": "Float", "double": "Double", "Float": "Float", "Double": "Double"}
_LISTS = frozenset({"ArrayList", "LinkedList", "List", "Vector"})
_SETS = frozenset({"HashSet", "TreeSet", "LinkedHashSet", "Set"})
_MAPS = frozenset({"HashMap", "TreeMap", "LinkedHashMap", "Map"})
_ARITIES = {name: arity for arity, name in enumerate(
    ("Unit", "Pair", "Triplet", "Quartet", "Quintet", "Sextet", "Septet", "Octet", "Ennead",
     "Decade"), start=1)}
_TUPLES = frozenset(_ARITIES)
_CONSTANTS = {("Long", "MAX_VALUE"): OfType("Long", (1 << 63) - 1),
              ("Long", "MIN_VALUE"): OfType("Long", -(1 << 63)),
              ("Integer", "MAX_VALUE"): OfType("Integer", (1 << 31) - 1),
              ("Integer", "MIN_VALUE"): OfType("Integer", -(1 << 31))}
_RANK = {"Byte": 0, "Short": 0, "Character": 0, "Integer": 0, "Long": 1, "Float": 2,
         "Double": 3}
_PROMOTED = ["Integer", "Long", "Float", "Double"]
EMPTY_OPTIONAL = OfType("Optional", None)


class JavaReader(TypedReader):
    """Java literals, typed as javac types them (see typed.py)."""

    def number(self, text: str, expected: Any) -> OfType:
        negative = text.startswith("-")
        body = text.lstrip("-").replace("_", "")
        lower = body.lower()
        hexadecimal = lower.startswith("0x")
        if lower.endswith(("f", "d")) and not hexadecimal or (
                not hexadecimal and any(c in lower for c in ".e")):
            try:
                value = float(body.rstrip("fFdD"))
            except ValueError:
                raise NotPlainCalls(f"not a number {text[:30]!r}") from None
            value = -value if negative else value
            return of_float(value, lower.endswith("f"), "Float" if lower.endswith("f")
                            else "Double")
        long = lower.endswith("l")
        value = integer_value(body.rstrip("lL"))
        bits = 64 if long else 32
        if hexadecimal or lower.startswith("0b"):
            if value >= 1 << bits:
                raise NotPlainCalls("an integer out of range")
            value = value - (1 << bits) if value >= 1 << (bits - 1) else value
        value = -value if negative else value
        if not in_range(value, bits):
            raise NotPlainCalls("an integer out of range")
        return OfType("Long" if long else "Integer", value)

    def char(self, text: str) -> OfType:
        body = unescape(text[1:-1])
        if len(body) != 1:
            raise NotPlainCalls("a char literal of other than one char")
        return OfType("Character", body)

    def cast(self, tokens: list[Token]) -> str | None:
        if len(tokens) == 1 and tokens[0].text in (*_INTEGERS, *_FLOATS, "char", "String"):
            return tokens[0].text
        found = read_generic(tokens, 0)  # MultiPL-E's `(ArrayList<Long>)new ArrayList<...>`
        if found is not None and found[1] == len(tokens) and found[0].name in (
                _LISTS | _SETS | _MAPS | _TUPLES):
            return found[0].name
        return None

    def convert(self, value: Any, target: str) -> Any:
        if target in _LISTS | _SETS | _MAPS | _TUPLES:
            # a reference cast converts nothing: the value must already be of that kind
            if not (target in _LISTS and isinstance(value, list)
                    or target in _SETS and isinstance(value, SetOf)
                    or target in _MAPS and isinstance(value, Map)
                    or isinstance(value, tuple) and len(value) == _ARITIES.get(target)):
                raise NotPlainCalls(f"a cast to {target} of something else")
            return value
        if target == "String":
            if type(value) is not str:
                raise NotPlainCalls("a cast to String of something else")
            return value
        number = _code(value)
        if target in _FLOATS:
            return of_float(float(number), _FLOATS[target] == "Float", _FLOATS[target])
        if target == "char":
            return OfType("Character", chr(_wrapped(number, 16) & 0xFFFF))
        name, bits = _INTEGERS[target]
        return OfType(name, _wrapped(number, bits))

    def arithmetic(self, operator: str, left: Any, right: Any) -> Any:
        if operator == "+" and type(left) is str and type(right) is str:
            return utf16_joined(left + right)  # "abc" + "def"
        return super().arithmetic(operator, left, right)

    def promoted(self, left: str, right: str) -> str:
        if left not in _RANK or right not in _RANK:
            raise NotPlainCalls("arithmetic on something else than numbers")
        return _PROMOTED[max(_RANK[left], _RANK[right])]

    def named(self, depth: int, expected: Any) -> Any:
        token = self.peek()
        text = token.text
        found, value = self.word()
        if found:
            return value
        if text == "new":
            return self._new(depth)
        for (owner, constant), value in _CONSTANTS.items():
            if self.taking(owner, ".", constant):
                return value
        if self.taking("Arrays", ".", "asList") or self.taking("List", ".", "of"):
            return self.items(depth)
        if self.taking("Set", ".", "of"):
            return SetOf(tuple(self.items(depth)))
        if self.taking("Map", ".", "of"):
            values = self.items(depth)
            if len(values) % 2:
                raise self.fail("Map.of with a key and no value")
            return Map(tuple((values[i], values[i + 1]) for i in range(0, len(values), 2)))
        if self.taking("Optional", ".", "of"):
            values = self.items(depth)
            if len(values) != 1 or values[0] is None:
                raise self.fail("Optional.of of other than one value")
            return Some(values[0])
        if self.taking("Optional", ".", "empty"):
            if self.items(depth):
                raise self.fail("Optional.empty with arguments")
            return EMPTY_OPTIONAL
        if token.text in _TUPLES and self.taking(token.text, ".", "with"):
            return tuple(self.items(depth))
        raise self.fail(f"{text!r} is not a literal")

    def _new(self, depth: int) -> Any:
        self.position += 1
        token = self.peek()
        if token is None or token.kind != "name":
            raise self.fail("new of something else than a class")
        name = token.text
        self.position += 1
        if is_punct(self.peek(), "<"):
            self._skip_type_arguments()
        if name not in _LISTS | _SETS | _MAPS or not is_punct(self.peek(), "("):
            raise self.fail(f"new {name}")
        values = self.items(depth)
        if len(values) > 1 or values and not isinstance(values[0], list | SetOf | Map):
            raise self.fail(f"new {name} of something else than a collection")
        source = values[0] if values else ([] if name not in _MAPS else Map(()))
        if name in _MAPS:
            if not isinstance(source, Map):
                raise self.fail("a map of something else than a map")
            return source
        items = source.items if isinstance(source, SetOf) else source
        if isinstance(items, Map):
            raise self.fail("a collection of a map")
        return SetOf(tuple(items)) if name in _SETS else list(items)

    def _skip_type_arguments(self) -> None:
        depth = 0
        while (token := self.peek()) is not None:
            self.position += 1
            if is_punct(token, "<"):
                depth += 1
            elif is_punct(token, ">"):
                depth -= 1
                if depth == 0:
                    return
            elif token.kind != "name" and not is_punct(token, ",", ".", "?", "[", "]"):
                break
        raise self.fail("unreadable type arguments")


def _code(value: Any) -> int | float:
    if isinstance(value, OfType) and type(value.value) is str:
        return ord(value.value)
    if isinstance(value, OfType) and type(value.value) in (int, float):
        return value.value
    raise NotPlainCalls("a cast of something else than a number")


def _wrapped(number: int | float, bits: int) -> int:
    """Java's narrowing: a float truncates toward zero (saturating, NaN is 0), then the low
    bits as a signed integer."""
    if type(number) is float:
        if number != number:
            return 0
        limit = (1 << (max(bits, 32) - 1))
        number = max(-limit, min(limit - 1, int(number))) if abs(number) != float("inf") else (
            limit - 1 if number > 0 else -limit)
    number = int(number) & ((1 << bits) - 1)
    return number - (1 << bits) if number >= 1 << (bits - 1) else number


JAVA = Spelling(JavaReader, java_objects=True)


def _main_header(tokens: list[Token], position: int) -> int | None:
    """`public static void main(String[] args) [throws ...] {`: the index of its `{`."""
    start = position
    while position < len(tokens) and tokens[position].text in ("public", "static", "final",
                                                               "private", "protected"):
        position += 1
    if "static" not in {t.text for t in tokens[start:position]}:
        return None
    after = words_at(tokens, position, ("void", "main", "("))
    if after is None:
        return None
    end = closing(tokens, after - 1)
    position = end + 1
    if words_at(tokens, position, ("throws",)) is not None:
        position += 1
        while position < len(tokens) and (tokens[position].kind == "name"
                                          or is_punct(tokens[position], ",", ".")):
            position += 1
    return position if position < len(tokens) and is_punct(tokens[position], "{") else None


_CORRECT_CHECK = ["if", "(", None, ".", "contains", "(", "false", ")", ")", "{", "throw",
                  "new", "AssertionError", "(", ")", ";", "}"]


class JavaDialect(Dialect):
    language = "java"

    def plan(self, tests: str) -> CallsPlan:
        tokens = tokenize(tests)
        entry = find_entry(tests, tokens, _main_header)
        scope = Scope()
        lines: list[str] = []
        sites: list[Site] = []
        pending: dict[str, list[Site]] = {}  # HumanEval-X's list of checks, before its `if`
        declared: dict[int, str] = {}  # the lines declaring literal variables
        for statement in statements(entry.body):
            head = statement[0]
            if head.text == "assert":
                check = statement[1:]
                if colons := top_level(check, ":", ternary=True):
                    check = check[:colons[0]]
                reader = ShapeReader(tests, JAVA, scope)
                sites.append(reader.site(check, head.line))
                lines.append(_record(len(sites) - 1, sites[-1].call))
            elif head.text == "if":
                name = _checked_list(statement)
                if name not in pending:
                    raise NotPlainCalls(f"line {head.line}: an if the dialect does not know")
                for site in pending.pop(name):
                    sites.append(site)
                    lines.append(_record(len(sites) - 1, site.call))
            else:
                known = len(scope.variables)
                found = self._declaration(tests, statement, scope)
                if isinstance(found, tuple):
                    pending[found[0]] = found[1]
                else:
                    if len(scope.variables) > known:
                        declared[len(lines)] = list(scope.variables)[-1]
                    lines.append(found)
        if pending:
            raise NotPlainCalls("a list of checks that is never checked")
        driver = "\n".join([tests[:entry.body_start], *used_declarations(lines, declared),
                            tests[entry.body_end:], JAVA_RECORDER])
        return CallsPlan(sites_within_bounds(sites), driver)

    @staticmethod
    def _declaration(tests: str, statement: list[Token], scope: Scope
                     ) -> str | tuple[str, list[Site]]:
        """`T x = new T();` (an instance, kept), `T x = LITERAL;` (a variable, kept), or
        `List<Boolean> name = Arrays.asList(CHECKS)` (its checks, by name)."""
        equals = top_level(statement, "=", ternary=True)
        if len(equals) != 1 or equals[0] < 2 or statement[equals[0] - 1].kind != "name":
            raise NotPlainCalls(f"line {statement[0].line}: a statement that is not plain calls")
        at = equals[0]
        name = statement[at - 1].text
        declared = [t.text for t in statement[:at - 1]]
        value = statement[at + 1:]
        if name in scope.variables or name in scope.instances or not declared or any(
                t.kind not in ("name", "punct") for t in statement[:at - 1]):
            raise NotPlainCalls(f"line {statement[0].line}: {name!r} declared twice or oddly")
        if declared == ["List", "<", "Boolean", ">"] and [t.text for t in value[:4]] == [
                "Arrays", ".", "asList", "("] and closing(value, 3) == len(value) - 1:
            reader = ShapeReader(tests, JAVA, scope)
            return name, [reader.site(part, part[0].line if part else statement[0].line)
                          for part in split_top(value[4:-1], ",")]
        if (len(value) >= 4 and value[0].text == "new" and value[1].kind == "name"
                and [t.text for t in value[-2:]] == ["(", ")"] and len(value) == 4
                and declared == [value[1].text]):
            scope.instances.add(name)
        else:
            scope.variables[name] = JavaReader(unwrapped(value), scope.variables).whole()
        return source_of(tests, statement) + ";"

    def program(self, solution: str, plan: CallsPlan) -> str:
        return driven(JAVA_DECLARING, solution, solution, plan.driver,
                      (RECORDER, JAVA_RECORDER))

    def holds(self, check: Check, value: Any) -> bool:
        return judged(check, value)

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        try:
            rewritten = _checked(tests, f"__VerifierCheck_{tag}")
            refused = refusal(JAVA_DECLARING, solution, rewritten + _CHECK)
        except NotPlainCalls:
            return None
        return refused or appended.assemble(self.language, solution, rewritten + _CHECK.replace(
            "__VerifierCheck", f"__VerifierCheck_{tag}"))


def _checked_list(statement: list[Token]) -> str | None:
    """The list an `if (name.contains(false)) { throw new AssertionError(); }` checks."""
    texts = [t.text for t in statement]
    if len(texts) != len(_CORRECT_CHECK) or any(
            want is not None and want != got for want, got in zip(_CORRECT_CHECK, texts,
                                                                  strict=True)):
        return None
    return texts[2]


def _record(site: int, call: str) -> str:
    return f"        {RECORDER}.record({site}, {call});"


# The verifier's own check for in-process tests: the failure on stderr, then the JVM halted
# (no shutdown hook, finaliser or handler runs); should halting be refused, an Error.
_CHECK = r"""
final class __VerifierCheck {
    static void check(int line, boolean condition) {
        if (!condition) throw fail(line);
    }
    static java.lang.Error fail(int line) {
        java.lang.System.err.println("Assertion failed at line " + line + " of the tests");
        java.lang.System.err.flush();
        java.lang.Runtime.getRuntime().halt(1);
        throw new java.lang.Error("Assertion failed");
    }
}
"""


def _checked(tests: str, check: str) -> str:
    """The tests with each `assert X [: M];` statement a call of `check`, and each `throw new
    AssertionError(...)` its failure."""
    tokens = tokenize(tests)
    out: list[str] = []
    last = 0
    position = 0
    while position < len(tokens):
        token = tokens[position]
        if token.kind == "name" and token.text == "assert" and (
                position == 0 or is_punct(tokens[position - 1], ";", "{", "}", ")")
                or tokens[position - 1].text in ("else", "do")):
            end, depth = position + 1, 0
            while end < len(tokens) and not (is_punct(tokens[end], ";") and depth == 0):
                depth += is_punct(tokens[end], "(", "[", "{") - is_punct(tokens[end], ")", "]",
                                                                        "}")
                end += 1
            if end >= len(tokens):
                raise NotPlainCalls("an assert without its semicolon")
            condition = tokens[position + 1:end]
            colons = top_level(condition, ":", ternary=True)
            if colons:
                condition = condition[:colons[0]]
            out += [tests[last:token.start], f"{check}.check({token.line}, "
                    f"({source_of(tests, condition)}))"]
            last = tokens[end].start
            position = end
        position += 1
    out.append(tests[last:])
    return checks_rewritten("".join(out), (), f"{check}.check", frozenset({"AssertionError"}))


# The JDK's types the tests call by their simple name (java.lang's, and those of the packages
# MultiPL-E's and HumanEval-X's Java imports on demand). A type, field or enum constant of the
# solution's of one of these names is what the tests' `Math.abs(...)`, `Objects.equals(...)`,
# `Arrays.asList(...)` mean (a class of the compilation unit comes before an on-demand import, a
# field before a type): the solution would judge itself, so such a program is not run.
JAVA_DECLARING = Declaring(
    reading=java_code,
    library=frozenset({
        "Math", "StrictMath", "Objects", "Arrays", "Collections", "Collectors", "List",
        "ArrayList", "LinkedList", "Map", "HashMap", "TreeMap", "LinkedHashMap", "Set",
        "HashSet", "TreeSet", "LinkedHashSet", "Optional", "Integer", "Long", "Double", "Float",
        "Short", "Byte", "Boolean", "Character", "String", "StringBuilder", "Object", "System",
        "Runtime", "Thread", "Random", "Iterator", "Iterable", "Comparator", "Stream",
        "IntStream", "LongStream", "DoubleStream", "BigInteger", "BigDecimal", "Number",
        "AssertionError", "Exception", "RuntimeException", "Error", "Throwable", "Pair",
        "Triplet", "Quartet", "Unit", "java"}),
    keywords={"class": None, "interface": None, "enum": None, "record": None},
    typed=frozenset({"=", ";", ","}),
    refused="""class VerifierRefused {
    public static void main(String[] args) {
        System.err.println("the solution declares NAMES, which the tests use: they would not be \
the JDK's, so the tests cannot run in its process");
        System.exit(1);
    }
}
""")
