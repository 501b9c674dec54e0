"""A Java, Kotlin, Scala or C# solution's code as its compiler reads it: every string, character
literal and comment taken out (a string or a character is `""`, a comment a space or a line end),
so that what a comment or a string says (`// class Math would shadow the JDK's`) declares
nothing, while a declaration that only a less exact reading would take for text (`/* \\u002a/
class Math`) is code (shadowing.py).

Each language as its compiler has it: Java and Scala 2.11 decode `\\u` escapes before anything
else (a `\\` preceded by an odd number of backslashes starts none), so `\\u0022` is a quote and
`\\u000a` ends a `//` comment; Java's text blocks; Kotlin's and Scala's nested comments, raw
strings (ended by the last three quotes of a run: `\"\"\"a\"\"\"\"` is `a"`) and templates
(`"${f("x")}"`, code within a string within code); Scala's interpolated strings, where `\\`
escapes nothing (`raw"\\"` is a backslash), its symbols (`'abc`); C#'s verbatim strings (`""` a
quote, `\\` nothing), interpolated ones (`{{`, holes, a format after a `:`), directives (a
`#warning /*` line is all directive) and `\\u` escapes in names. A template's code is taken
out with its string: what it declares is local to it.

A line comment ends at any line end a compiler may take (a lone `\\r` too). Where this reading
could differ from the compiler's, the answer is None (the caller then reads the solution's
strings and comments as code): Scala's XML (`(<a>"</a>)`), C#'s conditional directives (an
`#if false` section may hold half a comment), an `@$"` string mcs does not have, a string or a
comment left open, anything else out of place. One pass, no recursion: templates within
templates are a stack.
"""

from __future__ import annotations

import re

_LINE_ENDS = "\n\r\x85\u2028\u2029"
_JVM_ESCAPE = re.compile(r"(?<!\\)(\\+)u+([0-9a-fA-F]{4})")  # from a run's start: linear
_CSHARP_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})")
_NAME_CHARACTER = re.compile(r"[\w$]")
_DIRECTIVE = re.compile(r"#[ \t]*(\w*)")
_LINE_REST = re.compile(r"[^\n\r\x85\u2028\u2029]*")
_COMMENT_MARKS = re.compile(r"/\*|\*/")
_CONDITIONAL = frozenset({"if", "elif", "else", "endif"})
# Scala 2.11's keywords: a keyword then a quote (`else"x"`) is no interpolated string.
_SCALA_KEYWORDS = frozenset({
    "abstract", "case", "catch", "class", "def", "do", "else", "extends", "false", "final",
    "finally", "for", "forSome", "if", "implicit", "import", "lazy", "macro", "match", "new",
    "null", "object", "override", "package", "private", "protected", "return", "sealed", "super",
    "this", "throw", "trait", "try", "true", "type", "val", "var", "while", "with", "yield", "_"})


class _Unsure(Exception):
    """The text could be read otherwise than here."""


def java_code(source: str) -> str | None:
    return _read(_Java(_jvm_decoded(source)))


def kotlin_code(source: str) -> str | None:
    return _read(_Kotlin(source))


def scala_code(source: str) -> str | None:
    return _read(_Scala(_jvm_decoded(source)))


def csharp_code(source: str) -> str | None:
    return _read(_CSharp(source))


def _jvm_decoded(source: str) -> str:
    """The source with its unicode escapes decoded, as javac and scalac 2.11 do first."""
    def decoded(found: re.Match[str]) -> str:
        slashes = found.group(1)
        if len(slashes) % 2 == 0:
            return found.group()
        return slashes[:-1] + chr(int(found.group(2), 16))
    return _JVM_ESCAPE.sub(decoded, source)


def _read(reader: _Reader) -> str | None:
    try:
        return reader.run()
    except _Unsure:
        return None


class _Reader:
    """One pass over the text: `out` the code read so far; `stack` the templates open, each a
    string's kind (reading its text) or a hole's count of open brackets (reading code)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0
        self.out: list[str] = []
        self.stack: list[str | int] = []

    # Characters that start nothing: in code (copied as a run), in a template's text (skipped).
    PLAIN = re.compile(r"[^/\"'`\\{}()\[\]:<$@#\n\r\x85\u2028\u2029]+")
    TEXT = re.compile(r"[^\"\\${}\n\r\x85\u2028\u2029]+")

    def run(self) -> str:
        while self.position < len(self.text):
            if self.stack and isinstance(self.stack[-1], str):
                found = self.TEXT.match(self.text, self.position)
                if found:
                    self.position = found.end()
                else:
                    self.template(self.stack[-1])
            elif found := self.PLAIN.match(self.text, self.position):
                self.plain(found.group())
            else:
                self.code()
        if self.stack:
            raise _Unsure("a template left open")
        return "".join(self.out)

    def emit(self, text: str) -> None:
        """Code read, or a literal or comment in its place; none of a hole's, whose
        declarations are local to it."""
        if not self.stack:
            self.out.append(text)

    def at(self, text: str, offset: int = 0) -> bool:
        return self.text.startswith(text, self.position + offset)

    def char(self, offset: int = 0) -> str:
        index = self.position + offset
        return self.text[index] if 0 <= index < len(self.text) else ""

    def plain(self, run: str) -> None:
        self.emit(run)
        self.position += len(run)

    def code(self) -> None:
        """One step of code: a comment, a literal, a bracket that closes a hole, a character."""
        raise NotImplementedError

    def template(self, kind: str) -> None:
        raise _Unsure(kind)

    # ----------------------------------------------------------------- the common pieces

    def comments(self, nested: bool) -> bool:
        """A comment at the position, taken out (a line comment up to its line end)."""
        if self.at("//"):
            self.position = _LINE_REST.match(self.text, self.position).end()
            self.emit(" ")
            return True
        if not self.at("/*"):
            return False
        depth = 0
        for mark in _COMMENT_MARKS.finditer(self.text, self.position):
            if mark.group() == "/*":
                depth += 1 if nested or depth == 0 else 0
            else:
                depth -= 1
                if depth == 0:
                    self.position = mark.end()
                    self.emit(" ")
                    return True
        raise _Unsure("an unterminated comment")

    def quoted(self, quote: str) -> None:
        """A literal on one line from the quote at the position to its closing quote, `\\`
        escaping the character after it."""
        position = self.position + 1
        while self.text[position:position + 1] != quote:
            if position >= len(self.text) or self.text[position] in _LINE_ENDS:
                raise _Unsure("a literal left open")
            position += 2 if self.text[position] == "\\" else 1
        self.position = position + 1
        self.emit('""')

    def opened(self, kind: str, length: int) -> None:
        """A string with templates opened at the position (its quotes `length` long)."""
        self.emit('""')
        self.stack.append(kind)
        self.position += length

    def quotes_run(self) -> None:
        """Past a run of quotes that closes a raw string (its last three close it)."""
        while self.char() == '"':
            self.position += 1

    def bracket(self, opening: str, closing: str) -> bool:
        """In a hole, its brackets counted; the one closing the hole ends it (back to its
        string). At top level, nothing to count."""
        if not self.stack:
            return False
        character = self.char()
        if character in opening:
            self.stack[-1] = int(self.stack[-1]) + 1
        elif character in closing:
            if self.stack[-1] == 0:
                if character != "}":
                    raise _Unsure("a hole closed by another bracket")
                self.stack.pop()
                self.position += 1
                return True
            self.stack[-1] = int(self.stack[-1]) - 1
        return False

    def copy(self) -> None:
        self.emit(self.char())
        self.position += 1

    def backquoted(self) -> None:
        """A backquoted name (Kotlin, Scala), kept as it is: one that holds a backslash or a
        line end may be read otherwise."""
        end = self.text.find("`", self.position + 1)
        name = self.text[self.position:end + 1]
        if end < 0 or "\\" in name or any(mark in name for mark in _LINE_ENDS):
            raise _Unsure("a backquoted name")
        self.emit(name)
        self.position = end + 1


class _Java(_Reader):
    def code(self) -> None:
        if self.comments(nested=False):
            return
        if self.at('"""'):
            position = self.position + 3
            while not self.text.startswith('"""', position):
                if position >= len(self.text):
                    raise _Unsure("a text block left open")
                position += 2 if self.text[position] == "\\" else 1
            self.position = position + 3
            self.emit('""')
        elif self.char() in "\"'":
            self.quoted(self.char())
        else:
            self.copy()


class _Kotlin(_Reader):
    def code(self) -> None:
        if self.comments(nested=True) or self.bracket("{", "}"):
            return
        if self.at('"""'):
            self.opened("raw", 3)
        elif self.char() == '"':
            self.opened("plain", 1)
        elif self.char() == "'":
            self.quoted("'")
        elif self.char() == "`":
            self.backquoted()
        else:
            self.copy()

    ESCAPES = True  # whether `\\` escapes in a one-line string with templates

    def template(self, kind: str) -> None:
        """A step of a string's text ("plain": one line; "raw": `\"\"\"`): its end, a hole
        (`${`), an escape, a character."""
        escape = self.ESCAPES and kind == "plain" and self.char() == "\\"
        if self.at("${"):
            self.stack.append(0)
            self.position += 2
        elif kind == "raw" and self.at('"""'):
            self.stack.pop()
            self.quotes_run()
        elif kind == "plain" and self.char() == '"':
            self.stack.pop()
            self.position += 1
        elif kind == "plain" and (self.char() in _LINE_ENDS or escape and (
                self.char(1) in _LINE_ENDS)):
            raise _Unsure("a string left open")
        else:
            self.position += 2 if escape else 1


class _Scala(_Kotlin):
    """Scala 2.11 (its unicode escapes decoded before): plain strings as Kotlin's less the
    templates, interpolated ones (`s"..."`, `raw"..."`, after a name) with holes and no escapes,
    symbols, and XML where scalac would start it."""

    def code(self) -> None:
        if self.comments(nested=True) or self.bracket("{", "}"):
            return
        interpolated = self.interpolated()
        if self.at('"""'):
            if interpolated:
                self.opened("raw", 3)
            else:
                end = self.text.find('"""', self.position + 3)
                if end < 0:
                    raise _Unsure("a raw string left open")
                self.position = end
                self.quotes_run()
                self.emit('""')
        elif self.char() == '"':
            if interpolated:
                self.opened("plain", 1)
            else:
                self.quoted('"')
        elif self.char() == "'":
            self.quote()
        elif self.char() == "`":
            self.backquoted()
        elif self.char() == "<" and (self.position == 0 or self.char(-1) in " \t\n\r{(>") and (
                self.char(1).isalpha() or self.char(1) in "_!?"):
            raise _Unsure("XML")
        else:
            self.copy()

    def interpolated(self) -> bool:
        """Whether a quote at the position makes an interpolated string (`s"`, `raw"`): it
        follows a name (not a number, a keyword, a symbol's or a backquoted name). Where that is
        unsure (after a character that may end a name of operators, `x_+"`, or one of letters
        this reading may not take for a name's), a string whose two readings would differ (it
        holds a backslash or a `$`) is unsure."""
        if self.char() != '"' or self.position == 0:
            return False
        start = self.position
        while start > 0 and _NAME_CHARACTER.match(self.text[start - 1]):
            start -= 1
        name, before = self.text[start:self.position], self.text[start - 1:start]
        if name and name.isascii() and before not in ("'", "`"):
            return not name[0].isdigit() and name not in _SCALA_KEYWORDS
        if not name and (before.isspace() or before in "([{,;=:"):
            return False
        closing = '"""' if self.at('"""') else '"'
        end = self.text.find(closing, self.position + len(closing))
        if end < 0 or any(mark in self.text[self.position:end] for mark in "\\$"):
            raise _Unsure("a string that may be interpolated")
        return False

    def quote(self) -> None:
        """A character literal (`'x'`, `'\\n'`) or a symbol (`'abc`), as scalac tells them
        apart: a name's start then no quote is a symbol; anything else but a quote or an
        escape must be closed at once."""
        following = self.char(1)
        if following and (following.isalpha() or following in "_$") and self.char(2) != "'":
            end = self.position + 1
            while end < len(self.text) and _NAME_CHARACTER.match(self.text[end]):
                end += 1
            self.position = end
            self.emit('""')
        elif following == "\\" or following not in ("'", "") and self.char(2) == "'":
            self.quoted("'")
        else:
            raise _Unsure("a quote")

    ESCAPES = False

    def template(self, kind: str) -> None:
        """As Kotlin's, less escapes, with `$$` (a dollar) and no other `$` but a name's."""
        if self.at("$$"):
            self.position += 2
        elif self.char() == "$" and not (self.char(1).isalpha() or self.char(1) in "_{"):
            raise _Unsure("a $ of an interpolated string")
        else:
            super().template(kind)


class _CSharp(_Reader):
    """C# as mcs (C# 7) reads it."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.line_start = True  # only blanks since the last line end, in code

    def code(self) -> None:
        character = self.char()
        if character == "#":
            self.directive()
            return
        if character in _LINE_ENDS:
            self.line_start = True
            self.copy()
            return
        if not character.isspace():
            self.line_start = False
        if self.comments(nested=False):
            return
        if self.stack and self.stack[-1] == 0 and character == ":":
            self.format_clause()
            return
        if self.bracket("([{", ")]}"):
            return
        if self.at('$@"'):
            self.opened("verbatim interpolated", 3)
        elif self.at('$"'):
            self.opened("interpolated", 2)
        elif self.at('@$'):
            raise _Unsure("an @$ string")
        elif self.at('@"'):
            self.verbatim()
        elif character in "\"'":
            self.quoted(character)
        elif character == "\\":
            found = _CSHARP_ESCAPE.match(self.text, self.position)
            if found is None:
                raise _Unsure("a backslash in code")
            self.emit(chr(int(found.group(1) or found.group(2), 16)))
            self.position = found.end()
        else:
            self.copy()

    def plain(self, run: str) -> None:
        if not run.isspace():
            self.line_start = False
        super().plain(run)

    def directive(self) -> None:
        """A `#` line: all directive (its text is no comment, no string); a conditional one
        may take out text that would change the reading of what follows."""
        found = _DIRECTIVE.match(self.text, self.position)
        if not self.line_start or self.stack or found is None or found.group(1) in _CONDITIONAL:
            raise _Unsure("a directive")
        while self.position < len(self.text) and self.char() not in _LINE_ENDS:
            self.position += 1

    def verbatim(self) -> None:
        position = self.position + 2
        while True:
            if position >= len(self.text):
                raise _Unsure("a verbatim string left open")
            if self.text.startswith('""', position):
                position += 2
            elif self.text[position] == '"':
                break
            else:
                position += 1
        self.position = position + 1
        self.emit('""')

    def format_clause(self) -> None:
        """A hole's format (`{x:N2}`), up to the `}` that closes the hole."""
        end = self.position
        while end < len(self.text) and self.text[end] != "}":
            if self.text[end] in "\"'{" or self.text[end] in _LINE_ENDS:
                raise _Unsure("a format clause")
            end += 1
        if end >= len(self.text):
            raise _Unsure("a hole left open")
        self.stack.pop()
        self.position = end + 1

    def template(self, kind: str) -> None:
        verbatim = kind == "verbatim interpolated"
        if self.at("{{") or self.at("}}") or verbatim and self.at('""'):
            self.position += 2
        elif self.char() == "{":
            self.stack.append(0)
            self.position += 1
        elif self.char() == "}":
            raise _Unsure("a lone } in an interpolated string")
        elif self.char() == '"':
            self.stack.pop()
            self.position += 1
        elif not verbatim and self.char() in _LINE_ENDS:
            raise _Unsure("a string left open")
        else:
            self.position += 2 if not verbatim and self.char() == "\\" else 1

