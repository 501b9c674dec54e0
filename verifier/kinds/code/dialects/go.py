"""Go assert tests as calls: HumanEval-X's testify tests, MultiPL-E's table of tests, and a
`func main` of `if CALL != K { panic(...) }`.

HumanEval-X's (their `package main` and imports in the tests or not):

    func TestAdd(t *testing.T) {
        assert := assert.New(t)
        assert.Equal(5, Add(2, 3))
        assert.Equal(true, math.Abs(Mean([]float64{1.0, 2.0})-1.5) < 1e-6)
    }

(`assert.Equal(t, 5, Add(2, 3))` too, and `True`, `False`, `NotEqual`); testify compares with
reflect.DeepEqual, so types count (`int` is not `int64`, a nil slice is not `[]int{}`).

MultiPL-E's, whose rows are all literal calls and literal expected values, so the table is
plain calls:

    func TestAdd(t *testing.T) {
      candidate := add
        type test struct {
            actual   interface{}
            expected interface{}
        }
       tests := []test{
         { actual: candidate(2, 3), expected: 5 },
       }
        for i, tc := range tests {
            t.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {
                if fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {
                    t.Errorf("expected '%s', got '%s'", tc.expected, tc.actual)
                }
            })
        }
    }

which compares what `%v` prints (go_format.py): `5` and `5.0` print alike, as they did.

The driver is a `func main` after the solution (its own `func main`, if any, renamed): each
call recorded by go_record.py. Tests that are not plain calls run in the solution's process,
hardened (`harden`): the tests' package names (`fmt.`, `assert.`, `testing.`) are the
verifier's own imports under names drawn per program, so a solution's `var fmt` or renamed
import is not what they call; a solution that declares at package level a predeclared name
the tests use (a `func panic`, a `const true = false`) is refused, as Go has no way to reach
the real one past it; `func TestX` tests run as a test binary (`go test -c`) whose TestMain,
the verifier's, reports only when every test passed.
"""

from __future__ import annotations

from typing import Any

from verifier.kinds.code import appended
from verifier.kinds.code.dialects import keyed
from verifier.kinds.code.dialects.core import (
    CallsPlan,
    Check,
    Dialect,
    NotPlainCalls,
    Site,
    sites_within_bounds,
)
from verifier.kinds.code.dialects.entry import line_statements
from verifier.kinds.code.dialects.go_format import sprint_v
from verifier.kinds.code.dialects.go_literals import GoReader
from verifier.kinds.code.dialects.go_record import GO_RECORDER, IMPORTS
from verifier.kinds.code.dialects.go_source import (
    UNIVERSE,
    GoFile,
    Import,
    assemble,
    package_names,
    split_file,
    tokenize,
)
from verifier.kinds.code.dialects.lexer import (
    Token,
    closing,
    is_punct,
    source_of,
    split_top,
)
from verifier.kinds.code.dialects.shapes import unwrapped
from verifier.kinds.code.dialects.tokens import depths, top_level
from verifier.kinds.code.dialects.values import OfType
from verifier.kinds.code.languages import GO_TEST_MAIN

# MultiPL-E's loop over its table, token by token; NAME stands for a name of the tests' own.
_TABLE_LOOP_TOKENS = """
for NAME , NAME : = range NAME { NAME . Run ( fmt . Sprintf ( STRING , NAME ) , func ( NAME *
testing . T ) { if fmt . Sprintf ( STRING , NAME . actual ) != fmt . Sprintf ( STRING , NAME .
expected ) { NAME . Errorf ( STRING , NAME . expected , NAME . actual ) } } ) }
"""
_TABLE_LOOP = _TABLE_LOOP_TOKENS.split()
_TABLE_TYPE_TOKENS = "type NAME struct { actual interface { } expected interface { } }"
_TABLE_TYPE = _TABLE_TYPE_TOKENS.split()
_TESTIFY = {"Equal": ("equal", False), "NotEqual": ("equal", True), "True": ("truth", False),
            "False": ("truth", True)}
# Where the tests' package names lead when the tests import nothing (MultiPL-E's tests use
# the solution's imports of testing and fmt): the standard library's.
STANDARD_PACKAGES = {name: name for name in ("testing", "fmt", "math", "strings", "strconv",
                                             "sort", "reflect", "os", "unicode")}
TESTIFY_ASSERT = "github.com/stretchr/testify/assert"


class GoDialect(Dialect):
    language = "go"

    def plan(self, tests: str) -> CallsPlan:
        file = split_file(tests)
        tokens = list(file.tokens)
        if len(tokens) < 4 or tokens[0].text != "func" or tokens[1].kind != "name":
            raise NotPlainCalls("the tests are not one function")
        opening = closing(tokens, 2) + 1
        if opening >= len(tokens) or not is_punct(tokens[opening], "{"):
            raise NotPlainCalls("the tests' function has a result")
        end = closing(tokens, opening)
        if any(not is_punct(t, ";") for t in tokens[end + 1:]):
            raise NotPlainCalls("more than one function in the tests")
        signature = [t.text for t in tokens[1:opening]]
        testing_name = _import_name(file.imports, "testing")
        if signature[0] == "main" and signature[1:] == ["(", ")"]:
            param = None
        elif (signature[0].startswith("Test") and len(signature) == 7
              and signature[3:6] == ["*", testing_name, "."] and signature[6] == "T"
              or signature[0].startswith("Test") and signature[1:] == [
                  "(", signature[2], "*", testing_name, ".", "T", ")"]):
            param = signature[2]
        else:
            raise NotPlainCalls("the tests' function is neither main nor a test")
        reader = _Checks(file.body, file, param)
        for statement in line_statements(tokens[opening + 1:end]):
            reader.statement(statement)
        driver = ["func main() {", *reader.lines, "}", GO_RECORDER]
        return CallsPlan(sites_within_bounds(reader.sites), "\n".join(driver))

    def program(self, solution: str, plan: CallsPlan) -> str:
        try:
            file = split_file(solution)
        except NotPlainCalls:
            return f"{solution}\n{plan.driver}"  # unreadable: the compiler will say why
        return assemble([_renamed_main(file, "__verifierSolutionMain")], IMPORTS, plan.driver)

    def holds(self, check: Check, value: Any) -> bool:
        try:
            if check.kind == "equal" and check.how == "%v":
                printed = sprint_v(value)
                return printed is not None and (printed == sprint_v(check.expected)) != (
                    check.negated)
            if check.kind == "equal" and check.how == "==":
                return _constant_equal(value, check.expected) != check.negated
            if check.kind == "equal":
                return keyed.equal(value, check.expected, "deep") != check.negated
            if check.kind == "truth":
                return value == OfType("bool", not check.negated)
            if check.kind == "close":
                number = keyed.number_of(value)
                if number is None:
                    return False
                distance = abs(float(number) - float(check.expected))
                return distance < check.tolerance if check.strict else (
                    distance <= check.tolerance)
        except (TypeError, ValueError, ArithmeticError, RecursionError):
            return False
        return False

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        try:
            return _in_process(solution, tests, tag)
        except NotPlainCalls:
            return None


def _constant_equal(value: Any, expected: Any) -> bool:
    """Go's `==` of a result with a constant: a string by its text (of whatever string type:
    primitive_equal compares numbers and bools only), the rest as _scalar has them. A result
    of an interface type (go_record.py) holds the constant only with its default type (the
    constant's own type: `3` an int, `2.5` a float64, `'a'` an int32) and value, or is nil."""
    if isinstance(value, OfType) and value.type == "interface":
        held = value.value
        if held is None or expected is None:
            return held is None and expected is None
        return (isinstance(held, OfType) and isinstance(expected, OfType)
                and held.type == expected.type and _constant_equal(held, expected))
    if isinstance(expected, OfType) and type(expected.value) is str:
        return (isinstance(value, OfType) and type(value.value) is str
                and value.value == expected.value)
    return keyed.primitive_equal(_scalar(value), _scalar(expected))


def _scalar(value: Any) -> Any:
    """A Go `==` with a constant compares the values: a string's, a bool's, a number's."""
    if isinstance(value, OfType) and type(value.value) in (str, bool):
        return value.value if type(value.value) is bool else value
    return value


def _import_name(imports: tuple[Import, ...], path: str) -> str:
    for spec in imports:
        if spec.path == path and spec.name not in ("_", "."):
            return spec.name
    return path.rsplit("/", 1)[-1]


class _Checks:
    """The statements of the tests' function, read into calls and checks."""

    def __init__(self, body: str, file: GoFile, param: str | None) -> None:
        self.tests = body  # the tests' text after their package clause and imports
        self.param = param
        self.assert_package = _import_name(file.imports, TESTIFY_ASSERT)
        self.math = _import_name(file.imports, "math")
        self.assertions: str | None = None  # `assert := assert.New(t)`
        self.aliases: set[str] = set()  # `candidate := add`
        self.table_type: str | None = None
        self.table: str | None = None
        self.looped = False
        self.lines: list[str] = []
        self.sites: list[Site] = []

    def statement(self, tokens: list[Token]) -> None:
        texts = [t.text for t in tokens]
        line = tokens[0].line
        if self.looped:
            raise NotPlainCalls(f"line {line}: a statement after the table's loop")
        if (len(texts) == 4 and texts[1:3] == [":", "="] and tokens[0].kind == "name"
                and tokens[3].kind == "name"):
            self._alias(tokens)
        elif len(texts) == 9 and texts[1:] == [":", "=", self.assert_package, ".", "New", "(",
                                               self.param, ")"] and self.param:
            self.assertions = texts[0]
        elif _matches(texts, _TABLE_TYPE):
            self.table_type = texts[1]
        elif (self.table_type and len(texts) > 7 and texts[1:6] == [":", "=", "[", "]",
                                                                     self.table_type]
              and is_punct(tokens[6], "{") and closing(tokens, 6) == len(tokens) - 1):
            self.table = texts[0]
            for row in split_top(tokens[7:-1], ","):
                if row:
                    self._row(row)
        elif self.table and _matches(texts, _TABLE_LOOP) and _loop_consistent(
                texts, self.param, self.table):
            self.looped = True
        elif texts[:1] == ["if"] and self.param is None:
            self._panic_check(tokens)
        else:
            self._testify(tokens, line)

    def _alias(self, tokens: list[Token]) -> None:
        name, target = tokens[0].text, tokens[3].text
        if name in self.aliases or target in self.aliases or target == self.param:
            raise NotPlainCalls(f"line {tokens[0].line}: an alias the dialect does not know")
        self.aliases.add(name)
        self.lines += [f"\t{source_of(self.tests, tokens)}", f"\t_ = {name}"]

    def _record(self, call: str, check: Check, line: int) -> None:
        recorder = "__verifierRecordCompared" if check.how == "==" else "__verifierRecord"
        self.lines.append(f"\t{recorder}({len(self.sites)}, {call})")
        self.sites.append(Site(line, call, check))

    def _row(self, row: list[Token]) -> None:
        if not (is_punct(row[0], "{") and closing(row, 0) == len(row) - 1):
            raise NotPlainCalls(f"line {row[0].line}: a row that is not {{...}}")
        fields: dict[str, list[Token]] = {}
        for part in split_top(row[1:-1], ","):
            if not part:
                continue
            if len(part) < 3 or part[0].kind != "name" or not is_punct(part[1], ":"):
                raise NotPlainCalls(f"line {row[0].line}: a row field that is not name: value")
            fields[part[0].text] = part[2:]
        if sorted(fields) != ["actual", "expected"]:
            raise NotPlainCalls(f"line {row[0].line}: a row of other fields")
        expected = GoReader(unwrapped(fields["expected"])).whole()
        self._record(self.call(fields["actual"]), Check("equal", expected, how="%v"),
                     row[0].line)

    def _panic_check(self, tokens: list[Token]) -> None:
        """`if CALL != K { panic(...) }` (or K != CALL)."""
        line = tokens[0].line
        if not is_punct(tokens[-1], "}"):
            raise NotPlainCalls(f"line {line}: an if the dialect does not know")
        body_start, depth = 0, 0
        for index, token in enumerate(tokens):  # the first `{` outside the condition's brackets
            if is_punct(token, "{") and depth == 0:
                body_start = index
                break
            depth += is_punct(token, "(", "[") - is_punct(token, ")", "]")
        body = [t.text for t in tokens[body_start + 1:-1]]
        if closing(tokens, body_start) != len(tokens) - 1 or body[:2] != ["panic", "("] or (
                body[-1] != ")" or closing(tokens[body_start + 1:-1], 1) != len(body) - 1):
            raise NotPlainCalls(f"line {line}: an if that does more than panic")
        condition = tokens[1:body_start]
        comparisons = top_level(condition, "!=", "==")
        if len(comparisons) != 1 or condition[comparisons[0]].text != "!=":
            raise NotPlainCalls(f"line {line}: an if of another condition")
        at = comparisons[0]
        call, expected = self.either(condition[:at], condition[at + 1:], line)
        self._record(call, Check("equal", expected, how="=="), line)

    def _testify(self, tokens: list[Token], line: int) -> None:
        texts = [t.text for t in tokens]
        if len(texts) < 5 or texts[1] != "." or not is_punct(tokens[3], "(") or closing(
                tokens, 3) != len(tokens) - 1 or texts[2] not in _TESTIFY:
            raise NotPlainCalls(f"line {line}: a statement that is not plain calls")
        arguments = split_top(tokens[4:-1], ",")
        if texts[0] == self.assert_package and self.param and arguments[:1] and [
                t.text for t in arguments[0]] == [self.param]:
            arguments = arguments[1:]  # assert.Equal(t, expected, actual)
        elif texts[0] != self.assertions or self.assertions is None:
            raise NotPlainCalls(f"line {line}: {texts[0]!r} is not testify's")
        kind, negated = _TESTIFY[texts[2]]
        if kind == "truth":
            if len(arguments) != 1:
                raise NotPlainCalls(f"line {line}: True or False of other than one value")
            self._record(self.call(arguments[0]), Check("truth", negated=negated), line)
            return
        if len(arguments) == 3 and len(arguments[2]) == 1 and arguments[2][0].kind == "string":
            arguments = arguments[:2]  # a message, printed on failure
        if len(arguments) != 2:
            raise NotPlainCalls(f"line {line}: Equal of other than two values")
        for expected_side, actual_side in ((arguments[0], arguments[1]),
                                           (arguments[1], arguments[0])):
            if (close := self._close(actual_side, expected_side, line)) is not None:
                if negated:
                    raise NotPlainCalls(f"line {line}: NotEqual of a bound")
                self._record(*close, line)
                return
        call, expected = self.either(arguments[1], arguments[0], line)
        self._record(call, Check("equal", expected, negated=negated), line)

    def _close(self, tokens: list[Token], other: list[Token], line: int
               ) -> tuple[str, Check] | None:
        """`true, math.Abs(CALL - K) < T`: the call and its check."""
        bounds = top_level(tokens, "<", "<=")
        if len(bounds) != 1 or [t.text for t in other] != ["true"]:
            return None
        at = bounds[0]
        left, bound = unwrapped(tokens[:at]), GoReader(tokens[at + 1:]).whole()
        if not (isinstance(bound, OfType) and type(bound.value) in (int, float)):
            raise NotPlainCalls(f"line {line}: a bound that is not a number")
        if not ([t.text for t in left[:4]] == [self.math, ".", "Abs", "("]
                and closing(left, 3) == len(left) - 1):
            raise NotPlainCalls(f"line {line}: a comparison the dialect does not know")
        inside = unwrapped(left[4:-1])
        minus = set(top_level(inside, "-"))
        for index in range(len(inside)):
            if index and index in minus:
                try:
                    call, expected = self.either(inside[:index], inside[index + 1:], line)
                except NotPlainCalls:
                    continue
                if isinstance(expected, OfType) and type(expected.value) in (int, float):
                    return call, Check("close", expected.value, tolerance=float(bound.value),
                                       strict=tokens[at].text == "<")
        raise NotPlainCalls(f"line {line}: abs of something else than CALL - K")

    def either(self, call_side: list[Token], literal_side: list[Token], line: int
               ) -> tuple[str, Any]:
        for calls, literals in ((call_side, literal_side), (literal_side, call_side)):
            try:
                expected = GoReader(unwrapped(literals)).whole()
            except NotPlainCalls:
                continue
            return self.call(calls), expected
        raise NotPlainCalls(f"line {line}: no literal to compare with")

    def call(self, tokens: list[Token]) -> str:
        tokens = unwrapped(tokens)
        if (len(tokens) < 3 or tokens[0].kind != "name" or not is_punct(tokens[1], "(")
                or closing(tokens, 1) != len(tokens) - 1):
            raise NotPlainCalls("not a call of a function")
        if tokens[0].text in (self.param, self.assertions, self.table, self.table_type,
                              "panic", self.assert_package):
            raise NotPlainCalls(f"line {tokens[0].line}: a call of the tests' own")
        for argument in split_top(tokens[2:-1], ","):
            if not argument and len(tokens) == 3:
                break
            if argument and argument[0].text in self.aliases:
                raise NotPlainCalls(f"line {tokens[0].line}: an argument that is not a literal")
            GoReader(argument).whole()
        return source_of(self.tests, tokens)


def _loop_consistent(texts: list[str], param: str | None, table: str) -> bool:
    """MultiPL-E's loop over its own table, with the names it declares used consistently
    (the index in Sprintf, the row in every field, its func's `t` for Errorf) and `%v`."""
    index, row, inner = texts[1], texts[3], texts[24]
    return (texts[7] == table and texts[9] == param and texts[19] == index
            and texts[54] == inner and all(texts[i] == row for i in (38, 49, 60, 64))
            and texts[36] == texts[47] == '"%v"' and len({index, row, inner}) == 3)


def _matches(texts: list[str], shape: list[str]) -> bool:
    if len(texts) != len(shape):
        return False
    for got, want in zip(texts, shape, strict=True):
        if want == "NAME":
            if not got.isidentifier():
                return False
        elif want == "STRING":
            if not got.startswith('"'):
                return False
        elif got != want:
            return False
    return True


def _renamed_main(file: GoFile, name: str) -> GoFile:
    """The file with its top-level `func main(` renamed (a driver or epilogue brings its
    own)."""
    tokens = file.tokens
    body = file.body
    depth = depths(tokens)
    for index in range(len(tokens) - 2):
        if (tokens[index].text == "func" and tokens[index + 1].text == "main"
                and is_punct(tokens[index + 2], "(") and not depth[index]):
            start, end = tokens[index + 1].start, tokens[index + 1].end
            body = body[:start] + name + body[end:]
            return GoFile(file.imports, body, tuple(tokenize(body)))
    return file


# ---------------------------------------------------------------------------- in-process

_EPILOGUE_MAIN = """
func main() {
	TESTS()
	if data, err := __verifier_os.ReadFile("/proc/self/fd/4"); err == nil {
		__verifier_os.WriteFile("/proc/self/fd/3", data, 0)
	}
}
"""
# The testing flags that choose which tests run (or none: -test.list only lists them), as
# the test binary registers them, taken before any code of the solution runs (the first
# variable the program initialises); TestMain sets them back, so a solution's init that sets
# -test.run (or adds it to os.Args) does not leave its failing tests unrun.
_TEST_FLAGS = """
var __verifier_test_flags_TAG = func() map[string]__verifier_flag.Value {
	__verifier_testing.Init()
	found := map[string]__verifier_flag.Value{}
	for _, name := range []string{"test.run", "test.skip", "test.list", "test.count"} {
		if flag := __verifier_flag.Lookup(name); flag != nil {
			found[name] = flag.Value
		}
	}
	return found
}()
"""
_TEST_FLAG_DEFAULTS = """
	__verifier_os.Args = __verifier_os.Args[:1]
	for name, value := range __verifier_test_flags_TAG {
		if value.Set(map[string]string{"test.count": "1"}[name]) != nil {
			__verifier_os.Exit(2)
		}
	}"""
_EPILOGUE_TEST = f"""
{GO_TEST_MAIN} {{{_TEST_FLAG_DEFAULTS}
	if __verifier_m.Run() != 0 {{
		__verifier_os.Stderr.WriteString("Assertion failed: a test of the tests failed\\n")
		__verifier_os.Exit(1)
	}}
	if data, err := __verifier_os.ReadFile("/proc/self/fd/4"); err == nil {{
		__verifier_os.WriteFile("/proc/self/fd/3", data, 0)
	}}
	__verifier_os.Exit(0)
}}
"""
_REFUSED = """package main
import "os"
func main() {
	os.Stderr.WriteString("the solution declares NAMES at package level, which the tests use: " +
		"Go offers no way to reach the predeclared ones past it, so the tests cannot run in " +
		"its process\\n")
	os.Exit(1)
}
"""


def _in_process(solution: str, tests: str, tag: str) -> str:
    """The hardened in-process program (see the module doc)."""
    solution_file = _renamed_main(split_file(solution), "__verifierSolutionMain")
    tests_file = split_file(tests)
    is_test = any(t.text == "func" and i + 1 < len(tests_file.tokens)
                  and tests_file.tokens[i + 1].text.startswith("Test")
                  for i, t in enumerate(tests_file.tokens))
    rewritten, own = _qualified(tests_file, tag)
    used = {t.text for t in rewritten.tokens if t.kind == "name"} | {"nil"}
    shadowed = sorted(package_names(solution_file) & UNIVERSE & used)
    if shadowed:
        return _REFUSED.replace("NAMES", ", ".join(shadowed))
    own |= {"__verifier_os": "os"}
    if is_test:
        own |= {"__verifier_testing": "testing", "__verifier_flag": "flag"}
        flags = _TEST_FLAGS.replace("TAG", tag)
        first = GoFile((), flags, tuple(tokenize(flags)))
        return assemble([first, solution_file, rewritten], own,
                        _EPILOGUE_TEST.replace("TAG", tag))
    entry = f"__verifierMain_{tag}"
    renamed = _renamed_main(rewritten, entry)
    if renamed is rewritten:
        return appended.assemble("go", solution, tests)
    return assemble([solution_file, renamed], own, _EPILOGUE_MAIN.replace("TESTS", entry))


def _qualified(file: GoFile, tag: str) -> tuple[GoFile, dict[str, str]]:
    """The tests with each use of a package name (`fmt.`, `assert.`) the verifier's own
    import of that package under a name drawn per program, and those imports. A name the
    tests declared locally (`assert := assert.New(t)`) is theirs from the end of that
    statement on."""
    packages = {spec.name: spec.path for spec in file.imports if spec.name not in ("_", ".")}
    for name, path in STANDARD_PACKAGES.items():
        packages.setdefault(name, path)
    kept = tuple(spec for spec in file.imports if spec.name in ("_", "."))
    tokens = file.tokens
    out: list[str] = []
    own: dict[str, str] = {}
    last = 0
    local: set[str] = set()
    pending: set[str] = set()
    depth = depths(tokens)
    for index, token in enumerate(tokens):
        if token.newline or is_punct(token, ";", "{"):
            local |= pending
            pending = set()
        if token.text == "func" and not depth[index]:
            local, pending = set(), set()
        if is_punct(token, ":") and index + 1 < len(tokens) and is_punct(tokens[index + 1], "="):
            back = index - 1
            while back >= 0 and tokens[back].kind == "name":
                pending.add(tokens[back].text)
                if back == 0 or not is_punct(tokens[back - 1], ","):
                    break
                back -= 2
        if (token.kind == "name" and token.text in packages and token.text not in local
                and index + 1 < len(tokens) and is_punct(tokens[index + 1], ".")
                and not (index and is_punct(tokens[index - 1], "."))):
            alias = f"__verifier_{tag}_{token.text}"
            own[alias] = packages[token.text]
            out += [file.body[last:token.start], alias]
            last = token.end
    out.append(file.body[last:])
    body = "".join(out)
    return GoFile(kept, body, tuple(tokenize(body))), own
