"""Lua assert tests as calls: MultiPL-E's luaunit harness and plain `assert`s.

    lu = require('luaunit')              the frame: luaunit (the driver needs none of it),
    function test_humaneval()            test functions, run by `lu.LuaUnit.run()` (global
    local candidate = f                  ones named test*, in name order) or called by name
        lu.assertEquals(candidate(ARGS), EXPECTED)      (and assertTrue/False/Nil)
    end
    os.exit(lu.LuaUnit.run())
    assert(f(ARGS) == K)  assert(f(ARGS) ~= K)  assert(f(ARGS))  assert(not f(ARGS))

Expected values are Lua literals (tables of literals, strings with Lua's escapes, `None` as
MultiPL-E writes Python's None: an unset global, nil). luaunit's assertEquals compares tables
deeply (keys and values, whatever the order) and anything else with `==` (an integer equals
the same float); a table compared with `==` is a new table, equal to nothing, so such a check
is not plain calls. The driver writes a table as a map of its raw pairs, a string as its bytes,
through a serialiser made before the solution runs (a prelude on the solution's first line) from
the standard library as it was: a solution reassigning `type` or patching `string.format`, the
string metatable or file methods changes nothing of the records. Before the solution runs, the
debug library loses what reaches into other functions' state (hooks, locals, upvalues, the
registry): a hook of the solution's could set the serialiser's value, or the argument of an
in-process test's `assert`, to the right one.
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
    drawn_name,
)
from verifier.kinds.code.dialects.lexer import (
    Token,
    closing,
    is_punct,
    source_of,
    split_top,
    token_at,
    unwrapped,
)
from verifier.kinds.code.dialects.scanner import Escape, bytes_of, resolve, simple
from verifier.kinds.code.dialects.scripts import (
    Frame,
    Reader,
    ScriptDialect,
    Step,
    lexer,
    literal,
    texts,
    top_level,
    utf8,
)
from verifier.kinds.code.dialects.values import Map

_SHORT_STRING = r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'"
_LONG_BRACKET = r"\[(?P<{0}>=*)\[.*?\](?P={0})\]"  # `[==[ ... ]==]`: a long string or comment
_OTHERS = [
    ("number", r"0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
               r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"),
    ("name", r"[A-Za-z_][A-Za-z0-9_]*"),
    ("punct", r"\.\.\.|\.\.|==|~=|<=|>=|//|::|<<|>>|[-+*/%^\#&~|<>=(){}\[\];:,.]"),
]
# A long bracket no closer follows is read as if there were none (a line comment, a `[`): its
# pattern scanned to the end of the text from each such opener.
_tokenize = lexer(
    [("comment", rf"--{_LONG_BRACKET.format('ceq')}|--[^\n]*"),
     ("string", f"{_SHORT_STRING}|{_LONG_BRACKET.format('seq')}"), *_OTHERS],
    closed=(re.compile(r"(?:--)?\[(=*)\["), lambda opened: f"]{opened.group(1)}]"),
    unclosed=[("comment", r"--[^\n]*"), ("string", _SHORT_STRING), *_OTHERS])
_KEYWORDS = frozenset({"and", "break", "do", "else", "elseif", "end", "false", "for", "function",
                       "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return",
                       "then", "true", "until", "while"})
_STANDARD = frozenset({"assert", "collectgarbage", "dofile", "error", "getmetatable", "ipairs",
                       "load", "loadfile", "next", "pairs", "pcall", "print", "rawequal",
                       "rawget", "rawlen", "rawset", "require", "select", "setmetatable",
                       "tonumber", "tostring", "type", "xpcall", "coroutine", "debug", "io",
                       "math", "os", "string", "table", "utf8"})
_INT_MIN, _INT_RANGE = -(1 << 63), 1 << 64
# The debug library's functions that reach into other functions' state, or give every number,
# nil or boolean a metatable, taken away by the preludes before the solution runs (its
# `traceback`, `getinfo` and `getmetatable` stay): a wrong solution's `debug.sethook` set the
# value the serialiser was writing to the right one.
_DEBUG_TAKEN = ("for _, name in next, {'sethook', 'gethook', 'getlocal', 'setlocal', "
                "'getupvalue', 'setupvalue', 'upvalueid', 'upvaluejoin', 'getregistry', "
                "'getuservalue', 'setuservalue', 'setmetatable'} do debug[name] = nil end")
_EQUALITY = {"assertEquals": False, "assert_equals": False, "assertNotEquals": True,
             "assert_not_equals": True}
_CONSTANT = {"assertTrue": True, "assert_true": True, "assertFalse": False,
             "assert_false": False, "assertNil": None, "assert_nil": None}


# The serialiser, made before the solution runs (the prelude, on the solution's first line so
# its lines keep their numbers): the channel and every function it uses are its upvalues, taken
# from the standard library as it was, so a solution reassigning `type`, patching
# `string.format` or the string metatable, does not reach them. The prelude's one local has a
# name drawn per program (an HMAC of its text, as `harden`'s names are), which the solution
# cannot know, so it can neither reassign it nor shadow it; the driver's head binds it.
_SERIALISER = r"""local RECORD = (function()
  local out = io.open('/proc/self/fd/3', 'wb')
  local write, flush = out.write, out.flush
  local type, next, format, byte = type, next, string.format, string.byte
  local find, rep, concat, mtype = string.find, string.rep, table.concat, math.type
  local huge, budget = math.huge, 0
  local function put(value, depth, parts)
    budget = budget - 1
    local kind = type(value)
    if kind == 'nil' then parts[#parts + 1] = 'null'
    elseif kind == 'boolean' then parts[#parts + 1] = value and 'true' or 'false'
    elseif mtype(value) == 'integer' then parts[#parts + 1] = format('%d', value)
    elseif kind == 'number' then
      if value ~= value then parts[#parts + 1] = '["f","nan"]'
      elseif value == huge then parts[#parts + 1] = '["f","inf"]'
      elseif value == -huge then parts[#parts + 1] = '["f","-inf"]'
      else
        local text = format('%.17g', value)
        if not find(text, '[.e]') then text = text .. '.0' end
        parts[#parts + 1] = text
      end
    elseif kind == 'string' then
      local hex, length = {}, #value
      for first = 1, length, 4096 do
        local last = first + 4095
        if last > length then last = length end
        hex[#hex + 1] = format(rep('%02x', last - first + 1), byte(value, first, last))
      end
      parts[#parts + 1] = '["b","' .. concat(hex) .. '"]'
    elseif kind == 'table' and depth < 100 and budget > 0 then
      parts[#parts + 1] = '["m"'
      for key, item in next, value do
        parts[#parts + 1] = ','
        put(key, depth + 1, parts)
        parts[#parts + 1] = ','
        put(item, depth + 1, parts)
      end
      parts[#parts + 1] = ']'
    else
      parts[#parts + 1] = '["x","' .. kind .. '"]'
    end
  end
  DEBUG_TAKEN
  return function(site, value)
    budget = 1000000
    local parts = {'[', format('%d', site), ','}
    put(value, 0, parts)
    parts[#parts + 1] = ']\n'
    write(out, concat(parts))
    flush(out)
  end
end)(); """
_SERIALISER_LINE = " ".join(line.strip() for line in _SERIALISER.replace(
    "DEBUG_TAKEN", _DEBUG_TAKEN).split("\n")) + " "
# The driver's first line, which `program` gives the prelude's name.
_DRIVER_HEAD = "local __verifier_record = __verifier_serialiser\n"


# In-process tests: the prelude (on the solution's first line, so its lines keep their numbers)
# keeps the standard library as it was, tables copied, and the strings' metatable; the guard
# (before the tests), through the kept functions only, binds each global name the tests use to
# the kept one as a local, makes `require` find modules where the system keeps them again (not a
# luaunit the solution planted, preloaded, wrote in ./ or served from a metatable of
# package.loaded) and gives strings their metatable and methods back (a solution's
# `string.format` would otherwise be what the tests' `('%d'):format(x)` calls), its own added
# methods still reachable.
_PRELUDE = ("local {saved} = (function() local saved, next, type = {{}}, next, type "
            "for name, value in next, _G do if type(value) == 'table' and name ~= '_G' then "
            "local copy = {{}} for k, v in next, value do copy[k] = v end saved[name] = copy "
            "else saved[name] = value end end "
            "saved[1], saved[2], saved[3] = package, package.loaded, package.preload "
            "saved[4], saved[5] = package.path, package.cpath "
            "saved[6], saved[7] = {{table.unpack(package.searchers)}}, {{}} "
            "for k, v in next, getmetatable('') do saved[7][k] = v end "
            + _DEBUG_TAKEN.replace("{", "{{").replace("}", "}}") + " return saved end)(); ")
_GUARD = """
do
  local saved = {saved}
  local package, loaded, preload, strings = saved[1], saved[2], saved[3], saved[7]
  local next, rawset, setmetatable = saved.next, saved.rawset, saved.setmetatable
  local gsub = saved.string.gsub
  setmetatable(package, nil)
  setmetatable(loaded, nil)
  setmetatable(preload, nil)
  rawset(loaded, 'luaunit', nil)
  rawset(preload, 'luaunit', nil)
  rawset(package, 'loaded', loaded)
  rawset(package, 'preload', preload)
  rawset(package, 'path', (gsub(saved[4], '%./[^;]*;?', '')))
  rawset(package, 'cpath', (gsub(saved[5], '%./[^;]*;?', '')))
  rawset(package, 'searchers', {{saved.table.unpack(saved[6])}})
  local meta, methods = saved.debug.getmetatable(''), {{}}
  for name in next, meta do rawset(meta, name, nil) end
  for name, value in next, strings do rawset(meta, name, value) end
  for name, value in next, saved.string do methods[name] = value end
  rawset(meta, '__index', setmetatable(methods, {{__index = strings.__index}}))
end
"""


class _Literal(Reader):
    """A Lua literal: nil, booleans, numbers (a unary minus), strings, table constructors."""

    def value(self) -> Any:
        token = self.next()
        if token.kind == "name" and token.text in ("nil", "None"):
            return None
        if token.kind == "name" and token.text in ("true", "false"):
            return token.text == "true"
        if token.kind == "number":
            return _number(token.text)
        if token.kind == "string":
            return _string(token.text)
        if is_punct(token, "-") and self.peek() is not None and self.peek().kind == "number":
            return _negated(_number(self.next().text))
        if is_punct(token, "{"):
            return self._table()
        raise NotPlainCalls(f"line {token.line}: not a literal")

    def _table(self) -> Map:
        self.nested()
        entries: dict[Any, tuple[Any, Any]] = {}
        index = 0
        while not self.at("}"):
            if self.peek() is None:
                raise NotPlainCalls("a table without its end")
            if self.at("["):
                self.next()
                key = self.value()
                self.expect("]")
                self.expect("=")
            elif (self.peek().kind == "name" and self.peek().text not in _KEYWORDS
                  and self.at_next("=")):
                key = utf8(self.next().text)
                self.next()
            else:
                index += 1
                key = index
            item = self.value()
            if key is None or (type(key) is float and math.isnan(key)):
                raise NotPlainCalls("a table key that is nil or NaN")
            stored = _key(key)
            if item is None:
                entries.pop(stored, None)
            else:
                entries[stored] = (key if type(key) is not float or not key.is_integer()
                                   else int(key), item)
            if not self.at("}"):
                self.separator(",", ";")
        self.next()
        self.depth -= 1
        return Map(tuple(entries.values()))


class LuaDialect(ScriptDialect):
    language = "lua"

    def plan(self, tests: str) -> CallsPlan:
        return _Frame(tests, _tokenize(tests)).plan(_DRIVER_HEAD)

    def program(self, solution: str, plan: CallsPlan) -> str:
        """The serialiser made first (on the solution's first line, or its second after a
        `#` line the interpreter skips; after a byte order mark), the solution, the driver."""
        name = drawn_name(solution, plan.driver)
        prelude = _SERIALISER_LINE.replace("RECORD", name, 1)
        driver = f"local __verifier_record = {name}\n{plan.driver[len(_DRIVER_HEAD):]}"
        bom = "\ufeff" if solution.startswith("\ufeff") else ""  # skipped, as the `#` line
        first, _, rest = solution[len(bom):].partition("\n")
        if first.startswith("#"):
            return f"{bom}{first}\n{prelude}{rest}\n{driver}"
        return f"{bom}{prelude}{solution[len(bom):]}\n{driver}"

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        """The appended program, the tests' global names (assert, error, os, string,
        require...) the standard library's as it was before the solution ran."""
        try:
            names = sorted({t.text for t in _tokenize(tests) if t.kind == "name"}
                           - _KEYWORDS & _STANDARD)
        except NotPlainCalls:
            return None
        saved = f"__verifier_{tag}"
        bound = (f"local {', '.join(names)} = {', '.join(f'{saved}.{n}' for n in names)}\n"
                 if names else "")
        guard = _GUARD.format(saved=saved) + bound
        return appended.assemble(self.language, _PRELUDE.format(saved=saved) + solution,
                                 guard + tests)

    def judge(self, check: Check, value: Any) -> bool:
        if check.kind == "truth":
            return (value is not None and value is not False) != check.negated
        if check.kind == "equal":
            return equal(value, check.expected, deep=check.how != "==") != check.negated
        return False


class _Frame(Frame):
    """The tests' statements: the frame (luaunit, test functions, their runs), aliases and
    checks."""

    record = "__verifier_record({site}, {call})"
    reader = _Literal
    closing = ("end",)

    def __init__(self, tests: str, tokens: list[Token]) -> None:
        super().__init__(tests)
        self.tokens = tokens
        self.opening.append("do")
        self.luaunit: set[str] = set()
        self.globals: set[str] = set()  # test functions luaunit's runner finds

    def read(self) -> None:
        position = 0
        while position < len(self.tokens):
            position = self._top(position)

    def _top(self, position: int) -> int:
        tokens = self.tokens
        if is_punct(tokens[position], ";"):
            return position + 1
        local = tokens[position].text == "local"
        start = position + 1 if local else position
        if texts(tokens[start:start + 1]) == ["function"]:
            return self._function(start + 1, is_global=not local)
        if (after := self._require(start)) is not None:
            return after
        if (after := self._run(position)) is not None:
            return after
        return self._statement(position, self.order)

    def _require(self, position: int) -> int | None:
        """`lu = require('luaunit')` (or `require "luaunit"`)."""
        tokens = self.tokens
        words = texts(tokens[position:position + 3])
        if len(words) < 3 or tokens[position].kind != "name" or words[1:] != ["=", "require"]:
            return None
        at = position + 3
        parenthesised = is_punct(token_at(tokens, at), "(")
        module = token_at(tokens, at + 1 if parenthesised else at)
        if module is None or module.kind != "string" or _string(module.text) != b"luaunit":
            raise NotPlainCalls("a module of the tests")
        if parenthesised and not is_punct(token_at(tokens, at + 2), ")"):
            raise NotPlainCalls("a require of more than a name")
        self.luaunit.add(tokens[position].text)
        self.taken.add(tokens[position].text)
        return at + 3 if parenthesised else at + 1

    def _run(self, position: int) -> int | None:
        """`os.exit(lu.LuaUnit.run())`, `lu.LuaUnit.run()`, or a test function called."""
        words = texts(self.tokens[position:position + 12])
        runner = [".", "LuaUnit", ".", "run", "(", ")"]
        if words[:4] == ["os", ".", "exit", "("] and words[4:5] and words[4] in self.luaunit and (
                words[5:11] == runner and words[11:12] == [")"]):
            self._run_all()
            return position + 12
        if words[:1] and words[0] in self.luaunit and words[1:7] == runner:
            self._run_all()
            return position + 7
        if words[:1] and words[0] in self.functions and words[1:3] == ["(", ")"]:
            self.run(words[0])
            return position + 3
        return None

    def _run_all(self) -> None:
        for name in sorted(self.globals):
            if name[:4].lower() == "test":
                self.run(name)

    def _function(self, position: int, is_global: bool) -> int:
        tokens = self.tokens
        name = token_at(tokens, position)
        if (name is None or name.kind != "name" or name.text in _KEYWORDS
                or texts(tokens[position + 1:position + 3]) != ["(", ")"]):
            raise NotPlainCalls("a function of the tests that takes arguments")
        body: list[Step] = ["do"]
        position += 3
        while not (position < len(tokens) and tokens[position].kind == "name"
                   and tokens[position].text == "end"):
            if position >= len(tokens):
                raise NotPlainCalls("a function without its end")
            if is_punct(tokens[position], ";"):
                position += 1
                continue
            position = self._statement(position, body)
        body.append("end")
        self.define(name.text, body)
        if is_global:
            self.globals.add(name.text)
        return position + 1

    def _statement(self, position: int, into: list[Step]) -> int:
        """An alias (`local candidate = f`) or a check, appended to `into`."""
        tokens = self.tokens
        words = texts(tokens[position:position + 5])
        if (words[:1] == ["local"] and len(words) >= 4 and words[2] == "="
                and tokens[position + 1].kind == "name" and tokens[position + 3].kind == "name"
                and words[1] not in _KEYWORDS and words[3] not in _KEYWORDS
                and words[3] not in self.taken
                and not (len(words) > 4 and (is_punct(tokens[position + 4], ".", ":", "(", "[")
                                             or tokens[position + 4].kind == "string"))):
            into.append(source_of(self.tests, tokens[position:position + 4]))
            return position + 4
        head = tokens[position]
        if head.kind == "name" and head.text == "assert" and is_punct(
                token_at(tokens, position + 1), "("):
            end = closing(tokens, position + 1)
            self._assert(tokens[position + 2:end], head.line, into)
            return end + 1
        if (head.text in self.luaunit and is_punct(token_at(tokens, position + 1), ".")
                and is_punct(token_at(tokens, position + 3), "(")):
            end = closing(tokens, position + 3)
            self._luaunit(tokens[position + 2].text, tokens[position + 4:end], head.line, into)
            return end + 1
        raise NotPlainCalls(f"line {head.line}: a statement that is not plain calls")

    def _assert(self, inside: list[Token], line: int, into: list[Step]) -> None:
        parts = split_top(inside, ",")
        if len(parts) > 2 or not parts[0]:
            raise NotPlainCalls(f"line {line}: an assert of something else")
        condition = unwrapped(parts[0])
        comparisons = top_level(condition, "==", "~=")
        if len(comparisons) > 1:
            raise NotPlainCalls(f"line {line}: several comparisons")
        if comparisons:
            at = comparisons[0]
            call, expected = self.either(condition[:at], condition[at + 1:], line)
            if isinstance(expected, Map):
                raise NotPlainCalls(f"line {line}: a table compared with ==")
            self.site(call, line, Check("equal", expected, negated=condition[at].text == "~=",
                                        how="=="), into)
        elif condition[0].kind == "name" and condition[0].text == "not":
            self.site(self.call(condition[1:], line), line, Check("truth", negated=True), into)
        else:
            self.site(self.call(condition, line), line, Check("truth"), into)

    def _luaunit(self, method: str, inside: list[Token], line: int, into: list[Step]) -> None:
        parts = split_top(inside, ",")
        if method in _EQUALITY and len(parts) in (2, 3):
            call, expected = self.either(parts[0], parts[1], line)
            self.site(call, line, Check("equal", expected, negated=_EQUALITY[method]), into)
        elif method in _CONSTANT and len(parts) in (1, 2):
            self.site(self.call(parts[0], line), line,
                      Check("equal", _CONSTANT[method], how="=="), into)
        else:
            raise NotPlainCalls(f"line {line}: luaunit's {method!r}")

    def call(self, tokens: list[Token], line: int) -> list[Token]:
        """`f(ARGS)`: a name that is not the tests' own, each argument a literal."""
        tokens = unwrapped(tokens)
        if (len(tokens) < 3 or tokens[0].kind != "name" or tokens[0].text in _KEYWORDS
                or tokens[0].text in self.taken or not is_punct(tokens[1], "(")
                or closing(tokens, 1) != len(tokens) - 1):
            raise NotPlainCalls(f"line {line}: not a call of the solution")
        arguments = split_top(tokens[2:-1], ",")
        for argument in arguments if arguments != [[]] else []:
            literal(_Literal, argument)
        return tokens


def _number(text: str) -> int | float:
    lowered = text.lower()
    if lowered.startswith("0x"):
        if "." in lowered or "p" in lowered:
            try:
                return float.fromhex(lowered)
            except (ValueError, OverflowError):
                raise NotPlainCalls(f"a number {text[:20]!r}") from None
        value = int(lowered, 16) % _INT_RANGE  # hexadecimal integers wrap around
        return value - _INT_RANGE if value >= 1 << 63 else value
    if "." in lowered or "e" in lowered:
        return float(lowered)
    value = int(lowered)
    return value if value < 1 << 63 else float(lowered)  # a decimal too large is a float


def _negated(value: int | float) -> int | float:
    if type(value) is int:
        return value if value == _INT_MIN else -value  # wraps, as Lua's integers do
    return -value


def _string(text: str) -> bytes:
    """A Lua string literal's bytes (its escapes decoded)."""
    if text.startswith("["):
        opening = text.index("[", 1) + 1
        body = text[opening:len(text) - opening]
        return utf8(body[1:] if body.startswith("\n") else body)
    return bytes_of(resolve(text[1:-1], _ESCAPES))


def _decimal(found: re.Match[str]) -> bytes:
    if int(found[1]) > 255:
        raise NotPlainCalls("a decimal escape beyond 255")
    return bytes([int(found[1])])


def _code_point(found: re.Match[str]) -> bytes:
    code = int(found[1], 16)
    if code >= 1 << 31:
        raise NotPlainCalls("a code point beyond 2^31")
    return _utf8_extended(code)


_ESCAPES: list[Escape] = [
    simple({"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
            "\\": "\\", '"': '"', "'": "'", "\n": "\n"}),
    (re.compile(r"x([0-9a-fA-F]{2})"), lambda found: bytes([int(found[1], 16)])),
    (re.compile(r"([0-9]{1,3})"), _decimal),
    (re.compile(r"z[ \t\r\n\f\v]*"), lambda found: b""),
    (re.compile(r"u\{([0-9a-fA-F]{1,8})\}"), _code_point),
]


def _utf8_extended(code: int) -> bytes:
    """Lua's `\\u{X}`: UTF-8 as its original definition had it (up to 2^31, surrogates too)."""
    if code < 0x80:
        return bytes([code])
    limits = [(0x800, 2), (0x10000, 3), (0x200000, 4), (0x4000000, 5), (0x80000000, 6)]
    length = next(n for limit, n in limits if code < limit)
    out = []
    for _ in range(length - 1):
        out.append(0x80 | (code & 0x3F))
        code >>= 6
    out.append((0xFF00 >> length) & 0xFF | code)
    return bytes(reversed(out))


def _key(value: Any) -> Any:
    """A table key as Lua stores it: an integral float is the integer; tables by content."""
    if type(value) is float and value.is_integer():
        return ("n", int(value))
    if type(value) in (int, float):
        return ("n", value)
    if isinstance(value, Map):
        return ("t", tuple(sorted((repr(_key(k)), repr(v)) for k, v in value.pairs)))
    return (type(value).__name__, value)


def equal(actual: Any, expected: Any, deep: bool = True) -> bool:
    """luaunit's assertEquals (`deep`: tables by their pairs) or Lua's `==` on the model."""
    if actual is None or expected is None:
        return actual is None and expected is None
    if type(actual) is bool or type(expected) is bool:
        return type(actual) is bool and type(expected) is bool and actual == expected
    if type(actual) in (int, float) and type(expected) in (int, float):
        return actual == expected
    if type(actual) is bytes and type(expected) is bytes:
        return actual == expected
    if deep and isinstance(actual, Map) and isinstance(expected, Map):
        found = {_key(key): value for key, value in actual.pairs}
        if len(found) != len(actual.pairs) or len(found) != len(expected.pairs):
            return False
        return all(_key(key) in found and equal(found[_key(key)], value)
                   for key, value in expected.pairs)
    return False
