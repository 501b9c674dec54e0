"""Bash assert tests as calls: MultiPL-E's harness, line by line.

    }                                    (MultiPL-E's tests close the prompt's function first)
    candidate() {                        the wrapper: the driver calls through one of its own
        f "$@"
    }
    set -e
    run_test() {                         test functions, called by name
        [[ $(candidate "1 2" "3") = "EXPECTED" ]]      (also ==, !=, "$(...)")
    }
    run_test

Everything in bash is a string: `[[ $(CALL) = "K" ]]` compares what the call printed, less its
trailing newlines (a command substitution's), with the quoted literal, byte for byte. A check
that fails fails the test even where the tests forgot `set -e` (bash would carry on).
Arguments and expected values are quoted strings without expansions ("..." without `$` or
backquotes, '...') or plain words without glob characters; the driver copies the arguments and
records what each call printed as its bytes (in bash itself; through `od` when long),
in variables of its own names (not a readonly `value` or `index` of the solution's), with a
function read while the solution's aliases are not expanded (they are again for the calls).
"""

from __future__ import annotations

import re
import shutil
from typing import Any

from verifier.kinds.code import appended
from verifier.kinds.code.dialects.core import (
    CallsPlan,
    Check,
    NotPlainCalls,
    Site,
    drawn_name,
    sites_within_bounds,
)
from verifier.kinds.code.dialects.scripts import ScriptDialect, utf8

_WORD = r"""(?:"(?:[^"\\$`]|\\.)*"|'[^']*'|[A-Za-z0-9_.,:/+@%=^-]+)"""
_CALL = rf"(?P<callee>[A-Za-z_][A-Za-z0-9_]*)(?P<arguments>(?:[ \t]+{_WORD})*)"
_CHECK = re.compile(rf"""[ \t]*\[\[[ \t]+(?P<quote>"?)\$\({_CALL}[ \t]*\)(?P=quote)[ \t]+
                         (?P<operator>==?|!=)[ \t]+(?P<expected>{_WORD})[ \t]+\]\][ \t]*;?[ \t]*
                         (?:\#.*)?""",
                     re.X)
_FUNCTION = re.compile(r"[ \t]*(?:function[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)[ \t]*"
                       r"(?:\(\)[ \t]*)?\{[ \t]*(?P<inline>.*?)[ \t]*")
_FORWARD = re.compile(r"[ \t]*(?P<target>[A-Za-z_][A-Za-z0-9_]*)[ \t]+\"\$@\"[ \t]*;?[ \t]*")
_NAME = re.compile(r"[ \t]*(?P<name>[A-Za-z_][A-Za-z0-9_]*)[ \t]*;?[ \t]*")
_SKIPPED = re.compile(r"[ \t]*(?:#.*|set[ \t]+-e[ \t]*(?:#.*)?)?")
_DOUBLE_QUOTED_ESCAPE = re.compile(r"\\([\\\"`$\n])")

# Bash expands aliases as it reads a command: the driver's own function is read with
# expand_aliases off (its first word quoted, so no alias of the solution's stands for it), then
# the solution's setting (kept first, from BASHOPTS: posix mode changes it) is back for the
# wrappers and the calls, which the tests would have read with it. Its printf is the builtin,
# whatever function a solution names so; and `builtin` and `command` are: first, in posix mode
# (where the special builtin `unset` comes before any function, and an alias never before a
# reserved word), their functions of the solution's are unset, the run ending (`${NAME:?}` of
# names drawn per program) where the shell stays out of posix mode (a readonly
# POSIXLY_CORRECT) or they cannot be (readonly functions).
_DRIVER_GUARD = r"""__verifier_aliases=${BASHOPTS/*expand_aliases*/y}
__verifier_aliases=${__verifier_aliases#"$BASHOPTS"}
POSIXLY_CORRECT=y
OFF=${SHELLOPTS##*posix*}
\: "${OFF:+${NEVER:?the solution keeps bash out of posix mode}}"
\unset -f builtin command || \: "${NEVER:?the builtin or command of the solution stays its own}"
\unset POSIXLY_CORRECT
"""
_DRIVER_HEAD = r"""
GUARD\builtin shopt -u expand_aliases
__verifier_record() {
    local LC_ALL=C __verifier_text=$2 __verifier_hex= __verifier_byte __verifier_at
    if (( ${#__verifier_text} > 512 )); then
        __verifier_hex=$(builtin printf '%s' "$__verifier_text" | command od -An -v -tx1 \
            | command tr -d ' \n')
    else
        for (( __verifier_at = 0; __verifier_at < ${#__verifier_text}; __verifier_at++ )); do
            builtin printf -v __verifier_byte '%d' "'${__verifier_text:__verifier_at:1}"
            builtin printf -v __verifier_byte '%02x' $(( __verifier_byte & 255 ))
            __verifier_hex+=$__verifier_byte
        done
    fi
    builtin printf '[%s,["b","%s"]]\n' "$1" "$__verifier_hex" >&3
}
[[ -z $__verifier_aliases ]] || builtin shopt -s expand_aliases
"""


# Bash's builtins: re-enabled before in-process tests (a solution may have disabled `set`).
_BUILTINS = (". : [ alias bg bind break builtin caller cd command compgen complete compopt "
             "continue declare dirs disown echo enable eval exec exit export false fc fg getopts "
             "hash help history jobs kill let local logout mapfile popd printf pushd pwd read "
             "readarray readonly return set shift shopt source suspend test times trap true type "
             "typeset ulimit umask unalias unset wait")
_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DEFINED = re.compile(r"^[ \t]*(?:function[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(\)", re.M)
# Between the solution and in-process tests. POSIX mode first (an assignment: no function or
# alias reaches it), so the special builtins (unset, set, trap, exit) come before any function;
# then no function of the tests' names, no alias, no case-blind matching, every builtin enabled,
# no trap. A step that cannot be taken (a readonly function, a disabled builtin) ends the run.
_GUARD = """
POSIXLY_CORRECT=y
\\unset -f {names} || {stop}
\\shopt -u expand_aliases nocasematch || {stop}
[[ -o posix ]] || {stop}
\\enable {builtins} || {stop}
\\trap - EXIT ERR DEBUG RETURN || {stop}
"""
_STOP = '{ "/usr/bin/kill" -9 $$; exit 97; }'


class BashDialect(ScriptDialect):
    language = "bash"

    def program(self, solution: str, plan: CallsPlan) -> str:
        """The solution and the driver, led by its guard (_DRIVER_GUARD)."""
        name = drawn_name(solution, plan.driver)
        guard = _DRIVER_GUARD.replace("OFF", f"{name}_off").replace("NEVER", f"{name}_never")
        return f"{solution}\n{plan.driver.replace('GUARD', guard, 1)}"

    def plan(self, tests: str) -> CallsPlan:
        frame = _Frame(tests.split("\n"))
        frame.read()
        return CallsPlan(sites_within_bounds(frame.sites), frame.driver())

    def judge(self, check: Check, value: Any) -> bool:
        if check.kind == "equal":
            return (value == check.expected) != check.negated
        return False

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        """The appended program with a guard before the tests: no function or alias stands
        for a builtin, a command of the system or a function of the tests' own (the solution's
        functions the tests call stay)."""
        words = set(_WORDS.findall(tests))
        names = sorted({word for word in words if shutil.which(word, path="/usr/bin:/bin")}
                       | set(_DEFINED.findall(tests)) | set(_BUILTINS.split())
                       | {"command_not_found_handle"})
        guard = _GUARD.format(names=" ".join(f"'{name}'" for name in names), stop=_STOP,
                              builtins=_BUILTINS)
        return appended.assemble(self.language, solution, guard + tests)


class _Frame:
    """The tests' lines: the leading `}`, wrappers, `set -e`, test functions and their runs,
    checks; the driver's lines in the order the tests would run them."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.sites: list[Site] = []
        self.wrappers: dict[str, str] = {}  # the tests' wrapper -> its target
        self.functions: dict[str, list[str]] = {}
        self.order: list[str] = []
        self.closes_prompt = False

    def read(self) -> None:
        number, significant = 0, 0
        while number < len(self.lines):
            text = self.lines[number]
            number += 1
            if _SKIPPED.fullmatch(text):
                continue
            significant += 1
            if text.strip() == "}" and significant == 1:
                self.closes_prompt = True
            elif (function := _FUNCTION.fullmatch(text)) is not None:
                number = self._function(function, number)
            elif (run := _NAME.fullmatch(text)) is not None and run["name"] in self.functions:
                self.order += self.functions[run["name"]]
            else:
                self.order.append(self._check(text, number))

    def _function(self, found: re.Match[str], number: int) -> int:
        """A wrapper (`candidate() { f "$@"; }`) or a test function of checks: where it ends."""
        name, inline = found["name"], found["inline"]
        body: list[tuple[str, int]] = []
        if inline:
            if not inline.endswith("}"):
                raise NotPlainCalls(f"line {number}: a function of more than a line")
            body.append((inline[:-1], number))
        else:
            while number < len(self.lines) and self.lines[number].strip() != "}":
                body.append((self.lines[number], number + 1))
                number += 1
            if number >= len(self.lines):
                raise NotPlainCalls("a function without its end")
            number += 1
        if name in self.wrappers or name in self.functions:
            raise NotPlainCalls(f"line {number}: {name!r} defined twice")
        statements = [(text, line) for text, line in body if not _SKIPPED.fullmatch(text)]
        forward = _FORWARD.fullmatch(statements[0][0]) if len(statements) == 1 else None
        if forward is not None:
            if forward["target"] in self.wrappers or forward["target"] in self.functions:
                raise NotPlainCalls("a wrapper of the tests' own function")
            self.wrappers[name] = forward["target"]
        else:
            self.functions[name] = [self._check(text, line) for text, line in statements]
        return number

    def _check(self, text: str, line: int) -> str:
        found = _CHECK.fullmatch(text)
        if found is None:
            raise NotPlainCalls(f"line {line}: a line that is not plain calls")
        callee = found["callee"]
        if callee in self.functions:
            raise NotPlainCalls(f"line {line}: a call of the tests' own {callee!r}")
        expected = _unquoted(found["expected"])
        call = f"{callee}{found['arguments']}"
        site = len(self.sites)
        self.sites.append(Site(line, call, Check("equal", expected,
                                                 negated=found["operator"] == "!=")))
        return f"{{SITE {site}}}"

    def driver(self) -> str:
        lines = ["}"] if self.closes_prompt else []
        lines.append(_DRIVER_HEAD)
        for name, target in self.wrappers.items():
            lines.append(f'__verifier_call_{name}() {{\n    {target} "$@"\n}}')
        seen = 0
        for step in self.order:
            site = int(step[6:-1])
            if site != seen:
                raise NotPlainCalls("checks run out of order or more than once")
            seen += 1
            call = self.sites[site].call
            callee = call.split()[0]
            if callee in self.wrappers:
                call = f"__verifier_call_{callee}{call[len(callee):]}"
            lines.append(f"__verifier_value=$({call}) || \\:")
            lines.append(f'\\__verifier_record {site} "$__verifier_value"')
        if seen != len(self.sites):
            raise NotPlainCalls("checks the tests never run")
        return "\n".join([*lines, ""])


def _unquoted(word: str) -> bytes:
    """A word's bytes after quote removal (no expansion is left in it)."""
    if word.startswith("'"):
        return utf8(word[1:-1])
    if word.startswith('"'):
        return utf8(_DOUBLE_QUOTED_ESCAPE.sub(
            lambda found: "" if found[1] == "\n" else found[1], word[1:-1]))
    if re.search(r"[*?\[\\]", word):
        raise NotPlainCalls("a pattern, not a literal")
    return utf8(word)
