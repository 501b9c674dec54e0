"""The language registry: one entry per language (file name, compile and run commands).

Adding a language is one `Language(...)` in `LANGUAGES` plus a test. Commands name toolchain
executables as `{tool}`; the sandbox backend says where each tool is inside its jail.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from verifier.sandbox.backend import JAIL_HARNESS, JAIL_PYTHON_FLAGS

MIB = 1024 * 1024


@dataclass(frozen=True)
class Language:
    """How to build and run one language in the jail.

    `memory` says how the memory limit is enforced: "address_space" sets RLIMIT_AS (C, C++,
    Rust, Python, bash); "heap" passes the runtime's own heap flag and only bounds the data
    segment loosely, because JVM and V8 reserve far more address space than they use.
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


def _fixed(name: str) -> Callable[[str], str]:
    return lambda _code: name


_JAVA_PUBLIC_CLASS = re.compile(r"\bpublic\s+(?:(?:final|abstract|strictfp)\s+)*class\s+(\w+)")
_JAVA_MAIN_CLASS = re.compile(
    r"\bclass\s+(\w+)[^{]*\{(?:(?!\bclass\b).)*?\bstatic\s+void\s+main\s*\(", re.S)


def java_source_name(code: str) -> str:
    """javac wants a public class in a file of its name; otherwise Main.java will do."""
    found = _JAVA_PUBLIC_CLASS.search(code)
    return f"{found.group(1)}.java" if found else "Main.java"


def java_main_class(code: str) -> str:
    """The class whose `main` to run: the one declaring `static void main`, else the file's."""
    found = _JAVA_MAIN_CLASS.search(code)
    return found.group(1) if found else java_source_name(code)[: -len(".java")]


def _java_run(tools: dict[str, str], source: str, memory_mb: int, code: str) -> list[str]:
    # SerialGC and C1 only: fewest threads and the fastest start for short programs. -Xss is
    # reserved for every Java thread (the JVM starts several), so it stays modest.
    return [tools["java"], f"-Xmx{memory_mb}m", f"-Xss{stack_mb(memory_mb)}m",
            "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Xshare:auto",
            "-cp", "classes", java_main_class(code)]


def stack_mb(memory_mb: int) -> int:
    """Stack limit of a run: room for the deep recursion contest code does (64 MiB).

    glibc also uses it as every thread's default stack reservation, so more would leave
    multi-threaded programs no address space under RLIMIT_AS.
    """
    return min(memory_mb, 64)


LANGUAGES: dict[str, Language] = {lang.name: lang for lang in (
    Language(
        name="python", tools=("python",), source_name=_fixed("solution.py"),
        run=lambda t, s, m, c: [t["python"], *JAIL_PYTHON_FLAGS,
                                f"{JAIL_HARNESS}/pyharness.py"],
        aliases=("py", "python3"), env={"PYTHONHASHSEED": "0"}),
    Language(
        name="c", tools=("gcc",), source_name=_fixed("main.c"),
        compile=lambda t, s: [t["gcc"], "-O2", "-std=gnu17", "-pipe", "-o", "main", s, "-lm"],
        run=lambda t, s, m, c: ["./main"], artefacts=("main",)),
    Language(
        name="cpp", tools=("g++",), source_name=_fixed("main.cpp"),
        compile=lambda t, s: [t["g++"], "-O2", "-std=gnu++17", "-pipe", "-o", "main", s],
        run=lambda t, s, m, c: ["./main"], artefacts=("main",), aliases=("c++", "cc", "cxx")),
    Language(
        name="java", tools=("javac", "java"), source_name=java_source_name,
        compile=lambda t, s: [t["javac"], "-J-Xmx512m", "-J-XX:+UseSerialGC",
                              "-J-XX:TieredStopAtLevel=1", "-encoding", "UTF-8", "-d", "classes",
                              s],
        run=_java_run, artefacts=("classes",), memory="heap", startup_cpu_s=1.0),
    Language(
        name="javascript", tools=("node",), source_name=_fixed("main.js"),
        run=lambda t, s, m, c: [t["node"], f"--max-old-space-size={m}", "--v8-pool-size=1",
                                f"--stack-size={stack_mb(m) * 900}", s],
        memory="heap", startup_cpu_s=0.3, aliases=("js", "node", "nodejs")),
    Language(
        name="rust", tools=("rustc",), source_name=_fixed("main.rs"),
        compile=lambda t, s: [t["rustc"], "-O", "--edition", "2021", "-o", "main", s],
        run=lambda t, s, m, c: ["./main"], artefacts=("main",), aliases=("rs",)),
    Language(
        name="bash", tools=("bash",), source_name=_fixed("main.sh"),
        run=lambda t, s, m, c: [t["bash"], s], aliases=("sh", "shell")),
)}

ALIASES: dict[str, str] = {alias: lang.name for lang in LANGUAGES.values()
                           for alias in (lang.name, *lang.aliases)}


def find_language(name: str) -> Language | None:
    """The language a name or one of its aliases stands for (`py`, `C++`, ` js `), or None."""
    return LANGUAGES.get(ALIASES.get(name.strip().lower(), ""))


def language_names() -> str:
    """Every language with its aliases, for messages: `python (py, python3), c, ...`."""
    return ", ".join(f"{lang.name} ({', '.join(lang.aliases)})" if lang.aliases else lang.name
                     for lang in LANGUAGES.values())
