"""The language registry: one entry per language (file name, compile and run commands).

Adding a language is one `Language(...)` in `LANGUAGES` plus a test (and, for the jail, its
toolchain's directories in verifier/sandbox/toolchains.py). Commands name toolchain executables
as `{tool}`; the sandbox backend says where each tool is inside its jail.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from verifier.sandbox.backend import JAIL_HARNESS, JAIL_PYTHON_FLAGS

MIB = 1024 * 1024
NAME_MAX = 255  # bytes in a file name (Linux)


@dataclass(frozen=True)
class BuildCache:
    """A compiler cache that a build of the verifier's own `source` fills once per jail, and
    that every build whose code holds `wanted_by` starts from (a copy of it, at `path` in its
    work directory): what that build would otherwise compile anew each time. The program's
    build cannot change it: it gets a copy, and only its artefacts are kept."""

    wanted_by: str
    source_name: str
    source: str
    path: str


@dataclass(frozen=True)
class Language:
    """How to build and run one language in the jail.

    `memory` says how the memory limit is enforced: "address_space" sets RLIMIT_AS (C, C++,
    Rust, Python, bash); "heap" passes the runtime's own heap flag and only bounds the data
    segment loosely, because JVM, V8, Mono, GHC's RTS and Racket reserve far more address space
    than they use. `env` values may name the run's `{memory_mb}` (GOMEMLIMIT, Mono's heap).
    """

    name: str
    tools: tuple[str, ...]
    source_name: Callable[[str], str]
    run: Callable[[dict[str, str], str, int, str], list[str]]  # tools, source, memory MiB, code
    compile: Callable[[dict[str, str], str], list[str]] | None = None  # (tools, source name)
    artefacts: tuple[str, ...] = ()
    memory: str = "address_space"
    startup_cpu_s: float = 0.0  # CPU the runtime itself needs before the program starts
    aliases: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    # What a judge adds to the code to make it this language's program (Racket's `#lang`).
    program: Callable[[str], str] = lambda code: code
    build_cache: BuildCache | None = None


def _fixed(name: str) -> Callable[[str], str]:
    return lambda _code: name


_CLASS = re.compile(r"class\s+(\w+)")
_CLASS_WORD = re.compile(r"\bclass\b")
_BRACE = re.compile(r"\{")


def class_declaring(code: str, method: re.Pattern[str]) -> str | None:
    """The first class (`class Name`) whose body declares `method` before the next word
    `class`, or None: what the regex `\\bclass\\s+(\\w+)[^{]*\\{(?:(?!\\bclass\\b).)*?METHOD`
    finds, in time linear in the code (that regex scans to the end for each class: minutes
    for 200 kB of `class A `, in the worker, before any deadline)."""
    braces = [found.start() for found in _BRACE.finditer(code)]
    words = [found.start() for found in _CLASS_WORD.finditer(code)]
    methods = [found.start() for found in method.finditer(code)]
    for word in words:
        declared = _CLASS.match(code, word)
        if declared is None:
            continue
        at = bisect.bisect_left(braces, declared.end())
        if at == len(braces):
            return None  # no class after this one has a body either
        body = braces[at]
        after = bisect.bisect_right(words, body)
        ends = words[after] if after < len(words) else len(code)
        first = bisect.bisect_right(methods, body)
        if first < len(methods) and methods[first] < ends:
            return declared.group(1)
    return None


_JAVA_TYPES = frozenset({"class", "interface", "enum", "record"})
_JAVA_MODIFIERS = frozenset({"public", "final", "abstract", "strictfp", "sealed", "non"})


def java_source_name(code: str) -> str:
    """javac wants a public top-level class (or interface, enum, record) in a file of its
    name; otherwise Main.java will do (also for a name no file can have: javac then says what
    it wants, a compile error). A public class nested in another (`public class Node` inside
    Solution), or the words in a comment or a string, name no file."""
    words = list(_jvm_words(code))
    depth = 0
    for index, word in enumerate(words):
        depth += (word == "{") - (word == "}")
        if depth or word not in _JAVA_TYPES or index + 1 == len(words) or not (
                words[index + 1][0].isalpha() or words[index + 1][0] in "_$"):
            continue
        start = index
        while start and words[start - 1] in _JAVA_MODIFIERS:
            start -= 1
        if "public" in words[start:index]:
            name = f"{words[index + 1]}.java"
            return name if len(name.encode()) <= NAME_MAX else "Main.java"
    return "Main.java"


# Java's and Scala's words and braces, comments and literals skipped (they may hold `class`
# or braces): what a regex of comments, literals (`"(?:[^"\\\n]|\\.)*"`, the same with `'`),
# words and marks finds, each literal read by _jvm_words.
_JVM_WORDS = re.compile(r"""//[^\n]*|/\*.*?(?:\*/|\Z)|(?P<quote>["'])|(?P<word>[\w$]+)"""
                        r"|(?P<mark>[{}().;*])", re.S)
_LITERAL_BODY = {'"': re.compile(r'"(?:[^"\\\n]|\\.)*', re.S),
                 "'": re.compile(r"'(?:[^'\\\n]|\\.)*", re.S)}


def _jvm_words(code: str) -> Iterator[str]:
    """The words and marks of `code`, in order, comments and literals skipped. A quote no
    closing quote follows on its line is skipped alone; so is every quote of its kind before
    where that scan stopped, unscanned (each is escaped in it, and a scan from it reads what
    follows as that scan did: scanning from each made 200 kB of `"\\` quadratic)."""
    unclosed = {'"': -1, "'": -1}  # where the last scan of each kind found no closing quote
    position = 0
    while found := _JVM_WORDS.search(code, position):
        position = found.end()
        if found.lastgroup in ("word", "mark"):
            yield found.group()
        elif found.lastgroup == "quote" and found.start() >= unclosed[found.group()]:
            quote = found.group()
            scanned = _LITERAL_BODY[quote].match(code, found.start()).end()
            if code.startswith(quote, scanned):
                position = scanned + 1
            else:
                unclosed[quote] = scanned


def _enclosing_main(code: str, containers: tuple[str, ...],
                    is_main: Callable[[list[str], int], bool], entry: str = "main",
                    qualified: bool = False) -> str | None:
    """The innermost container (class, object) around the first word `entry` where `is_main`
    holds, by the code's braces (comments and literals skipped), or None; `qualified`: with
    the containers around it (`Outer.Inner`). A Kotlin companion object is none: its
    `@JvmStatic` members are its class's."""
    words = list(_jvm_words(code))
    open_: list[tuple[str, int]] = []  # the containers open here: (name, depth of their body)
    depth, declared = 0, None
    for index, word in enumerate(words):
        if (word in containers and index + 1 < len(words) and words[index + 1][0].isalpha()
                and not (index and words[index - 1] in (".", "companion"))):
            declared = words[index + 1]
        elif word == "{":
            depth += 1
            if declared:
                open_.append((declared, depth))
                declared = None
        elif word == "}":
            if open_ and open_[-1][1] == depth:
                open_.pop()
            depth -= 1
        elif word == entry and open_ and words[index + 1:index + 2] == ["("] and is_main(
                words, index):
            return ".".join(name for name, _ in open_) if qualified else open_[-1][0]
    return None


def java_main_class(code: str) -> str:
    """The class whose `main` to run: the innermost class around the first `static void
    main(` (a class nested or declared before it is not), named from the top level
    (`Main.Solver`, as a judge runs the class holding main), else the file's."""
    return _enclosing_main(code, ("class", "interface", "enum", "record"), lambda w, i: (
        w[i - 1] == "void" and "static" in w[max(0, i - 5):i]), qualified=True) or (
        java_source_name(code)[:-5])


def csharp_main_class(code: str) -> str | None:
    """The class whose `static void Main(` (or `int`) comes first, named as the top level
    names it (`Outer.Inner`, `Space.Program`), or None."""
    return _enclosing_main(code, ("class", "struct", "namespace"), lambda w, i: (
        w[i - 1] in ("void", "int") and "static" in w[max(0, i - 5):i]), "Main", qualified=True)


def jvm(tools: dict[str, str], memory_mb: int) -> list[str]:
    """A JVM run's command before its class path: the java.se runtime (toolchains.py
    JAVA_SE_IMAGE), else the JDK's java limited to those modules (slower: no class-data
    sharing), so no program has jdk.unsupported's sun.misc.Unsafe. The heap is the memory
    limit. SerialGC and C1 only: fewest threads and the fastest start for short programs. -Xss
    is reserved for every Java thread (the JVM starts several), so it stays modest."""
    java = [tools["java-se"]] if "java-se" in tools else [tools["java"], "--limit-modules",
                                                           "java.se"]
    return [*java, f"-Xmx{memory_mb}m", f"-Xss{stack_mb(memory_mb)}m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Xshare:auto"]


# javac, scalac and kotlinc themselves run on a JVM: the same flags with a compiler's heap.
_JVM_COMPILER_FLAGS = ("-Xmx1024m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")


# The libraries Java programs may use beyond the JDK: javatuples (MultiPL-E's Java imports
# org.javatuples.*), Debian's libjavatuples-java. A host without it compiles what does not use it.
JAVA_LIBRARIES = "/usr/share/java/javatuples.jar"
# OpenSSL's libcrypto, linked where a program uses it (HumanEval-X's C++ `string_to_md5` calls
# MD5_Init, as its harness links -lcrypto); boost is headers only (its `boost::any`).
CPP_LIBRARIES = ("-Wl,--as-needed", "-lcrypto")
GO_LIBRARIES = "/usr/share/gocode"  # a GOPATH entry: Debian's golang-*-dev packages


def _java_package(code: str) -> str:
    """The file's `package a.b;` as the prefix of its classes' names (`a.b.`), else ""."""
    words = _jvm_words(code)
    if next(words, None) != "package":
        return ""
    prefix = []
    for word in words:
        if word == ";":
            return "".join(prefix) + "."
        prefix.append(word)
    return ""


def _java_run(tools: dict[str, str], source: str, memory_mb: int, code: str) -> list[str]:
    """The JVM is given the main class's binary name: a nested class's is `Main$Solver`, one
    in a package `a.b.Main`."""
    return [*jvm(tools, memory_mb), "-cp", f"classes:{JAVA_LIBRARIES}",
            _java_package(code) + java_main_class(code).replace(".", "$")]


def _jvm_library_run(library: str, main: Callable[[str], str]
                     ) -> Callable[[dict[str, str], str, int, str], list[str]]:
    """A JVM language's run: its classes with its runtime library (a tool: its jar)."""
    return lambda t, s, m, c: [*jvm(t, m), "-cp", f"classes:{t[library]}", main(c)]


_SCALA_MAIN = re.compile(r"\bobject\s+(\w+)")
_SCALA_APP = re.compile(r"\bobject\s+(\w+)\s+extends\s+App\b")
# Leading blanks of its own line only: `^\s*` would rescan every blank line below each line.
# Kotlin's and Scala's `package a.b` (no `;`; Scala's `package object` declares none).
_PACKAGE_LINE = re.compile(r"^[^\S\n]*package\s+(?!object\b)([\w.]+)", re.M)
# `@file:JvmName("X")` (or `@file:kotlin.jvm.JvmName`) names the class of the file's top level.
_KOTLIN_JVM_NAME = re.compile(r'^[^\S\n]*@file[^\S\n]*:[^\S\n]*(?:kotlin\.jvm\.)?JvmName'
                              r'[^\S\n]*\([^\S\n]*"([\w$]+)"[^\S\n]*\)', re.M)


def _line_package(code: str) -> str:
    """The prefix (`a.b.`) of the classes' names in a Kotlin or Scala file of `package a.b`."""
    package = _PACKAGE_LINE.search(code)
    return f"{package.group(1)}." if package else ""


def scala_main_object(code: str) -> str:
    """The object whose `main` to run: the innermost object around the first `def main(`,
    else the first object that `extends App` (a companion or case object may come before
    it), else the first object; in the file's package."""
    found = _enclosing_main(code, ("object", "class", "trait"), lambda w, i: w[i - 1] == "def")
    if found:
        return _line_package(code) + found
    first = _SCALA_APP.search(code) or _SCALA_MAIN.search(code)
    return _line_package(code) + (first.group(1) if first else "Main")


def _top_level_main(code: str) -> bool:
    """Whether a `fun main(` stands outside every brace (comments and literals skipped)."""
    words = list(_jvm_words(code))
    depth = 0
    for index, word in enumerate(words):
        depth += (word == "{") - (word == "}")
        if (word == "main" and depth == 0 and index and words[index - 1] == "fun"
                and words[index + 1:index + 2] == ["("]):
            return True
    return False


def kotlin_main_class(code: str) -> str:
    """Top-level functions of main.kt live in class MainKt (of the file's package), or in the
    class its `@file:JvmName("X")` names; without a top-level `fun main(`, the object (or
    class) around the first `fun main(` (`object Main { @JvmStatic fun main(...) }`) is the
    one to run, a nested one by its binary name (`Outer$Solver`)."""
    prefix = _line_package(code)
    if not _top_level_main(code):
        found = _enclosing_main(code, ("object", "class"), lambda w, i: w[i - 1] == "fun",
                                qualified=True)
        if found:
            return prefix + found.replace(".", "$")
    named = _KOTLIN_JVM_NAME.search(code)
    return prefix + (named.group(1) if named else "MainKt")


# The verifier's TestMain (dialects/go.py) makes a Go program a test binary: its `func TestX(t
# *testing.T)` tests run by `go test -c`'s main, which wants a file named *_test.go.
GO_TEST_MAIN = "func TestMain(__verifier_m *__verifier_testing.M)"


def go_source_name(code: str) -> str:
    return "main_test.go" if GO_TEST_MAIN in code else "main.go"


# testify's assert (with net/http, yaml and difflib) costs a Go build about 10 s of CPU, and a
# run's GOCACHE lasts one build: a test binary that imports it starts from a cache that holds it.
GO_TESTIFY_CACHE = BuildCache(
    wanted_by='"github.com/stretchr/testify/assert"', source_name="main_test.go",
    source='package main\n\nimport (\n\t"testing"\n\n\t"github.com/stretchr/testify/assert"\n)'
           '\n\nfunc TestCache(t *testing.T) { assert.True(t, true) }\n', path=".gocache")


# TypeScript is transpiled, not type-checked (as tsx, ts-node --transpile-only, esbuild and
# Deno's run do): Debian packages no Node type definitions, and a well-typed program that uses
# `require` or `process` would otherwise not compile. Syntax errors are compile errors.
_TS_TRANSPILE = (
    "const ts=require(process.argv[1]),fs=require('fs');"
    "const out=ts.transpileModule(fs.readFileSync(process.argv[2],'utf8'),{reportDiagnostics:"
    "true,fileName:process.argv[2],compilerOptions:{target:ts.ScriptTarget.ES2020,"
    "module:ts.ModuleKind.CommonJS}});"
    "const errors=out.diagnostics.filter(d=>d.category===ts.DiagnosticCategory.Error);"
    "for(const d of errors){const p=d.file?d.file.getLineAndCharacterOfPosition(d.start):"
    "{line:0,character:0};console.error(`${process.argv[2]}(${p.line+1},${p.character+1}): "
    "error TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText,'\\n')}`);}"
    "if(errors.length)process.exit(1);fs.writeFileSync('main.js',out.outputText);")


def _typescript_library(tools: dict[str, str]) -> str:
    """typescript.js beside the tsc the host has (its bin/tsc: ../lib/typescript.js)."""
    return f"{tools['tsc'].rsplit('/', 2)[0]}/lib/typescript.js"


def _node_run(program: str) -> Callable[[dict[str, str], str, int, str], list[str]]:
    return lambda t, s, m, c: [t["node"], f"--max-old-space-size={m}", "--v8-pool-size=1",
                               f"--stack-size={stack_mb(m) * 900}", program or s]


# What may come before a Racket module's `#lang`: blanks, line comments, (nested) block comments.
_RACKET_BLANKS = re.compile(r"(?:\s|;[^\n]*)*")
_RACKET_COMMENT_MARKS = re.compile(r"#\||\|#")
_RACKET_MODULE = re.compile(r"#lang\b|#!|#reader|#;|[(\[]\s*module\s")


def racket_program(code: str) -> str:
    """The code as a module: as written where it declares one (`#lang`, `#!racket`, a
    `(module ...)` form, after any comments), else under `#lang racket`, as a judge runs a
    bare `(define (f x) ...)` (racket refuses a file that is no module); on the code's first
    line, so that its lines keep their numbers."""
    position = 0
    while True:
        position = _RACKET_BLANKS.match(code, position).end()
        if not code.startswith("#|", position):
            break
        depth = 0
        for mark in _RACKET_COMMENT_MARKS.finditer(code, position):
            depth += 1 if mark.group() == "#|" else -1
            if depth == 0:
                position = mark.end()
                break
        else:
            return code  # an unclosed comment: racket says so
    return code if _RACKET_MODULE.match(code, position) else f"#lang racket {code}"


def bash_program(code: str) -> str:
    """The script with CRLF line ends read as LF: bash takes a carriage return before a line
    end for part of the line (`f() {\r` is a syntax error, `echo 1\r` prints it), where every
    other toolchain here reads CRLF as a line end; a response's line ends are its transport's."""
    return code.replace("\r\n", "\n")


def stack_mb(memory_mb: int) -> int:
    """Stack limit of a run: room for the deep recursion contest code does (64 MiB).

    glibc also uses it as every thread's default stack reservation, so more would leave
    multi-threaded programs no address space under RLIMIT_AS.
    """
    return min(memory_mb, 64)


def _native(tools: dict[str, str], source: str, memory_mb: int, code: str) -> list[str]:
    return ["./main"]


LANGUAGES: dict[str, Language] = {lang.name: lang for lang in (
    Language(
        name="python", tools=("python",), source_name=_fixed("solution.py"),
        run=lambda t, s, m, c: [t["python"], *JAIL_PYTHON_FLAGS,
                                f"{JAIL_HARNESS}/pyharness.py"],
        aliases=("py", "python3"), env={"PYTHONHASHSEED": "0"}),
    Language(
        name="c", tools=("gcc",), source_name=_fixed("main.c"),
        compile=lambda t, s: [t["gcc"], "-O2", "-std=gnu17", "-pipe", "-o", "main", s, "-lm"],
        run=_native, artefacts=("main",)),
    Language(
        name="cpp", tools=("g++",), source_name=_fixed("main.cpp"),
        compile=lambda t, s: [t["g++"], "-O2", "-std=gnu++17", "-pipe", "-o", "main", s,
                              *CPP_LIBRARIES],
        run=_native, artefacts=("main",), aliases=("c++", "cc", "cxx")),
    Language(
        name="java", tools=("javac", "java"), source_name=java_source_name,
        compile=lambda t, s: [t["javac"], *(f"-J{flag}" for flag in _JVM_COMPILER_FLAGS),
                              "-encoding", "UTF-8", "-cp", JAVA_LIBRARIES, "-d", "classes", s],
        run=_java_run, artefacts=("classes",), memory="heap", startup_cpu_s=1.0),
    Language(
        name="javascript", tools=("node",), source_name=_fixed("main.js"), run=_node_run(""),
        memory="heap", startup_cpu_s=0.3, aliases=("js", "node", "nodejs")),
    Language(
        name="rust", tools=("rustc",), source_name=_fixed("main.rs"),
        compile=lambda t, s: [t["rustc"], "-O", "--edition", "2021", "-o", "main", s],
        run=_native, artefacts=("main",), aliases=("rs",)),
    Language(
        name="bash", tools=("bash",), source_name=_fixed("main.sh"),
        run=lambda t, s, m, c: [t["bash"], s], aliases=("sh", "shell"), program=bash_program),
    # Go: one runtime thread for Go code and the garbage collector aiming at the limit; the
    # build is static (no cgo) with its cache in the run's /tmp (testify's already in it where
    # the program imports it); GOPATH mode, with Debian's Go sources (testify, HumanEval-X's
    # assertions: golang-github-stretchr-testify-dev).
    Language(
        name="go", tools=("go",), source_name=go_source_name,
        compile=lambda t, s: [t["go"], *(("test", "-c") if s.endswith("_test.go") else
                                          ("build",)), "-o", "main", s],
        run=_native, artefacts=("main",), aliases=("golang",),
        env={"GOMAXPROCS": "1", "GOMEMLIMIT": "{memory_mb}MiB", "CGO_ENABLED": "0",
             "GOCACHE": "/tmp/.gocache", "GOPATH": f"/tmp/go:{GO_LIBRARIES}",
             "GO111MODULE": "off"}, build_cache=GO_TESTIFY_CACHE),
    Language(
        name="typescript", tools=("tsc", "node"), source_name=_fixed("main.ts"),
        compile=lambda t, s: [t["node"], "-e", _TS_TRANSPILE, _typescript_library(t), s],
        run=_node_run("main.js"), artefacts=("main.js",), memory="heap", startup_cpu_s=0.3,
        aliases=("ts",)),
    # C# on Mono: DEBUG defined, so Debug.Assert works (as MultiPL-E compiles it); the heap is
    # capped by the garbage collector at the limit.
    Language(
        name="csharp", tools=("mcs", "mono"), source_name=_fixed("main.cs"),
        compile=lambda t, s: [t["mcs"], "-optimize+", "-d:DEBUG", "-out:main.exe", s],
        run=lambda t, s, m, c: [t["mono"], "main.exe"], artefacts=("main.exe",),
        memory="heap", startup_cpu_s=0.2, aliases=("cs", "c#", "mono"),
        env={"MONO_GC_PARAMS": "max-heap-size={memory_mb}m"}),
    # D with its unittest blocks compiled in: they run before main (MultiPL-E's D tests are
    # unittest blocks), and a failing one ends the program before main.
    Language(
        name="d", tools=("gdc",), source_name=_fixed("main.d"),
        compile=lambda t, s: [t["gdc"], "-O2", "-pipe", "-funittest", "-o", "main", s],
        run=_native, artefacts=("main",), aliases=("dlang", "gdc")),
    Language(
        name="lua", tools=("lua",), source_name=_fixed("main.lua"),
        run=lambda t, s, m, c: [t["lua"], s], aliases=("lua5.4",)),
    # PHP without any php.ini (-n: the same on every host), its own memory_limit the limit, and
    # its errors on stderr (PHP's CLI prints them on stdout otherwise).
    Language(
        name="php", tools=("php",), source_name=_fixed("main.php"),
        run=lambda t, s, m, c: [t["php"], "-n", "-d", f"memory_limit={m}M", "-d",
                                "display_errors=stderr", s]),
    Language(
        name="perl", tools=("perl",), source_name=_fixed("main.pl"),
        run=lambda t, s, m, c: [t["perl"], s], aliases=("pl", "perl5")),
    Language(
        name="r", tools=("Rscript",), source_name=_fixed("main.R"),
        run=lambda t, s, m, c: [t["Rscript"], "--vanilla", s], memory="heap", startup_cpu_s=0.3,
        aliases=("rscript",)),
    Language(
        name="ruby", tools=("ruby",), source_name=_fixed("main.rb"),
        run=lambda t, s, m, c: [t["ruby"], s], startup_cpu_s=0.1, aliases=("rb",)),
    # Racket has no heap flag: the cgroup bounds it. `#lang racket` alone loads for about 1 s.
    Language(
        name="racket", tools=("racket",), source_name=_fixed("main.rkt"),
        run=lambda t, s, m, c: [t["racket"], s], memory="heap", startup_cpu_s=1.0,
        aliases=("rkt",), program=racket_program),
    # GHC: the RTS's own heap limit (-M) and stack (-K); the binary accepts RTS options
    # (-rtsopts). The RTS reserves a terabyte of address space up front: judged as a heap.
    Language(
        name="haskell", tools=("ghc",), source_name=_fixed("main.hs"),
        compile=lambda t, s: [t["ghc"], "-O1", "-rtsopts", "-o", "main", s],
        run=lambda t, s, m, c: ["./main", "+RTS", f"-M{m}m", f"-K{stack_mb(m)}m", "-RTS"],
        artefacts=("main",), memory="heap", aliases=("hs", "ghc")),
    Language(
        name="ocaml", tools=("ocamlopt",), source_name=_fixed("main.ml"),
        compile=lambda t, s: [t["ocamlopt"], "-O2", "-o", "main", s],
        run=_native, artefacts=("main",), aliases=("ml", "ocamlopt")),
    # scalac (2.11) wants its output directory to exist; kotlinc makes its own.
    Language(
        name="scala", tools=("scalac", "java", "scala-library"), source_name=_fixed("main.scala"),
        compile=lambda t, s: ["/bin/sh", "-c", 'mkdir classes && exec "$0" "$@"', t["scalac"],
                              *(f"-J{flag}" for flag in _JVM_COMPILER_FLAGS), "-nowarn", "-d",
                              "classes", s],
        run=_jvm_library_run("scala-library", scala_main_object), artefacts=("classes",),
        memory="heap", startup_cpu_s=1.0, aliases=("sc",)),
    Language(
        name="kotlin", tools=("kotlinc", "java", "kotlin-stdlib"), source_name=_fixed("main.kt"),
        compile=lambda t, s: [t["kotlinc"], *(f"-J{flag}" for flag in _JVM_COMPILER_FLAGS),
                              "-nowarn", "-d", "classes", s],
        run=_jvm_library_run("kotlin-stdlib", kotlin_main_class), artefacts=("classes",),
        memory="heap", startup_cpu_s=1.0, aliases=("kt", "kts")),
)}

ALIASES: dict[str, str] = {alias: lang.name for lang in LANGUAGES.values()
                           for alias in (lang.name, *lang.aliases)}


def language_env(language: Language, memory_mb: int) -> dict[str, str]:
    """The language's environment variables for a run (or compile) with `memory_mb`."""
    return {key: value.replace("{memory_mb}", str(memory_mb))
            for key, value in language.env.items()}


def find_language(name: str) -> Language | None:
    """The language a name or one of its aliases stands for (`py`, `C++`, ` js `), or None."""
    return LANGUAGES.get(ALIASES.get(name.strip().lower(), ""))


def language_names() -> str:
    """Every language with its aliases, for messages: `python (py, python3), c, ...`."""
    return ", ".join(f"{lang.name} ({', '.join(lang.aliases)})" if lang.aliases else lang.name
                     for lang in LANGUAGES.values())
