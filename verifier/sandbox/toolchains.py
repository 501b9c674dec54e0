"""Where each toolchain lives on a Debian host: its executables and the directories it reads.

The jail binds, read-only, a small common base (the executables of /usr/bin, the shared
libraries and the dynamic linker) and then only the directories of the toolchains that are
installed: /usr/lib/jvm for Java, /usr/lib/ghc for GHC, and so on. Everything else of the host's
/usr (/usr/local, /usr/src, /usr/share beyond what a runtime reads, other tools' files) is not
there. A directory that does not exist on this host is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

# Every run needs these: the executables (interpreters and the utilities bash programs call),
# the shared libraries with the dynamic linker, the locales (C.UTF-8), the time zones, and the
# few /etc files the linker reads.
BASE_DIRS = ("/usr/bin", "/usr/lib/*-linux-gnu", "/usr/lib64", "/usr/lib32", "/usr/libx32",
             "/usr/lib/locale", "/usr/share/zoneinfo")
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives")
# The C toolchain: GCC's drivers, headers and the assembler's and linker's plugins. Compilers
# that link through gcc (rustc, GHC, OCaml, gdc) need it too.
GCC_DIRS = ("/usr/lib/gcc", "/usr/libexec/gcc", "/usr/include", "/usr/lib/bfd-plugins")
JVM_DIRS = ("/usr/lib/jvm", "/etc/java-*")
JAVA_DIRS = (*JVM_DIRS, "/usr/share/java/javatuples.jar")  # languages.py's JAVA_LIBRARIES
# The runtime JVM runs use where the host has it: javac's JDK jlink'ed down to the java.se
# modules (sandbox/images/java-se-runtime.sh makes it). jdk.unsupported's sun.misc.Unsafe is
# not in it: with it a program wrote into the JDK's own objects (the Long a calls driver boxes
# its result into said 7 where the function returned 3).
JAVA_SE_IMAGE = "/usr/lib/jvm/rlvr-java-se"
MONO_DIRS = ("/usr/lib/mono", "/etc/mono", "/usr/lib/lib[Mm]ono*")  # native shims in /usr/lib


@dataclass(frozen=True)
class Toolchain:
    """A tool the languages name (`{tool}` in languages.py): the executables that provide it
    (names on PATH, or absolute paths of files), first found wins, and the host directories
    (globs) it needs in the jail."""

    executables: tuple[str, ...]
    dirs: tuple[str, ...] = ()


TOOLCHAINS: dict[str, Toolchain] = {
    "gcc": Toolchain(("gcc",), GCC_DIRS),
    "g++": Toolchain(("g++",), GCC_DIRS),
    # Debian's own node loads the libraries it does not bundle (acorn, cjs-module-lexer,
    # undici, ...) from /usr/share/nodejs; builds from elsewhere carry them inside.
    "node": Toolchain(("node", "nodejs"), ("/usr/share/nodejs", "/usr/share/node_modules")),
    "bash": Toolchain(("bash",)),
    "javac": Toolchain(("javac",), JAVA_DIRS),
    "java": Toolchain(("java",), JAVA_DIRS),
    "java-se": Toolchain((f"{JAVA_SE_IMAGE}/bin/java",), JAVA_DIRS),
    "rustc": Toolchain(("rustc",), (*GCC_DIRS, "/usr/lib/rustlib")),
    "go": Toolchain(("go",), ("/usr/lib/go-*", "/usr/share/go-*", "/usr/share/gocode")),
    "tsc": Toolchain(("tsc",), ("/usr/share/nodejs/typescript",)),
    "mcs": Toolchain(("mcs",), MONO_DIRS),
    "mono": Toolchain(("mono",), MONO_DIRS),
    "gdc": Toolchain(("gdc",), GCC_DIRS),
    "lua": Toolchain(("lua5.4", "lua"), ("/usr/share/lua",)),
    "php": Toolchain(("php",), ("/usr/lib/php",)),
    "perl": Toolchain(("perl",), ("/usr/share/perl", "/usr/share/perl5")),
    "Rscript": Toolchain(("Rscript",), ("/usr/lib/R", "/usr/share/R", "/etc/R")),
    "ruby": Toolchain(("ruby",), ("/usr/lib/ruby", "/usr/share/rubygems-integration")),
    "racket": Toolchain(("racket",), ("/usr/share/racket", "/usr/lib/racket", "/etc/racket")),
    "ghc": Toolchain(("ghc",), (*GCC_DIRS, "/usr/lib/ghc", "/var/lib/ghc")),
    "ocamlopt": Toolchain(("ocamlopt",), (*GCC_DIRS, "/usr/lib/ocaml")),
    "scalac": Toolchain(("scalac",), (*JVM_DIRS, "/usr/share/scala*", "/usr/share/java")),
    "kotlinc": Toolchain(("kotlinc",), (*JVM_DIRS, "/usr/share/kotlin", "/usr/share/java")),
    # Runtime libraries a JVM language's runs put on the class path (files, not executables).
    "scala-library": Toolchain(("/usr/share/java/scala-library.jar",), ("/usr/share/java",)),
    "kotlin-stdlib": Toolchain(("/usr/share/java/kotlin-stdlib.jar",), ("/usr/share/java",)),
}
