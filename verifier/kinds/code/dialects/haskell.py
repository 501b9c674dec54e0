"""Haskell assert tests as calls: MultiPL-E's

    main :: IO ()
    main = do
      let candidate = f
      if candidate ARGS == EXPECTED then pure () else error "assertion failed"
      pure ()

(and a `main` of one such `if`). Recognised in the do block: `let candidate = f`, checks `if
COND then pure () else error "..."` (`return ()` too) where COND is `CALL == K`, `K == CALL`,
`CALL /= K`, `CALL` (a Bool), `not (CALL)`, `abs (CALL - K) < T` (`<=`), and a last
`pure ()`. CALL is a function applied to literal arguments (copied verbatim), K a literal:
numbers, strings, `True`/`False`, lists, tuples, `Just`/`Nothing`, `()`. The literal takes the
type of the call's result, as Haskell types it: an integer literal equals a Double result of
its value, `0.1` against a Float is the Float nearest 0.1 (typed.py).

The program is the solution with our imports (qualified, under names of our own) after its
own, then the driver: a `main` making the calls and recording each value as Haskell shows it,
with the show of its type (haskell_values.py reads them back: a Float's numbers are single
precision). `ExtendedDefaultRules` lets a polymorphic result default as the tests' `==` would
have made it. A result type with no Show does not compile, as it would not have against a
literal; one shown as no literal (a Char, a Ratio, the solution's own) equals nothing. A
solution that may declare an overlapping instance (a `Show [Int]` of its own) is refused, as
is one that turns CPP on and defines or includes macros (they could assemble the pragma); its
pragmas are filtered as in-process tests' are.

In-process tests (anything else) get the Prelude names they use, operators included (and
Control.Monad's and Data.List's), qualified through imports named per program (a solution's
own `error`, `==`, `unless` or hidden Prelude do not reach them) and `RebindableSyntax`
turned off after the solution's pragmas (its `ifThenElse` does not either). A solution's own
result type with a lying `Eq`, or an overlapping `Eq` instance, still does (README).
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
    sites_within_bounds,
)
from verifier.kinds.code.dialects.cursor import applied, depth, is_name, token_at
from verifier.kinds.code.dialects.haskell_values import (
    LiteralParser,
    column,
    literal,
    recorded,
    tokenize,
)
from verifier.kinds.code.dialects.lexer import Token, closing, is_punct, source_of, split_top
from verifier.kinds.code.dialects.typed_equal import typed_holds


def _argument(tokens: list[Token]) -> None:
    """An argument of a call: an atom of literals (`3`, `"a"`, `'c'`, `[1,2]`, `(-1)`,
    `(Just 3)`); raises NotPlainCalls for anything else."""
    parser = LiteralParser(tokens, chars=True)
    parser.atom(0)
    parser.end()


# --------------------------------------------------------------------------- the program

_IMPORTS = """import qualified Prelude as VerifierP
import qualified System.IO as VerifierIO
import qualified Data.Typeable as VerifierTypeable
"""
# The driver's own: a value recorded as the show of its type and its show, JSON strings. A
# type the solution declares (its package is `main`), anywhere in the value's type, is recorded
# as `?`, which equals nothing: its Show is the solution's own, and may show any literal.
_SERIALISER = r"""
verifierCallsOwn :: VerifierTypeable.TypeRep -> VerifierP.Bool
verifierCallsOwn kind = VerifierTypeable.tyConPackage (VerifierTypeable.typeRepTyCon kind)
  VerifierP.== "main"
  VerifierP.|| VerifierP.any verifierCallsOwn (VerifierTypeable.typeRepArgs kind)

verifierCallsText :: VerifierP.String -> VerifierP.ShowS
verifierCallsText text rest = '"' : VerifierP.foldr escape ('"' : rest) text
  where
    escape '"' following = '\\' : '"' : following
    escape '\\' following = '\\' : '\\' : following
    escape c following = c : following

verifierCallsRecord :: (VerifierP.Show a, VerifierTypeable.Typeable a) =>
  VerifierP.Int -> a -> VerifierP.IO ()
verifierCallsRecord site value = do
  let kind = VerifierTypeable.typeOf value
  let text = '[' : VerifierP.shows site (",[\"t\"," VerifierP.++ verifierCallsText
        (if verifierCallsOwn kind then "?" else VerifierP.show kind) (',' : verifierCallsText
        (VerifierP.show value) "]]\n"))
  VerifierP.foldr VerifierP.seq (VerifierP.return ()) text
  channel <- VerifierIO.openFile "/proc/self/fd/3" VerifierIO.AppendMode
  VerifierIO.hPutStr channel text
  VerifierIO.hClose channel
"""
_PRAGMA = "{-# LANGUAGE ExtendedDefaultRules #-}\n"


def split_header(solution: str) -> tuple[str, str, str]:
    """The solution as its file-header pragmas, its module line and imports, and the rest,
    where our imports go; as (pragmas, header, body). Unreadable: all of it is the body."""
    try:
        tokens = tokenize(solution)
    except NotPlainCalls:
        return "", "", solution
    position = 0
    pragmas_end = 0
    if position < len(tokens) and is_name(tokens[position], "module"):
        pragmas_end = tokens[position].start
        while position < len(tokens) and not is_name(tokens[position], "where"):
            position += 1
        position += 1
    elif tokens:
        pragmas_end = tokens[0].start
    while position < len(tokens) and is_name(tokens[position], "import") and column(
            solution, tokens[position]) == 0:
        position += 1
        while position < len(tokens) and not (tokens[position].newline and column(
                solution, tokens[position]) == 0):
            position += 1
    body_start = tokens[position].start if position < len(tokens) else len(solution)
    if not tokens:
        pragmas_end = body_start = len(solution)
    body_start = solution.rfind("\n", 0, body_start) + 1 if body_start else 0
    return (solution[:pragmas_end], solution[pragmas_end:body_start],
            solution[body_start:])


# What lets a solution's instance overlap the Prelude's, which the driver's `show` would then
# take: an overlap pragma on an instance (GHC reads a pragma's name in any case: `{-#
# overlapping #-}`), the extensions that allow it, and Template Haskell (a splice builds an
# overlapping instance without spelling any of these: `fromConstr` of the `Overlap` type).
_OVERLAP_PRAGMA = re.compile(r"\{-#\s*(?:OVERLAPPING|OVERLAPPABLE|OVERLAPS|INCOHERENT)\b", re.I)
_OVERLAP_EXTENSION = re.compile(r"OverlappingInstances|IncoherentInstances|"
                                r"TemplateHaskell(?!Quotes)")
# With CPP on, what GHC reads is the preprocessor's output: a C comment is gone (`OVER/**/
# LAPPING`), a line ending in a backslash joined to the next, and a macro of the solution's can
# assemble a pragma from pieces (`#define CAT(a, b) a/**/b`, then `CAT(OVER,LAPPING)`): with
# CPP on, a solution that defines or includes macros may declare an overlapping instance.
_MACROS = re.compile(r"^[ \t]*#[ \t]*(?:define|include)\b", re.M)
_COMMENT_OR_SPLICE = re.compile(r"/\*|\\\n")
_REFUSED = """import qualified System.IO
import qualified System.Exit
main :: IO ()
main = do
  System.IO.hPutStrLn System.IO.stderr "the solution may declare an overlapping instance: the \\
\\driver's show would be its own, so the tests cannot run"
  System.Exit.exitWith (System.Exit.ExitFailure 1)
"""


class HaskellDialect(Dialect):
    language = "haskell"

    def plan(self, tests: str) -> CallsPlan:
        tokens = tokenize(tests)
        position = 0
        if [t.text for t in tokens[:4]] == ["main", "::", "IO", "("] and is_punct(
                token_at(tokens, 4), ")"):
            position = 5
        if [t.text for t in tokens[position:position + 2]] != ["main", "="]:
            raise NotPlainCalls("no main")
        body = tokens[position + 2:]
        statements = _statements(tests, body[1:]) if is_name(token_at(body, 0), "do") else [body]
        if statements and _unit(statements[-1]):
            statements.pop()
        lines: list[str] = []
        sites: list[Site] = []
        aliases: set[str] = set()
        for statement in statements:
            if is_name(statement[0], "let"):
                lines.append(_alias(tests, statement, aliases))
                continue
            site = self._site(tests, statement, aliases)
            call = " ".join(site.call.split("\n"))
            lines.append(f"verifierCallsRecord {len(sites)} ({call})")
            sites.append(site)
        driver = "\n".join([_SERIALISER, "main :: VerifierP.IO ()", "main = do",
                            *(f"  {line}" for line in lines), "  VerifierP.return ()", ""])
        return CallsPlan(sites_within_bounds(sites), driver)

    def program(self, solution: str, plan: CallsPlan) -> str:
        """The solution, our imports and the driver; the program that says why instead where
        the solution may declare an overlapping instance: an `instance {-# OVERLAPPING #-}
        Show [Int]` of its own would be what the driver shows a value with. The solution's
        pragmas are those of in-process tests (`harden`): OPTIONS that run nothing (a `-F
        -pgmF sh` preprocessor rewrote the driver's `show`), no rewrite rules (a `RULES` of
        `VerifierP.show` did), no RebindableSyntax. (With CPP on, a solution that defines or
        includes macros is refused: none of its macros reaches our imports or the driver.)"""
        pragmas, header, body = split_header(solution)
        pragmas = _kept_options(pragmas)
        if _may_overlap(solution, cpp=bool(_CPP.search(pragmas))):
            return _REFUSED
        return (f"{_PRAGMA}{pragmas}{_AFTER_PRAGMAS}{header}{_IMPORTS}"
                f"{_implicit_prelude(pragmas, header)}{body}\n{plan.driver}")

    def _site(self, tests: str, statement: list[Token], aliases: set[str]) -> Site:
        """`if COND then pure () else error "..."`."""
        line = statement[0].line
        if not is_name(statement[0], "if"):
            raise NotPlainCalls(f"line {line}: a statement that is not a check")
        then = next((i for i, t in enumerate(statement) if is_name(t, "then")), None)
        otherwise = next((i for i, t in enumerate(statement) if is_name(t, "else")), None)
        if then is None or otherwise is None or not _unit(statement[then + 1:otherwise]):
            raise NotPlainCalls(f"line {line}: an if that is not a check")
        failure = [t for t in statement[otherwise + 1:] if not is_punct(t, "(", ")", "$")]
        if len(failure) != 2 or not is_name(failure[0], "error") or failure[1].kind != "string":
            raise NotPlainCalls(f"line {line}: a check that does not fail with error")
        condition = _unwrapped(statement[1:then])
        if is_name(token_at(condition, 0), "not"):
            return Site(line, self._call(tests, condition[1:], aliases),
                        Check("truth", negated=True))
        operators = [i for i, t in enumerate(condition) if t.kind == "punct" and
                     t.text not in ("(", ")", "[", "]", ",") and depth(condition, i) == 0
                     and not (t.text == "-" and _operator(token_at(condition, i - 1)))]
        if not operators:
            return Site(line, self._call(tests, condition, aliases), Check("truth"))
        if len(operators) > 1 and not is_name(condition[0], "abs"):
            raise NotPlainCalls(f"line {line}: a condition with several operators")
        at = operators[-1]
        operator = condition[at].text
        left, right = condition[:at], condition[at + 1:]
        if operator in ("==", "/="):
            for call_side, literal_side in ((left, right), (right, left)):
                try:
                    expected = literal(literal_side)
                except NotPlainCalls:
                    continue
                return Site(line, self._call(tests, call_side, aliases),
                            Check("equal", expected, negated=operator == "/="))
            raise NotPlainCalls(f"line {line}: no literal to compare with")
        if operator in ("<", "<="):
            return self._close(tests, left, right, operator == "<", aliases, line)
        raise NotPlainCalls(f"line {line}: a comparison with {operator!r}")

    def _close(self, tests: str, left: list[Token], right: list[Token], strict: bool,
               aliases: set[str], line: int) -> Site:
        """`abs (CALL - K) < T`."""
        tolerance = literal(right)
        if (type(tolerance) not in (int, float) or len(left) < 4 or not is_name(left[0], "abs")
                or not is_punct(left[1], "(") or closing(left, 1) != len(left) - 1):
            raise NotPlainCalls(f"line {line}: a comparison that is not a tolerance")
        difference = left[2:-1]
        minus = [i for i, t in enumerate(difference) if is_punct(t, "-") and i
                 and depth(difference, i) == 0]
        if len(minus) != 1:
            raise NotPlainCalls(f"line {line}: abs of something else than CALL - K")
        expected = literal(difference[minus[0] + 1:])
        if type(expected) not in (int, float):
            raise NotPlainCalls(f"line {line}: a difference with something else")
        return Site(line, self._call(tests, difference[:minus[0]], aliases),
                    Check("close", expected, tolerance=float(tolerance), strict=strict))

    @staticmethod
    def _call(tests: str, tokens: list[Token], aliases: set[str]) -> str:
        """The source of `f ARG...`, each argument an atom of literals."""
        tokens = _unwrapped(tokens)
        if not tokens or not is_name(tokens[0]) or tokens[0].text[0].isupper() or tokens[
                0].text in ("if", "then", "else", "let", "in", "do", "case", "of", "where",
                            "error", "not"):
            raise NotPlainCalls("not a call")
        applied(tokens, aliases, _argument)
        return source_of(tests, tokens)

    def holds(self, check: Check, value: Any) -> bool:
        return typed_holds(check, recorded(value), integers_are_polymorphic=True)

    # ------------------------------------------------------------------- in-process

    def harden(self, solution: str, tests: str, tag: str) -> str | None:
        """The appended program with the tests' Prelude names qualified through an import of
        our own named after `tag`, RebindableSyntax off (see the module doc)."""
        try:
            tokens = tokenize(tests)
        except NotPlainCalls:
            return None
        alias = f"VerifierPrelude{tag.upper()}"
        own = _bound(tests, tokens)
        rewritten, last = [], 0
        signatures = _in_signatures(tokens)
        for index, token in enumerate(tokens):
            if token.text in own or token.text not in PRELUDE or is_punct(
                    token_at(tokens, index - 1), "::") or signatures[index] or (
                    token.text == "-" and _operator(token_at(tokens, index - 1))):
                continue
            if token.kind != "name" and (token.kind != "punct" or token.text in _SYNTAX):
                continue
            rewritten += [tests[last:token.start], f"{alias}.{token.text}"]
            last = token.end
        rewritten.append(tests[last:])
        pragmas, header, body = split_header(solution)
        pragmas = _kept_options(pragmas)
        imports = "".join(f"import qualified {module} as {alias}\n"
                          for module in ("Prelude", "Control.Monad", "Data.List"))
        tests_text, ours = "".join(rewritten), _EPILOGUE.replace("P.", f"{alias}.")
        after = _AFTER_PRAGMAS
        if _CPP.search(pragmas):  # its macros would reach the tests: undefined before them
            after += "{-# LANGUAGE CPP #-}\n"
            tests_text = "".join(f"#undef {name}\n" for name in sorted(set(
                _MACRO_NAME.findall(f"{tests_text} {ours} verifierMain")))) + tests_text
        program = appended.assemble(
            self.language, f"{pragmas}{after}{header}{imports}"
                           f"{_implicit_prelude(pragmas, header)}{body}", tests_text)
        epilogue = appended.APPENDED[self.language].epilogue
        return program.replace(epilogue, ours)


# A file-header OPTIONS pragma, and the flags of one kept: extensions, warnings, optimisation,
# -f flags. The others can run programs of the solution's while it compiles: `-F -pgmF sh`
# runs a preprocessor that rewrites the whole file, the tests in it; `-pgmL`, `-optc`, plugins.
_OPTIONS = re.compile(r"\{-#\s*OPTIONS(?:_GHC)?\b(.*?)#-\}", re.I | re.S)
_SAFE_FLAG = re.compile(r"-(?:X\w+|W[\w-]*|O\d?|f(?!plugin)[\w-]+)")


# A solution that turns CPP on (a LANGUAGE pragma, -XCPP) can `#define error const (pure ())`
# and so rewrite the tests: every name in them is undefined before them.
_CPP = re.compile(r"(?<!No)CPP\b")
_MACRO_NAME = re.compile(r"(?<![\w'])[A-Za-z_]\w*(?![\w'])", re.A)


def _may_overlap(solution: str, cpp: bool) -> bool:
    """Whether an instance of the solution's may overlap the Prelude's (see _OVERLAP_PRAGMA),
    as written or as CPP would make it. Only its pragmas can (a comment or a string that
    names one is none), where GHC reads the text as written: with CPP on, only where the
    solution has nothing CPP changes (a directive, a C comment, a line splice)."""
    preprocessed = _preprocessed(solution)
    if cpp and _MACROS.search(preprocessed):
        return True
    texts = (solution, preprocessed) if cpp and _RESHAPED.search(solution) else (
        _pragmas(solution),)
    return any(_OVERLAP_PRAGMA.search(text) or _OVERLAP_EXTENSION.search(text) for text in texts)


# What CPP changes in a solution: a directive (an `#if` can take out the start of a comment
# and so make code of what follows), a C comment, a line ending in a backslash.
_RESHAPED = re.compile(r"^[ \t]*#|/\*|\\\n", re.M)


def _pragmas(solution: str) -> str:
    """The solution's pragmas (`{-# ... #-}` where GHC reads code: not in a comment or a
    string), one a line; all of the solution where it cannot be read so, or where it may turn
    QuasiQuotes on (a quasi-quote's text is neither code nor comment: `[q|{-|]` opens none)."""
    try:
        tokens = tokenize(solution, comments=True)
    except NotPlainCalls:
        return solution
    pragmas = "\n".join(token.text for token in tokens
                        if token.kind == "comment" and token.text.startswith("{-#"))
    return solution if "QuasiQuotes" in pragmas else pragmas


def _preprocessed(solution: str) -> str:
    """`solution` without its C comments (a `/*` to the first `*/` after it) and its line
    splices (a backslash before a line break), left to right, in linear time: a regex of the
    two scans to the end from each `/*` none closes (200 kB of `/* ` was quadratic), and
    after such a `/*` none is closed."""
    pieces, position = [], 0
    while found := _COMMENT_OR_SPLICE.search(solution, position):
        pieces.append(solution[position:found.start()])
        position = found.end()
        if found.group() == "/*":
            end = solution.find("*/", position)
            if end < 0:  # no comment is closed from here on: the splices alone go
                return "".join([*pieces, solution[found.start():].replace("\\\n", "")])
            position = end + 2
    return "".join([*pieces, solution[position:]])


def _kept_options(pragmas: str) -> str:
    """The pragmas with each OPTIONS pragma's flags those that run nothing (_safe_options),
    in linear time: _OPTIONS scans to the end from each pragma none closes, so the text after
    the last `#-}` is left as it is (no pragma ends there)."""
    end = pragmas.rfind("#-}")
    if end < 0:
        return pragmas
    return _OPTIONS.sub(_safe_options, pragmas[:end + 3]) + pragmas[end + 3:]


def _safe_options(found: re.Match[str]) -> str:
    """An OPTIONS pragma of the solution with only flags that run nothing (see _OPTIONS)."""
    kept = [flag for flag in found.group(1).split() if _SAFE_FLAG.fullmatch(flag)]
    return "{-# OPTIONS_GHC " + " ".join(kept) + " #-}" if kept else ""


# After the solution's pragmas, so that they override its own: no RebindableSyntax (its
# `ifThenElse`), and no rewrite rules (its `{-# RULES "x" forall v k w. f v k == w = True #-}`
# would rewrite the tests' comparisons; -O1 enables them).
_AFTER_PRAGMAS = ("{-# LANGUAGE NoRebindableSyntax #-}\n"
                  "{-# OPTIONS_GHC -fno-enable-rewrite-rules #-}\n")


def _implicit_prelude(pragmas: str, header: str) -> str:
    """`import Prelude`, where the solution had the Prelude imported implicitly (it imports
    none itself, and does not ask for none): our qualified import of it would stop that."""
    if "NoImplicitPrelude" in pragmas or re.search(r"^import\s+(?:qualified\s+)?Prelude\b",
                                                   header, re.M):
        return ""
    return "import Prelude\n"


def _statements(tests: str, tokens: list[Token]) -> list[list[Token]]:
    """The statements of a do block laid out by indentation: each starts at the column of
    the first; a token further right continues it; none may be further left."""
    if not tokens:
        return []
    indent = column(tests, tokens[0])
    statements: list[list[Token]] = []
    for token in tokens:
        where = column(tests, token)
        if token.newline and where < indent:
            raise NotPlainCalls(f"line {token.line}: something after main")
        if token.newline and where == indent or not statements:
            statements.append([])
        statements[-1].append(token)
    return statements


def _unit(tokens: list[Token]) -> bool:
    """`pure ()` or `return ()`."""
    return [t.text for t in tokens] in (["pure", "(", ")"], ["return", "(", ")"])


def _alias(tests: str, statement: list[Token], aliases: set[str]) -> str:
    """`let candidate = f`."""
    if (len(statement) != 4 or not is_name(statement[1]) or not is_punct(statement[2], "=")
            or not is_name(statement[3]) or statement[1].text in aliases):
        raise NotPlainCalls(f"line {statement[0].line}: a let that is not an alias")
    aliases.add(statement[1].text)
    return source_of(tests, statement)


def _operator(token: Token | None) -> bool:
    """Whether a `-` after this token is a negation: after an operator, a bracket, nothing."""
    return token is None or token.kind == "punct" and token.text not in (")", "]")


def _unwrapped(tokens: list[Token]) -> list[Token]:
    while (len(tokens) >= 2 and is_punct(tokens[0], "(") and closing(tokens, 0) == len(tokens) - 1
           and len(split_top(tokens[1:-1], ",")) == 1):
        tokens = tokens[1:-1]
    return tokens


def _in_signatures(tokens: list[Token]) -> list[bool]:
    """Whether each token is in a type signature (`main :: IO ()`: after a `::` on its line):
    types stay as written. One pass (a walk back to the line's start from each token was
    quadratic in a line of tokens)."""
    found, seen = [], False
    for token in tokens:
        found.append(seen and not token.newline)
        seen = (seen and not token.newline) or is_punct(token, "::")
    return found


def _bound(tests: str, tokens: list[Token]) -> set[str]:
    """Names the tests bind themselves (a definition's or a let's left side, a lambda's or a
    bind's variables): their uses are the tests' own, never qualified."""
    bound: set[str] = set()
    statement: list[Token] = []
    for token in [*tokens, None]:
        if token is None or token.newline or is_punct(token, ";"):
            for index, part in enumerate(statement):
                if is_punct(part, "=", "<-", "->") and part.text != "->" or is_punct(part, "|"):
                    bound |= {t.text for t in statement[:index] if t.kind == "name"}
                    break
            statement = []
            if token is None:
                break
        if token is not None:
            statement.append(token)
    # Names between a lambda's `\` and the next `->`, in one pass (a walk from each `\` to the
    # next `->` was quadratic in tests of lambdas without arrows).
    in_lambda = False
    for token in tokens:
        if in_lambda and token.kind == "name":
            bound.add(token.text)
        in_lambda = is_punct(token, "\\") or in_lambda and not is_punct(token, "->")
    return bound - {"let", "where", "in", "do", "if", "then", "else", "case", "of"}


# The appended epilogue with the Prelude qualified: a solution's own `>>` must not skip the tests.
_EPILOGUE = ("\nmain :: P.IO ()\nmain = verifierMain P.>> P.readFile \"/proc/self/fd/4\" P.>>= "
             "P.appendFile \"/proc/self/fd/3\"\n")
# Syntax that looks like an operator but is not one the Prelude exports.
_SYNTAX = {"=", "::", "->", "<-", "|", "\\", "@", "~", "=>", ".."}
# The Prelude's exports (GHC 9), values, constructors and operators, and the Control.Monad and
# Data.List names tests use: what in-process tests may take from them, qualified.
_PRELUDE_NAMES = """
abs acos acosh all and any appendFile asTypeOf asin asinh atan atan2 atanh break ceiling
compare concat concatMap const cos cosh curry cycle decodeFloat div divMod drop dropWhile
either elem encodeFloat enumFrom enumFromThen enumFromThenTo enumFromTo error errorWithoutStackTrace
even exp exponent fail filter flip floatDigits floatRadix floatRange floor fmap foldMap foldl
foldl1 foldr foldr1 fromEnum fromInteger fromIntegral fromRational fst gcd getChar getContents
getLine head id init interact ioError isDenormalized isIEEE isInfinite isNaN isNegativeZero
iterate last lcm length lex lines log logBase lookup map mapM mapM_ mappend max maxBound
maximum maybe mconcat mempty min minBound minimum mod negate not notElem null odd or otherwise
pi pred print product properFraction pure putChar putStr putStrLn quot quotRem read readFile
readIO readList readLn readParen reads readsPrec realToFrac recip rem repeat replicate return
reverse round scaleFloat scanl scanl1 scanr scanr1 seq sequence sequenceA sequence_ show
showChar showList showParen showString shows showsPrec significand signum sin sinh snd span
splitAt sqrt subtract succ sum tail take takeWhile tan tanh toEnum toInteger toRational
traverse truncate uncurry undefined unlines until unwords unzip unzip3 userError words
writeFile zip zip3 zipWith zipWith3 True False Just Nothing Left Right LT EQ GT
== /= < <= > >= + - * / ^ ^^ ** && || . $ $! ++ !! <$> <$ <*> *> <* >>= >> =<< <>
forM forM_ when unless replicateM replicateM_ foldM foldM_ zipWithM zipWithM_ void guard
sort sortBy sortOn nub nubBy group groupBy isPrefixOf isSuffixOf isInfixOf intercalate
intersperse transpose partition foldl' insert delete union intersect subsequences permutations
"""
PRELUDE = frozenset(_PRELUDE_NAMES.split())
