"""Assert tests, split between the worker and the jail: expected values stay out of the jail.

Most asserts compare a value the solution's code computes with a constant written in the tests.
The worker takes each of those out of the tests before they enter the jail and puts in its place
a call that records the computed value (`__verifier_site__(i, X)`); it then judges the recorded
values itself, so the constant never enters the jail at all. The forms it judges, where K is a
constant (a literal, or arithmetic on literals the worker computes as the tests would: `3 * 19`,
`2.0 / 3.0`, `'ab' + 'c'`; see `_fold`) and X anything else:

    assert X == K        also !=, <, <=, >, >=, either side, chains (0 <= X < K), X in K,
                         X not in K, and `is` / `is not` with None, True or False
    assert math.isclose(X, K, rel_tol=K, abs_tol=K)       (or isclose, from math; either order)
    assert abs(X - K) < K                                 (or <=, or K - X)
    assert f(...)        and `assert not f(...)`, X the call of a function by its name

Asserts inside loops, `try` blocks or `while` stay in the tests (their constants are rarely
constant, and a loop could record without end), as does every other form; those run in the
judge (see verifier/sandbox/harness/judge.py), out of the solution's reach. Comments are dropped;
line numbers are kept, so a failure names the line of the tests it came from.

The plan also names what the judge should ask the solution's process for: the names the tests
look up, and which of them the tests use as modules (`math.isclose`).

Tests that are nothing but such asserts on calls of the solution's function with constant
arguments (HumanEval's `check(candidate)` of `assert candidate(1, 2) == 3`, MBPP's list of
`assert f(1, 2) == 3`) become a list of calls (`AssertPlan.calls`): the jail runs the solution
and makes those calls in one process, recording each returned value, with no tests and no judge
at all. Nothing secret is in that process: a value it reports for a call is one the solution's
function could have returned, and the worker, which holds every expected value, accepts a run
only with exactly one value for every call.
"""

from __future__ import annotations

import ast
import builtins
import contextvars
import functools
import math
import operator
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from verifier.sandbox.harness import values
from verifier.service.lru import LRU

SITE_FUNCTION = "__verifier_site__"
_SLOT = object()  # where the recorded value goes among a site's operands
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
            ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
            ast.Is: operator.is_, ast.IsNot: operator.is_not}
_SINGLETONS = (None, True, False)
_STAYS = (ast.For, ast.AsyncFor, ast.While, ast.Try, ast.TryStar, ast.Lambda)
_DYNAMIC = frozenset({"globals", "locals", "vars", "eval", "exec", "__import__", "dir"})
_BUILTINS = frozenset(dir(builtins))


class BrokenTests(ValueError):
    """The tests themselves are broken: the dataset's fault, not the solution's."""


@dataclass(frozen=True)
class Site:
    """One assert the worker judges: `holds(value)` is the assert with X's value in place."""

    line: int
    kind: str  # "compare", "isclose", "absdiff" or "truth"
    ops: tuple = ()  # compare: the operators; absdiff: the one comparing with the tolerance
    operands: tuple = ()  # compare: constants and _SLOT; isclose/absdiff: (K, tolerance...);
    #                       truth: (whether the assert negates X,)
    options: tuple = ()  # isclose: (name, value) keyword arguments

    def holds(self, value: Any) -> bool:
        try:
            if self.kind == "compare":
                items = [value if o is _SLOT else o for o in self.operands]
                return all(op(left, right) for op, left, right
                           in zip(self.ops, items, items[1:], strict=False))
            if self.kind == "truth":
                return bool(value) is not self.operands[0]
            if self.kind == "isclose":
                if type(value) not in (int, float) or type(self.operands[0]) not in (int, float):
                    return False  # what math.isclose itself would refuse (or a bool)
                return math.isclose(value, self.operands[0], **dict(self.options))
            return bool(self.ops[0](abs(value - self.operands[0]), self.operands[1]))
        except Exception:  # an operation the value does not support: the assert fails
            return False


@dataclass(frozen=True)
class Call:
    """Site i of tests that are only calls: the solution's function and its arguments."""

    function: str
    args: tuple
    kwargs: dict

    def wire(self) -> list:
        """As the harness's `calls` payload lists it (pyharness.py): the arguments as they
        are, which marshal carries as themselves (a plan holds only `plain` ones), so the run
        gets them from C code, with nothing of Python's to copy from the warm interpreter."""
        return [self.function, self.args, self.kwargs]


_PLAIN_SCALARS = frozenset({type(None), bool, int, float, complex, str, bytes})


def plain(value: object, depth: int = 0) -> bool:
    """Whether `value` is built only of exact builtin scalars, lists, tuples, sets, frozensets
    and dicts, nested no deeper than values.py allows: what marshal rebuilds as equal objects
    of the same types."""
    kind = type(value)
    if kind in _PLAIN_SCALARS:
        return True
    if depth >= values.MAX_DEPTH:
        return False
    if kind is dict:
        return all(plain(key, depth + 1) and plain(item, depth + 1)
                   for key, item in value.items())
    return kind in (list, tuple, set, frozenset) and all(plain(item, depth + 1)
                                                          for item in value)


def one_value_each(sites: list[dict], calls: int) -> bool:
    """Whether a calls run's site records hold exactly one value for each of its `calls`
    calls, in order (the process that made them could write any records)."""
    return [record.get("site") for record in sites] == list(range(calls))


@dataclass(frozen=True)
class AssertPlan:
    """What the jail runs, what the worker judges, and which names the judge needs."""

    source: str
    sites: tuple[Site, ...]
    names: list[str] | None  # None: every name (the tests look names up dynamically)
    attr_bases: list[str]
    calls: tuple[Call, ...] | None = None  # site i is calls[i], if the tests are only calls
    folded: int = 0  # items the worker computed folding constants (see `_fold`)

    @property
    def mode(self) -> str:
        """The harness's mode: `calls` (one process) or `assert` (the tests in the judge)."""
        return "assert" if self.calls is None else "calls"

    @functools.cached_property
    def _wire_calls(self) -> list[list]:  # encoded once per plan, not once per run
        return [call.wire() for call in self.calls or ()]

    def payload(self) -> dict[str, Any]:
        if self.calls is not None:
            return {"calls": self._wire_calls}
        return {"tests": self.source, "names": self.names, "attr_bases": self.attr_bases,
                "site_function": SITE_FUNCTION}

    def complete(self, records: list[dict]) -> bool:
        """Whether the site records hold what the run had to record (`one_value_each` in
        `calls` mode)."""
        return self.calls is None or one_value_each(records, len(self.calls))

    def failed_site(self, records: list[dict]) -> Site | None:
        """The first site whose recorded value breaks its assert, if any."""
        for record in records:
            site = record.get("site")
            if type(site) is not int or not 0 <= site < len(self.sites):
                return Site(line=0, kind="unknown")
            try:
                value = values.decode(record.get("value"))
            except (values.BadWire, RecursionError):
                return self.sites[site]
            if not self.sites[site].holds(value):
                return self.sites[site]
        return None


# Plans of the tests seen lately, by their source: a dataset's tests come back once per sample
# of their problem, and working one out costs about a millisecond.
_PLANS: LRU[str, AssertPlan] = LRU(4096, max_weight=64 << 20,
                                   weigh=lambda found: 2 * len(found.source) + 8 * found.folded)
_PLANS_LOCK = threading.Lock()


# Sources of tests found to parse (by admission, which needs no plan: the worker, another
# process, works one out; a parse costs less than half of one).
_PARSED: LRU[str, int] = LRU(4096, max_weight=64 << 20, weigh=lambda size: 2 * size)


def plan(source: str) -> AssertPlan:
    """Split `source` (trusted tests); raises BrokenTests if it is not Python."""
    with _PLANS_LOCK:
        found = _PLANS.get(source)
    if found is None:
        found = _plan(source)
        with _PLANS_LOCK:
            _PLANS[source] = found
    return found


def check_parses(source: str) -> None:
    """Raises BrokenTests if `source` is not Python, as `plan` would."""
    with _PLANS_LOCK:
        known = source in _PLANS or _PARSED.get(source) is not None
    if not known:
        _parse(source)
        with _PLANS_LOCK:
            _PARSED[source] = len(source)


def _parse(source: str) -> ast.Module:
    try:
        return ast.parse(source, "<tests>")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise BrokenTests(f"the assert tests do not parse: {exc}") from None


def _plan(source: str) -> AssertPlan:
    source = _without_comments(source)
    tree = _parse(source)
    survey = _Survey(tree)
    budget = _FoldBudget()
    token = _FOLD_BUDGET.set(budget)
    try:
        split = sorted(((node, *found) for node, stays in survey.asserts
                        if not stays and (found := _split(node, survey.bound)) is not None),
                       key=lambda entry: (entry[0].lineno, entry[0].col_offset))
        calls = _only_calls(tree, {id(node): computed for node, _, computed in split},
                            survey)
    finally:
        _FOLD_BUDGET.reset(token)
    return AssertPlan(source=_rewrite(source, [(node, computed) for node, _, computed in split]),
                      sites=tuple(site for _, site, _ in split),
                      names=None if survey.dynamic else sorted(survey.names),
                      attr_bases=sorted(survey.attr_bases),
                      calls=calls if calls is None or len(calls) == len(split) else None,
                      folded=budget.spent)


def _only_calls(tree: ast.Module, computed: dict[int, ast.expr],
                survey: _Survey) -> tuple[Call, ...] | None:
    """The tests as the calls their judged asserts make, in the order they run, if the tests
    are nothing else: HumanEval's shape (one `def check(candidate)` of such asserts, called once,
    last, with the solution's function; or MultiPL-E's, through `def test_check(): check(f)`
    called last) or MBPP's (such asserts at module level). Besides them only names bound to
    constants, imports, docstrings and always-true asserts; else None."""
    bound = survey.bound
    *setup, last = tree.body or [ast.Pass()]
    wrapper = _wrapper(setup, last)
    if wrapper is not None:
        if any(wrapper.name in _binds(node) for node in setup):
            return None
        setup, last = [node for node in setup if node is not wrapper], wrapper.body[0]
    checks = [node for node in setup if isinstance(node, ast.FunctionDef)]
    if (len(checks) == 1 and isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)
            and _plain_call(last.value, checks[0].name, 1)):
        check, target = checks[0], last.value.args[0].id
        arguments = check.args
        others = [node for node in setup if node is not check]
        if (check.decorator_list or check.returns or len(arguments.args) != 1
                or arguments.args[0].annotation or arguments.defaults or arguments.posonlyargs
                or arguments.vararg or arguments.kwonlyargs or arguments.kwarg
                or bound.get(target) or not all(map(_inert, others))
                or any(check.name in _binds(node) for node in others)):
            return None
        return _calls(check.body, computed, arguments.args[0].arg, target)
    names = set(survey.called)
    if len(names) != 1 or bound.get(target := names.pop()):
        return None
    return _calls(tree.body, computed, target, target)


def _wrapper(setup: list[ast.stmt], last: ast.stmt) -> ast.FunctionDef | None:
    """MultiPL-E's `def test_check(): check(f)`, defined once and called last with nothing:
    a function of no parameters whose one statement is a call."""
    if not (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)
            and isinstance(last.value.func, ast.Name)
            and _plain_call(last.value, last.value.func.id, 0)):
        return None
    found = [node for node in setup if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef
                                                  | ast.ClassDef)
             and node.name == last.value.func.id]
    if len(found) != 1 or not isinstance(found[0], ast.FunctionDef):
        return None
    wrapper, arguments = found[0], found[0].args
    if (wrapper.decorator_list or wrapper.returns or arguments.args or arguments.posonlyargs
            or arguments.vararg or arguments.kwonlyargs or arguments.kwarg
            or len(wrapper.body) != 1 or not isinstance(wrapper.body[0], ast.Expr)
            or not isinstance(wrapper.body[0].value, ast.Call)):
        return None
    return wrapper


def _calls(body: list[ast.stmt], computed: dict[int, ast.expr], name: str,
           function: str) -> tuple[Call, ...] | None:
    """`body`'s judged asserts as calls of `function` (called `name` there), if it holds
    nothing else but inert statements and every one computes `name(constants...)`."""
    if function in _BUILTINS:  # the judge's tests would call the real builtin
        return None
    calls = []
    for node in body:
        expression = computed.get(id(node))
        if expression is None:
            if not _inert(node) or {name, function} & _binds(node):
                return None
            continue
        if not isinstance(expression, ast.Call) or not _plain_call(expression, name):
            return None
        found = [_constant(arg) for arg in expression.args]
        options = [(k.arg, *_constant(k.value)) for k in expression.keywords]
        if not all(known for known, _ in found) or not all(k and known for k, known, _ in options):
            return None
        call = Call(function, tuple(value for _, value in found),
                    {key: value for key, _, value in options})
        if not plain(call.args) or not plain(call.kwargs):  # an Ellipsis, or nested too deep
            return None
        calls.append(call)
    return tuple(calls)


def _plain_call(node: ast.Call, name: str, arity: int | None = None) -> bool:
    """`name(...)` with positional and keyword arguments only (`arity` positional ones, and
    each a bare name, when given)."""
    if not (isinstance(node.func, ast.Name) and node.func.id == name):
        return False
    if any(isinstance(arg, ast.Starred) for arg in node.args) or any(
            k.arg is None for k in node.keywords):
        return False
    return arity is None or (len(node.args) == arity and not node.keywords
                             and all(isinstance(arg, ast.Name) for arg in node.args))


def _inert(node: ast.stmt) -> bool:
    """A statement that cannot change what the calls return: a docstring, `pass`, an import,
    a name bound to a constant, an assert of a true constant."""
    if isinstance(node, ast.Pass | ast.Import | ast.ImportFrom):
        return True
    if isinstance(node, ast.Expr):
        return isinstance(node.value, ast.Constant)
    if isinstance(node, ast.Assign):
        return all(isinstance(t, ast.Name) for t in node.targets) and _constant(node.value)[0]
    if isinstance(node, ast.Assert):
        known, value = _constant(node.test)
        return known and bool(value) and (node.msg is None or _constant(node.msg)[0])
    return False


def _binds(node: ast.stmt) -> set[str]:
    """The names an inert statement binds."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    if isinstance(node, ast.Assign):
        return {target.id for target in node.targets if isinstance(target, ast.Name)}
    return set()


def _without_comments(source: str) -> str:
    """The source with every comment removed (they end their line: nothing else moves)."""
    if "#" not in source:
        return source
    kept, start = [], 0
    for found in _STRING_OR_COMMENT.finditer(source):
        if found.lastgroup == "comment":
            kept.append(source[start:found.start()])
            start = found.end()
    kept.append(source[start:])
    return "".join(kept)


# Python's string literals (whatever their prefix: a backslash never lets the quote end one,
# raw or not) and comments, read from the left: a '#' is a comment's only where no string holds
# it. One regular expression, not `tokenize` (pure Python in 3.11, ten times slower).
_STRING_OR_COMMENT = re.compile(r"""
      (?P<string> ''' (?: [^'\\]+ | \\(?:\r\n|.|\Z) | '(?!'') )*+ (?: ''' | \Z )
                | \"\"\" (?: [^"\\]+ | \\(?:\r\n|.|\Z) | "(?!"") )*+ (?: \"\"\" | \Z )
                | ' (?: [^'\\\r\n]+ | \\(?:\r\n|.|\Z) )*+ '?
                | " (?: [^"\\\r\n]+ | \\(?:\r\n|.|\Z) )*+ "? )
    | (?P<comment> \#[^\r\n]* )""", re.VERBOSE | re.DOTALL)


# A node class's fields that may hold nodes the survey looks at: not a name's context, nor an
# operator (singletons of no interest, as many as the rest of the tree), nor an identifier,
# a constant's value or another field that never holds a node (`name` may: a type alias's).
_NOT_SURVEYED = frozenset({"ctx", "op", "ops", "id", "arg", "attr", "asname", "module", "level",
                           "type_comment", "kind", "conversion", "is_async", "tag"})


@functools.cache
def _child_fields(cls: type) -> tuple[str, ...]:
    if cls is ast.Constant:
        return ()
    return tuple(name for name in cls._fields if name not in _NOT_SURVEYED)


class _Survey:
    """One walk over the tests: their asserts (and which must stay: inside a loop or `try`),
    the names they bind and how, the names they look up, those they use as modules, and those
    they call."""

    def __init__(self, tree: ast.AST) -> None:
        self.asserts: list[tuple[ast.Assert, bool]] = []
        self.bound: dict[str, set[str]] = {}
        self.names: set[str] = set()
        self.attr_bases: set[str] = set()
        self.called: set[str] = set()
        self.dynamic = False  # the tests may look up any name (`globals()`, `import solution`)
        stack: list[tuple[ast.AST, bool]] = [(tree, False)]
        while stack:
            node, inside = stack.pop()
            kind = type(node)
            visit = _VISITS.get(kind)
            if visit is not None:
                visit(self, node, inside)
            inside = inside or kind in _STAYS
            for field in _child_fields(kind):
                child = getattr(node, field, None)
                if isinstance(child, list):
                    stack += [(item, inside) for item in child if isinstance(item, ast.AST)]
                elif isinstance(child, ast.AST):
                    stack.append((child, inside))

    def _bind(self, name: str, how: str = "=") -> None:
        self.bound.setdefault(name, set()).add(how)

    def _name(self, node: ast.Name, inside: bool) -> None:
        if isinstance(node.ctx, ast.Load):
            self.names.add(node.id)
            self.dynamic |= node.id in _DYNAMIC
        else:
            self._bind(node.id)

    def _attribute(self, node: ast.Attribute, inside: bool) -> None:
        if isinstance(node.value, ast.Name):
            self.attr_bases.add(node.value.id)

    def _assert(self, node: ast.Assert, inside: bool) -> None:
        self.asserts.append((node, inside))

    def _call(self, node: ast.Call, inside: bool) -> None:
        if isinstance(node.func, ast.Name):
            self.called.add(node.func.id)

    def _definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
                    inside: bool) -> None:
        self._bind(node.name)

    def _arg(self, node: ast.arg, inside: bool) -> None:
        self._bind(node.arg)

    def _named(self, node: ast.ExceptHandler | ast.MatchAs | ast.MatchStar,
               inside: bool) -> None:
        if node.name:
            self._bind(node.name)

    def _import(self, node: ast.Import, inside: bool) -> None:
        for alias in node.names:
            self.dynamic |= alias.name == "solution"
            self._bind(alias.asname or alias.name.split(".")[0],
                       f"import {alias.name}" if alias.asname is None else "=")

    def _import_from(self, node: ast.ImportFrom, inside: bool) -> None:
        for alias in node.names:
            if node.module == "solution":
                self.dynamic |= alias.name == "*"
                self.names.add(alias.name)
            self._bind(alias.asname or alias.name, "=" if alias.asname else
                       f"from {node.module} import {alias.name}")


# What the survey notes of a node, by its class (the parser makes no subclasses).
_VISITS: dict[type, Callable[[_Survey, Any, bool], None]] = {
    ast.Name: _Survey._name, ast.Attribute: _Survey._attribute, ast.Assert: _Survey._assert,
    ast.Call: _Survey._call, ast.FunctionDef: _Survey._definition,
    ast.AsyncFunctionDef: _Survey._definition, ast.ClassDef: _Survey._definition,
    ast.arg: _Survey._arg, ast.ExceptHandler: _Survey._named, ast.MatchAs: _Survey._named,
    ast.MatchStar: _Survey._named, ast.Import: _Survey._import,
    ast.ImportFrom: _Survey._import_from}


def _constant(node: ast.expr) -> tuple[bool, Any]:
    """Whether `node` is a constant expression, and its value: what the tests would compute."""
    try:
        return True, _fold(node)[0]
    except (_NotConstant, ArithmeticError, TypeError, ValueError, RecursionError, MemoryError):
        return False, None


class _NotConstant(Exception):
    """An expression the worker does not fold: it stays in the tests."""


def _fold(node: ast.expr) -> tuple[Any, int]:
    """A constant expression's value and its weight (the items a wire encoding holds): literals,
    containers of constant expressions, `set()`, and arithmetic on them (`3 * 19`, `2.0 / 3`,
    `'ab' + 'c'`, `'x' * 1000`). What the source does not hold is bounded before it is computed:
    a repetition's result by _MAX_WEIGHT, an integer by _MAX_BITS. Repetition is folded only
    where the copies cannot alias (strings, sequences of immutable scalars): the wire would
    make separate objects of copies the tests share."""
    if isinstance(node, ast.Constant):
        return node.value, _weight(node.value)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        if any(isinstance(element, ast.Starred) for element in node.elts):
            raise _NotConstant
        folded = [_fold(element) for element in node.elts]
        items = [value for value, _ in folded]
        built = tuple(items) if isinstance(node, ast.Tuple) else (
            items if isinstance(node, ast.List) else set(items))
        return built, 1 + sum(weight for _, weight in folded)
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):  # `**mapping`
            raise _NotConstant
        keys = [_fold(key) for key in node.keys]  # type: ignore[arg-type]
        entries = [_fold(value) for value in node.values]
        return ({key: value for (key, _), (value, _) in zip(keys, entries, strict=True)},
                1 + sum(weight for _, weight in keys + entries))
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "set"
            and not node.args and not node.keywords):
        return set(), 1
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        value, _ = _fold(node.operand)
        if not isinstance(node.op, ast.Not) and type(value) not in _NUMBERS:
            raise _NotConstant
        return _UNARY[type(node.op)](value), 1
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        (left, left_weight), (right, right_weight) = _fold(node.left), _fold(node.right)
        weight = _sequence_weight(node.op, left, right, left_weight, right_weight) or 1
        _FOLD_BUDGET.get().charge(weight)
        result = _ARITHMETIC[type(node.op)](left, right)
        if type(result) is int and result.bit_length() > _MAX_BITS:
            raise _NotConstant
        return result, weight
    raise _NotConstant


class _FoldBudget:
    """What one plan's folds may compute in all, in items: a plan is cached, and a request's
    tests could otherwise repeat a bounded fold without end."""

    def __init__(self) -> None:
        self.spent = 0

    def charge(self, weight: int) -> None:
        if self.spent + weight > _MAX_PLAN_WEIGHT:
            raise _NotConstant
        self.spent += weight


_FOLD_BUDGET: contextvars.ContextVar[_FoldBudget] = contextvars.ContextVar("fold_budget")


_NUMBERS = (bool, int, float, complex)
_SCALARS = (*_NUMBERS, str, bytes, type(None))
_SEQUENCES = (str, bytes, tuple, list)
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
          ast.Not: operator.not_}
_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
               ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv,
               ast.Mod: operator.mod, ast.Pow: operator.pow}
_MAX_WEIGHT = 1 << 16  # items (characters of a string, elements of a container) repeated
_MAX_BITS = 1 << 12  # of an integer computed
_MAX_PLAN_WEIGHT = 1 << 20  # items one plan's folds compute in all


def _sequence_weight(op: ast.operator, left: Any, right: Any, left_weight: int,
                     right_weight: int) -> int:
    """The weight of `left op right` if it concatenates or repeats sequences, 0 if it is
    arithmetic on numbers (a power checked against _MAX_BITS first); raise _NotConstant if it
    is neither, or a repetition past _MAX_WEIGHT."""
    if type(left) in _NUMBERS and type(right) in _NUMBERS:
        if (isinstance(op, ast.Pow) and type(left) in (int, bool) and type(right) in (int, bool)
                and right > 0 and abs(left) > 1 and left.bit_length() * right > _MAX_BITS):
            raise _NotConstant
        return 0
    if isinstance(op, ast.Add) and type(left) is type(right) and type(left) in _SEQUENCES:
        return left_weight + right_weight
    if isinstance(op, ast.Mult):
        sequence, weight, times = ((left, left_weight, right) if type(right) in (int, bool)
                                   else (right, right_weight, left))
        unaliased = type(sequence) in (str, bytes) or (
            type(sequence) in (tuple, list) and all(type(item) in _SCALARS for item in sequence))
        if type(times) in (int, bool) and unaliased and max(times, 0) * weight <= _MAX_WEIGHT:
            return max(times, 0) * weight
    raise _NotConstant


def _weight(value: Any) -> int:
    return len(value) if type(value) in (str, bytes) else 1


def _split(node: ast.Assert, bound: dict[str, set[str]]) -> tuple[Site, ast.expr] | None:
    """The site and the computed expression X of a judgeable assert, else None."""
    test, line = node.test, node.lineno
    if isinstance(test, ast.Compare) and (absdiff := _split_absdiff(test, line, bound)):
        return absdiff
    if isinstance(test, ast.Compare):
        operands = [test.left, *test.comparators]
        found = [_constant(o) for o in operands]
        computed = [i for i, (is_constant, _) in enumerate(found) if not is_constant]
        if len(computed) != 1 or not all(type(op) in _COMPARE for op in test.ops):
            return None
        if any(isinstance(op, ast.In | ast.NotIn) and i + 1 == computed[0]
               for i, op in enumerate(test.ops)):
            return None  # `K in X`: X may be an iterator the comparison would consume
        if any(isinstance(op, ast.Is | ast.IsNot) for op in test.ops) and not all(
                any(v is s for s in _SINGLETONS) for i, (_, v) in enumerate(found)
                if i != computed[0]):
            return None  # identity with anything but a singleton is not portable
        constants = tuple(_SLOT if i == computed[0] else v for i, (_, v) in enumerate(found))
        return Site(line, "compare", tuple(_COMPARE[type(op)] for op in test.ops),
                    constants), operands[computed[0]]
    if isinstance(test, ast.Call) and _is_isclose(test.func, bound) and len(test.args) == 2:
        found = [_constant(a) for a in test.args]
        options = [(k.arg, _constant(k.value)) for k in test.keywords]
        if (sum(not c for c, _ in found) != 1 or any(k is None or not c for k, (c, _) in options)
                or any(k not in ("rel_tol", "abs_tol") for k, _ in options)):
            return None
        index = 0 if not found[0][0] else 1
        return Site(line, "isclose", (), (found[1 - index][1],),
                    tuple((k, v) for k, (_, v) in options)), test.args[index]
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    truth = test.operand if negated else test
    if isinstance(truth, ast.Call) and isinstance(truth.func, ast.Name) \
            and not _constant(truth)[0]:
        return Site(line, "truth", operands=(negated,)), truth
    return None


def _split_absdiff(test: ast.Compare, line: int,
                   bound: dict[str, set[str]]) -> tuple[Site, ast.expr] | None:
    """`abs(X - K) < T` (or <=, K - X, or T > abs(...)), where the tests never rebind abs."""
    if "abs" in bound or len(test.ops) != 1:
        return None
    op, left, right = type(test.ops[0]), test.left, test.comparators[0]
    if op in (ast.Gt, ast.GtE):
        op, left, right = {ast.Gt: ast.Lt, ast.GtE: ast.LtE}[op], right, left
    if op not in (ast.Lt, ast.LtE) or not (
            isinstance(left, ast.Call) and isinstance(left.func, ast.Name)
            and left.func.id == "abs" and len(left.args) == 1 and not left.keywords
            and isinstance(left.args[0], ast.BinOp) and isinstance(left.args[0].op, ast.Sub)):
        return None
    difference = left.args[0]
    (tolerance_known, tolerance), (first_known, first), (second_known, second) = (
        _constant(right), _constant(difference.left), _constant(difference.right))
    if not tolerance_known or first_known == second_known:
        return None
    computed = difference.right if first_known else difference.left
    constant = first if first_known else second
    return Site(line, "absdiff", (_COMPARE[op],), (constant, tolerance)), computed


def _is_isclose(func: ast.expr, bound: dict[str, set[str]]) -> bool:
    """`math.isclose` or `isclose`, where the tests bind those names only by importing them."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return (func.attr == "isclose" and func.value.id == "math"
                and bound.get("math", set()) <= {"import math"})
    if isinstance(func, ast.Name) and func.id == "isclose":
        return bound.get("isclose", set()) == {"from math import isclose"}
    return False


def _rewrite(source: str, edits: list[tuple[ast.Assert, ast.expr]]) -> str:
    """Replace each judged assert by the call recording X, keeping every line where it was."""
    data = source.encode()
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(line: int, col: int) -> int:
        return starts[line - 1] + col

    for site, (node, computed) in reversed(list(enumerate(edits))):  # in source order
        begin, end = offset(node.lineno, node.col_offset), offset(node.end_lineno,
                                                                   node.end_col_offset)
        inner = data[offset(computed.lineno, computed.col_offset):
                     offset(computed.end_lineno, computed.end_col_offset)]
        padding = b"\n" * (data[begin:end].count(b"\n") - inner.count(b"\n"))
        data = data[:begin] + f"{SITE_FUNCTION}({site}, ".encode() + inner + padding + b")" \
            + data[end:]
    return data.decode()
