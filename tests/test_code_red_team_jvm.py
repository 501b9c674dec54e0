"""Java, Kotlin, Scala, C# and Go assert tests against solutions that attack them, through the
real compilers and jail.

Each attack is a wrong solution (its function returns the wrong value) with a trick that beat
the tests when they ran in its process: shadowing what the tests call (`class Debug`, a local
`assert`, `func panic`, a `var fmt`, testify's name), disabling assertions (`-da`,
`setClassAssertionStatus`), overriding `equals`/`Equals`/`String()` on what it returns, static
initialisers and `init()` that exit, shutdown hooks, uncaught-exception handlers and Trace
listeners that forge the record or swallow the failure, forged records, floods, reading the
tests' compiled class for the expected values. Each must earn nothing, and never an
infra_error, whatever the tests' shape: MultiPL-E's and HumanEval-X's (judged outside the
solution's process) and one that is not plain calls (a loop, run in its process, hardened).
"""

from __future__ import annotations

import base64
import shutil
import subprocess

import pytest

from rlvr_contract.schemas import CodeItem
from verifier.kinds.code import installed_languages, run_code_items

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

LIMITS = {"time_s": 10, "memory_mb": 512}
# What no program can be kept from doing inside its own process, so in-process shapes are not
# asked to resist it (docs/code.md): copying the run's record (fd 4) to the channel (fd 3), and
# answering the tests' `equals` on what it returns (in-process tests call it).
IN_PROCESS_ONLY = {"record forged from a shutdown hook",
                   "record forged from an uncaught-exception handler", "record forged from init",
                   "equals, hashCode and toString overridden on what it returns",
                   "equals overridden on what it returns", "Equals overridden on what it returns"}

# ------------------------------------------------------------------------------------ Java
# scale(v, k) multiplies each element by k (right) or adds k (wrong); even(x) is x % 2 == 0
# in both, so that what an attack must beat is scale's check.
JAVA_RIGHT = ("    public static ArrayList<Long> scale(ArrayList<Long> v, long k) {\n"
              "        ArrayList<Long> out = new ArrayList<>(); for (long x : v) out.add(x * k);"
              " return out; }\n"
              "    public static boolean even(long x) { return x % 2 == 0; }\n")
JAVA_WRONG = JAVA_RIGHT.replace("x * k", "x + k")  # even stays right: scale's check must fail
JAVA_TESTS = {
    "multiple": ("    public static void main(String[] args) {\n"
                 "    assert(scale((new ArrayList<Long>(Arrays.asList((long)1l, (long)2l))), (3l))"
                 ".equals((new ArrayList<Long>(Arrays.asList((long)3l, (long)6l)))));\n"
                 "    assert(even((4l)) == (true));\n    }\n\n}\n"),
    "multiple_casts": ("    public static void main(String[] args) {\n"
                       "    assert(scale((ArrayList<Long>)new ArrayList<Long>(Arrays.asList("
                       "(long)1l, (long)-2l)), (3l)).equals((new ArrayList<Long>(Arrays.asList("
                       "(long)3l, (long)-6l)))));\n    }\n\n}\n"),
    "humaneval_x": ("}\npublic class Main {\n    public static void main(String[] args) {\n"
                    "        Problem s = new Problem();\n"
                    "        List<Boolean> correct = Arrays.asList(\n"
                    "                s.scale(new ArrayList<>(Arrays.asList(1L, 2L)), 3)"
                    ".equals(Arrays.asList(3L, 6L)),\n"
                    "                s.even(4)\n        );\n"
                    "        if (correct.contains(false)) {\n"
                    "            throw new AssertionError();\n        }\n    }\n}\n"),
    "loop": ("    public static void main(String[] args) {\n"
             "    for (long k = 1; k < 3; k++)\n"
             "        assert(scale((new ArrayList<Long>(Arrays.asList((long)1l))), (k))"
             ".equals((new ArrayList<Long>(Arrays.asList((long)k)))));\n"
             "    assert(even((4l)));\n    }\n\n}\n"),
}
_JAVA_COPY = ("try (java.io.FileOutputStream o = new java.io.FileOutputStream("
              "\"/proc/self/fd/3\")) { o.write(java.nio.file.Files.readAllBytes("
              "java.nio.file.Path.of(\"/proc/self/fd/4\"))); } catch (Exception x) { } "
              "Runtime.getRuntime().halt(0);")
# Each attack: (code before the class, code inside it).
JAVA_ATTACKS = {
    "System.exit(0) from a static initialiser": ("", "    static { System.exit(0); }\n"),
    "Runtime.halt(0) from a static initialiser": ("", "    static { Runtime.getRuntime()"
                                                  ".halt(0); }\n"),
    "record forged from a shutdown hook": (
        "", "    static { Runtime.getRuntime().addShutdownHook(new Thread(() -> { "
            + _JAVA_COPY + " })); }\n"),
    "record forged from an uncaught-exception handler": (
        "", "    static { Thread.setDefaultUncaughtExceptionHandler((t, e) -> { "
            + _JAVA_COPY + " }); }\n"),
    "assertions disabled": ("", "    static { ClassLoader.getSystemClassLoader()"
                            ".setDefaultAssertionStatus(false); ClassLoader.getSystemClassLoader()"
                            ".setClassAssertionStatus(\"Problem\", false); }\n"),
    "equals, hashCode and toString overridden on what it returns": (
        "", "    static class Always extends ArrayList<Long> {\n"
            "        public boolean equals(Object o) { return true; }\n"
            "        public int hashCode() { return 0; }\n"
            "        public String toString() { return \"[3, 6]\"; }\n    }\n"
            "    static ArrayList<Long> always(ArrayList<Long> v) { Always a = new Always();"
            " a.addAll(v); return a; }\n"),
    "records forged from a static initialiser": (
        "", "    static { try (java.io.FileOutputStream o = new java.io.FileOutputStream("
            "\"/proc/self/fd/3\")) { o.write(\"[0,true]\\n[1,true]\\n{\\\"passed\\\": true}\\n\""
            ".getBytes()); } catch (Exception e) { } Runtime.getRuntime().halt(0); }\n"),
    "output flood": ("", "    static { for (int i = 0; i < (1 << 22); i++) "
                     "System.out.print(\"[0,true]\\n\"); }\n"),
}


def _java(attack: tuple[str, str], shape: str) -> str:
    top, member = attack
    body = JAVA_WRONG
    if "always(" in member:  # what scale returns overrides equals
        body = body.replace("return out;", "return always(out);")
    return (f"import java.util.*;\n{top}class Problem {{\n{member}{body}")


# ------------------------------------------------------------------------------------ Kotlin
KOTLIN_RIGHT = ("fun scale(v: MutableList<Long>, k: Long): MutableList<Long> = "
                "v.map { it * k }.toMutableList()\nfun even(x: Long): Boolean = x % 2 == 0L\n")
KOTLIN_WRONG = KOTLIN_RIGHT.replace("it * k", "it + k")
KOTLIN_TESTS = {
    "multiple": ("fun main() {\n  assert(mutableListOf(3L, 6L) == scale(mutableListOf(1L, 2L),"
                 " 3L));\n  assert(true == even(4L));\n}\n"),
    "named": ("fun main() {\n    var arg00 : MutableList<Long> = mutableListOf(1L, 2L)\n"
              "    var x0 : MutableList<Long> = scale(arg00, 3L);\n"
              "    var v0 : MutableList<Long> = mutableListOf(3L, 6L);\n"
              "    if (x0 != v0) {\n        throw Exception(\"Exception -- test case 0 did not "
              "pass. x0 = \" + x0)\n    }\n}\n"),
    "loop": ("fun main() {\n  for (k in 1L..2L) assert(mutableListOf(k) == "
             "scale(mutableListOf(1L), k));\n  assert(even(4L));\n}\n"),
}
_KOTLIN_COPY = ("java.io.File(\"/proc/self/fd/3\").writeBytes(java.io.File(\"/proc/self/fd/4\")"
                ".readBytes()); Runtime.getRuntime().halt(0)")
KOTLIN_ATTACKS = {
    "a local assert": "fun assert(condition: Boolean) { }\n",
    "assertions disabled before Kotlin reads them": (
        "val disabled = run { ClassLoader.getSystemClassLoader().setDefaultAssertionStatus(false);"
        " ClassLoader.getSystemClassLoader().setClassAssertionStatus(\"kotlin._Assertions\", "
        "false); kotlin.assert(true); 0 }\n"),
    "exitProcess(0) from a top-level initialiser": ("val quit: Int = run { kotlin.system."
                                                    "exitProcess(0) }\n"),
    "record forged from a shutdown hook": (
        f"val hook = Runtime.getRuntime().addShutdownHook(Thread {{ {_KOTLIN_COPY} }})\n"),
    "record forged from an uncaught-exception handler": (
        f"val handler = Thread.setDefaultUncaughtExceptionHandler {{ _, _ -> {_KOTLIN_COPY} }}\n"),
}

# ------------------------------------------------------------------------------------ Scala
SCALA_RIGHT = ("    def scale(v : List[Long], k : Long) : List[Long] = v.map(_ * k)\n"
               "    def even(x : Long) : Boolean = {\n        x % 2 == 0")
SCALA_WRONG = SCALA_RIGHT.replace("_ * k", "_ + k")
SCALA_TESTS = {
    "multiple": ("    }\n    def main(args: Array[String]) = {\n"
                 "    assert(scale((List[Long](1l, 2l)), (3l)).equals((List[Long](3l, 6l))));\n"
                 "    assert(even((4l)) == (true));\n    }\n\n}\n"),
    "multiple_negatives": ("    }\n    def main(args: Array[String]) = {\n"
                           "    assert(scale((List[Long](-1l.toLong, 2l.toLong)), (3l)).equals("
                           "(List[Long](-3l.toLong, 6l.toLong))));\n    }\n\n}\n"),
    "loop": ("    }\n    def main(args: Array[String]) = {\n"
             "    for (k <- 1l to 2l) assert(scale((List[Long](1l)), k).equals(List[Long](k)));\n"
             "    assert(even((4l)) == (true));\n    }\n\n}\n"),
}
_SCALA_COPY = ("java.nio.file.Files.write(java.nio.file.Paths.get(\"/proc/self/fd/3\"), "
               "java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(\"/proc/self/fd/4\")));"
               " Runtime.getRuntime().halt(0)")
SCALA_ATTACKS = {
    "a local assert": "    def assert(condition: Boolean): Unit = { }\n",
    "sys.exit(0) from the object's initialiser": "    val quit = sys.exit(0)\n",
    "record forged from a shutdown hook": f"    sys.addShutdownHook {{ {_SCALA_COPY} }}\n",
    "equals overridden on what it returns": (
        "    class Always(items: Long*) extends scala.collection.immutable.Seq[Long] {\n"
        "      def apply(i: Int) = items(i); def length = items.length\n"
        "      def iterator = items.iterator\n"
        "      override def equals(o: Any) = true\n    }\n"),
}

# ------------------------------------------------------------------------------------ C#
CSHARP_RIGHT = ("    public static List<long> Scale(List<long> v, long k) {\n"
                "        var o = new List<long>(); foreach (var x in v) o.Add(x * k); return o; }\n"
                "    public static bool Even(long x) { return x % 2 == 0; }\n")
CSHARP_WRONG = CSHARP_RIGHT.replace("x * k", "x + k")
CSHARP_TESTS = {
    "multiple": ("    public static void Main(string[] args) {\n"
                 "    Debug.Assert(Scale((new List<long>(new long[]{(long)1L, (long)2L})), (3L))"
                 ".Equals((new List<long>(new long[]{(long)3L, (long)6L}))));\n"
                 "    Debug.Assert(Even((4L)) == (true));\n    }\n\n}\n"),
    "multiple_sequence": ("    public static void Main(string[] args) {\n"
                          "    Debug.Assert(Scale((new List<long>(new long[]{(long)1L, (long)2L}))"
                          ", (3L)).SequenceEqual((new List<long>(new long[]{(long)3L, (long)6L}"
                          "))));\n    }\n\n}\n"),
    "loop": ("    public static void Main(string[] args) {\n"
             "    for (long k = 1; k < 3; k++)\n"
             "        Debug.Assert(Scale((new List<long>(new long[]{1L})), k)[0] == k);\n"
             "    Debug.Assert(Even((4L)));\n    }\n\n}\n"),
}
CSHARP_ATTACKS = {
    "a class Debug of its own": ("class Debug { public static void Assert(bool c) { } "
                                 "public static void Assert(bool c, string m) { } }\n", ""),
    "Trace listeners cleared": ("", "    static Problem() { System.Diagnostics.Trace.Listeners"
                                ".Clear(); }\n"),
    "Environment.Exit(0) from a static constructor": (
        "", "    static Problem() { System.Environment.Exit(0); }\n"),
    "Equals overridden on what it returns": (
        "class Always : List<long> { public override bool Equals(object o) { return true; } "
        "public override int GetHashCode() { return 0; } }\n", ""),
}

# ------------------------------------------------------------------------------------ Go
GO_RIGHT = ("func Scale(v []int, k int) []int {\n    out := []int{}\n"
            "    for _, x := range v {\n        out = append(out, x*k)\n    }\n    return out\n}\n"
            "func Even(x int) bool { return x%2 == 0 }\n")
GO_WRONG = GO_RIGHT.replace("x*k", "x+k")
GO_TESTS = {
    "humaneval_x": ("package main\n\nimport (\n    \"testing\"\n"
                    "    \"github.com/stretchr/testify/assert\"\n)\n"
                    "func TestScale(t *testing.T) {\n    assert := assert.New(t)\n"
                    "    assert.Equal([]int{3, 6}, Scale([]int{1, 2}, 3))\n"
                    "    assert.Equal(true, Even(4))\n}\n"),
    "multiple": ("func TestScale(t *testing.T) {\n  candidate := Scale\n"
                 "\ttype test struct {\n\t\tactual   interface{}\n\t\texpected interface{}\n\t}\n"
                 "   tests := []test{\n     { actual: candidate([]int{1, 2}, 3), expected: "
                 "[]int{3, 6} },\n     { actual: Even(4), expected: true },\n   }\n\n"
                 "\tfor i, tc := range tests {\n"
                 "\t\tt.Run(fmt.Sprintf(\"test num % d\", i), func(t *testing.T) {\n"
                 "\t\t\tif fmt.Sprintf(\"%v\", tc.actual) != fmt.Sprintf(\"%v\", tc.expected) {\n"
                 "\t\t\t\tt.Errorf(\"expected '%s', got '%s'\", tc.expected, tc.actual)\n"
                 "\t\t\t}\n\t\t})\n\t}\n}\n"),
    "main": ("func main() {\n    if Scale([]int{1, 2}, 3)[1] != 6 { panic(\"assertion failed\") }"
             "\n    if !Even(4) { panic(\"assertion failed\") }\n}\n"),
    "loop": ("func TestScale(t *testing.T) {\n    for k := 1; k < 3; k++ {\n"
             "        if fmt.Sprintf(\"%v\", Scale([]int{1}, k)) != "
             "fmt.Sprintf(\"%v\", []int{k}) {\n"
             "            t.Errorf(\"wrong\")\n        }\n    }\n"
             "    if !Even(4) { panic(\"assertion failed\") }\n}\n"),
}
GO_ATTACKS = {
    "a package-level func panic": "func panic(v interface{}) {}\n",
    "os.Exit(0) from init": "func init() { os.Exit(0) }\n",
    "a var fmt of its own": ("type fakeFmt struct{}\n"
                             "func (fakeFmt) Sprintf(f string, a ...interface{}) string "
                             "{ return \"same\" }\nfunc (fakeFmt) Sprint(a ...interface{}) string "
                             "{ return \"\" }\nvar fmt fakeFmt\n"),
    "a var assert of its own": "var assert = 1\n",
    "String() on what it returns": ("type shown []int\n"
                                    "func (shown) String() string { return \"[3 6]\" }\n"),
    "-test.run added to os.Args from init": ("func init() { os.Args = append(os.Args, "
                                             "\"-test.run=^NONE$\") }\n"),
    "testing flags set from init": ("import (\n    \"flag\"\n    \"testing\"\n)\n"
                                    "func init() {\n    testing.Init()\n"
                                    "    flag.Set(\"test.run\", \"^NONE$\")\n"
                                    "    flag.Set(\"test.count\", \"0\")\n"
                                    "    flag.Set(\"test.list\", \"NONE\")\n}\n"),
    "record forged from init": ("func init() {\n    data, _ := os.ReadFile(\"/proc/self/fd/4\")\n"
                                "    os.WriteFile(\"/proc/self/fd/3\", data, 0)\n"
                                "    os.WriteFile(\"/proc/self/fd/3\", []byte(\"[0,true]\\n\"), 0)"
                                "\n    os.Exit(0)\n}\n"),
}


def _go(attack: str, shape: str) -> str:
    body = GO_WRONG
    if "type shown" in attack:
        body = body.replace("func Scale(v []int, k int) []int {", "func Scale(v []int, k int) "
                            "shown {").replace("return out", "return shown(out)")
    imports = 'import (\n    "os"\n)\n' if "os." in attack else ""
    uses_os = "\nvar _ = os.Args\n" if imports else ""
    return f"package main\n{imports}{attack}{body}{uses_os}"


def _cases() -> list[tuple[str, str, str, str]]:
    """(language, attack, shape, response) for every attack and shape it applies to."""
    cases: list[tuple[str, str, str, str]] = []
    for attack, parts in JAVA_ATTACKS.items():
        for shape in JAVA_TESTS:
            if shape in IN_PROCESS and attack in IN_PROCESS_ONLY:
                continue
            cases.append(("java", attack, shape, _java(parts, shape)))
    for attack, code in KOTLIN_ATTACKS.items():
        for shape in KOTLIN_TESTS:
            if shape in IN_PROCESS and attack in IN_PROCESS_ONLY:
                continue
            cases.append(("kotlin", attack, shape, code + KOTLIN_WRONG))
    for attack, member in SCALA_ATTACKS.items():
        for shape in SCALA_TESTS:
            if shape in IN_PROCESS and attack in IN_PROCESS_ONLY:
                continue
            body = SCALA_WRONG
            if "class Always" in member:
                body = body.replace(": List[Long] = v.map(_ + k)",
                                    ": Seq[Long] = new Always(v.map(_ + k): _*)")
            cases.append(("scala", attack, shape, "object Problem {\n" + member + body))
    for attack, (top, member) in CSHARP_ATTACKS.items():
        for shape in CSHARP_TESTS:
            if shape in IN_PROCESS and attack in IN_PROCESS_ONLY:
                continue
            body = CSHARP_WRONG
            if "class Always" in top:
                body = body.replace("var o = new List<long>();", "var o = new Always();")
            cases.append(("csharp", attack, shape, "using System;\nusing System.Diagnostics;\n"
                          "using System.Collections.Generic;\n" + top + "class Problem {\n"
                          + member + body))
    for attack, code in GO_ATTACKS.items():
        for shape in GO_TESTS:
            if shape in IN_PROCESS and attack in IN_PROCESS_ONLY:
                continue
            cases.append(("go", attack, shape, _go(code, shape)))
    return cases


TESTS = {"java": JAVA_TESTS, "kotlin": KOTLIN_TESTS, "scala": SCALA_TESTS,
         "csharp": CSHARP_TESTS, "go": GO_TESTS}
RIGHT = {"java": "import java.util.*;\nclass Problem {\n" + JAVA_RIGHT, "kotlin": KOTLIN_RIGHT,
         "scala": "object Problem {\n" + SCALA_RIGHT,
         "csharp": "using System;\nusing System.Diagnostics;\nusing System.Collections.Generic;\n"
                   "class Problem {\n" + CSHARP_RIGHT, "go": "package main\n" + GO_RIGHT}
IN_PROCESS = {"loop", "main"}


def _item(language: str, response: str, tests: str) -> CodeItem:
    return CodeItem(language=language, response=response, limits=LIMITS,
                    tests={"type": "assert", "code": tests})


def _installed(language: str) -> None:
    if language not in installed_languages():
        pytest.skip(f"{language} toolchain not installed")


@pytest.mark.parametrize("language", sorted(TESTS))
def test_right_solutions_pass_and_say_where_they_were_judged(language: str):
    _installed(language)
    shapes = TESTS[language]
    results = run_code_items([_item(language, RIGHT[language], tests)
                              for tests in shapes.values()])
    assert [(r.status.value, r.detail.get("judged")) for r in results] == [
        ("correct", "in_process" if shape in IN_PROCESS else "outside") for shape in shapes], \
        results


@pytest.mark.parametrize("language", sorted(TESTS))
def test_attacks_earn_nothing(language: str):
    _installed(language)
    cases = [case for case in _cases() if case[0] == language]
    results = run_code_items([_item(language, response, TESTS[language][shape])
                              for _, _, shape, response in cases])
    won = [(attack, shape, r.status.value, r.detail.get("tests", [{}])[0].get("message"))
           for (_, attack, shape, _), r in zip(cases, results, strict=True)
           if r.reward != 0.0 or r.status.value == "infra_error"]
    assert not won, won


def test_expected_values_are_out_of_the_solutions_reach():
    # The solution looks for the expected value in every file it can read (the compiled
    # tests among them) and returns what it finds.
    _installed("java")
    finder = ("import java.util.*;\nimport java.nio.file.*;\nclass Problem {\n"
              "    public static String name(long x) throws Exception {\n"
              "        for (Path p : (Iterable<Path>) Files.walk(Paths.get("
              "\".\"))::iterator) {\n"
              "            if (!Files.isRegularFile(p)) continue;\n"
              "            String text = new String(Files.readAllBytes(p), \"ISO-8859-1\");\n"
              "            String needle = new StringBuilder(\"-detcepxe-qz\").reverse()"
              ".toString();\n"
              "            java.util.regex.Matcher m = java.util.regex.Pattern.compile("
              "needle + \"[0-9][0-9]\").matcher(text);\n"
              "            if (m.find()) return m.group();\n        }\n"
              "        return \"nothing\";\n    }\n")
    tests = ("    public static void main(String[] args) throws Exception {\n"
             "    assert(name((1l)).equals((\"zq-expected-91\")));\n    }\n\n}\n")
    result = run_code_items([_item("java", finder, tests)])[0]
    assert (result.status.value, result.detail["judged"]) == ("wrong", "outside"), result


def test_go_main_comparing_a_string_judges_the_text():
    # `if F(x) != "ab" { panic(...) }`: the string equality Go has (it was judged as a number).
    _installed("go")
    tests = "func main() {\n    if Name(1) != \"ab\" { panic(\"no\") }\n}\n"
    results = run_code_items([_item("go", f"package main\nfunc Name(x int) string {{ return "
                                           f"\"{text}\" }}\n", tests) for text in ("ab", "ba")])
    assert [r.status.value for r in results] == ["correct", "wrong"], results


def test_go_main_comparing_an_interface_result_judges_its_dynamic_type():
    # `if F(x) != 3 { panic(...) }` with F's result an interface: Go converts 3 to it, an int,
    # so an int64 3 differs (it was judged equal by value). Judged outside and in the program
    # (a loop makes the same checks more than plain calls), the verdicts agree.
    _installed("go")
    cases = [("int64(3)", "3"), ("3", "3"), ("3.0", "3"), ("3.0", "3.0"), ("int32('a')", "'a'"),
             ("'a'", "97"), ("\"a\"", "\"a\""), ("nil", "nil"), ("true", "true"),
             ("uint8(3)", "3")]
    items = []
    for returned, constant in cases:
        solution = f"package main\nfunc F(x int) interface{{}} {{ return {returned} }}\n"
        check = f"    if F(1) != {constant} {{ panic(\"no\") }}\n"
        items += [_item("go", solution, f"func main() {{\n{check}}}\n"),
                  _item("go", solution, f"func main() {{\n    for i := 0; i < 1; i++ {{}}\n"
                                        f"{check}}}\n")]
    results = run_code_items(items)
    assert [r.detail["judged"] for r in results] == ["outside", "in_process"] * len(cases)
    outside = [r.status.value == "correct" for r in results[0::2]]
    assert outside == [r.status.value == "correct" for r in results[1::2]], results
    assert outside == [False, True, False, True, True, False, True, True, True, False], results


def test_go_bytes_that_are_no_utf8_equal_no_text():
    # Go's range reads a byte that is no UTF-8 as U+FFFD; "\xff" still is not "\uFFFD" in Go.
    _installed("go")
    tests = {"testify": ("func TestName(t *testing.T) {\n    assert := assert.New(t)\n"
                         "    assert.Equal(\"a\\uFFFD\", Name(1))\n}\n"),
             "main": "func main() {\n    if Name(1) != \"a\\uFFFD\" { panic(\"no\") }\n}\n"}
    right, wrong = ("package main\nfunc Name(x int) string { return \"a\\uFFFD\" }\n",
                    "package main\nfunc Name(x int) string { return \"a\\xff\" }\n")
    results = run_code_items([_item("go", solution, shape) for shape in tests.values()
                              for solution in (right, wrong)])
    assert [r.status.value for r in results] == ["correct", "wrong"] * 2, results


def test_go_a_source_that_ends_in_import_is_a_compile_error():
    # Reading its imports ran past its end (an IndexError: infra_error).
    _installed("go")
    results = run_code_items([_item("go", "package main\nimport", tests)
                              for tests in GO_TESTS.values()])
    assert [r.status.value for r in results] == ["compile_error"] * len(GO_TESTS), results


def test_right_solutions_with_a_main_of_their_own_pass():
    # A demo `main` in the solution's class (HumanEval-X's Solution, whose tests' Main the
    # dataset runs) or in a class or object before the tested one: the run still starts at the
    # tests' `main`, in every shape, and the solution's is never the entry.
    for language in ("java", "scala"):
        _installed(language)
    demo = "    public static void main(String[] args) { System.out.println(1); }\n"
    solution = ("import java.util.*;\nclass Solution {\n" + demo
                + JAVA_RIGHT.replace("public static", "public"))
    humaneval_x = JAVA_TESTS["humaneval_x"].replace("Problem", "Solution").replace(
        "}\npublic class Main", "public class Main", 1)
    helper = "import java.util.*;\nclass Helper {\n" + demo + "}\nclass Problem {\n" + JAVA_RIGHT
    scala = ("object Helper { def main(args: Array[String]): Unit = println(1) }\n"
             "object Problem {\n" + SCALA_RIGHT)
    items = [_item("java", solution + "}\n", humaneval_x),
             *(_item("java", helper, tests) for tests in JAVA_TESTS.values()
               if "Main" not in tests),
             *(_item("scala", scala, tests) for tests in SCALA_TESTS.values())]
    results = run_code_items(items)
    assert [r.status.value for r in results] == ["correct"] * len(items), results


def test_a_character_the_tests_write_as_a_surrogate_pair_is_that_character():
    # `"\\uD83D\\uDE00"` is one character (U+1F600) in a JVM string, as the recorded value's
    # is: a right solution returning it passes, one returning half of it does not.
    for language in ("java", "kotlin"):
        _installed(language)
    java_tests = ("    public static void main(String[] args) {\n"
                  "    assert(face((1l)).equals(\"\\uD83D\\uDE00\"));\n"
                  "    assert(face((1l)).equals(\"\\uD83D\" + \"\\uDE00\"));\n    }\n\n}\n")
    kotlin_tests = "fun main() {\n    assert(face(1L) == \"\\uD83D\\uDE00\")\n}\n"
    faces = {"right": "new String(Character.toChars(0x1F600))", "wrong": "\"\\uD83D\""}
    items = [
        *(_item("java", "class Problem {\n    public static String face(long x) { return "
                + face + "; }\n", java_tests) for face in faces.values()),
        *(_item("kotlin", f"fun face(x: Long): String = {face}\n", kotlin_tests)
          for face in ("String(Character.toChars(0x1F600))", "\"\\uD83D\""))]
    results = run_code_items(items)
    assert [r.status.value for r in results] == ["correct", "wrong"] * 2, results


def test_stdio_programs_run_from_their_entry_point():
    # A Scala companion object before `object Main extends App`, a Kotlin `object` holding a
    # `@JvmStatic fun main`: right programs, run from the object that has the entry point.
    for language in ("scala", "kotlin"):
        _installed(language)
    tests = {"type": "stdio", "cases": [{"input": "3\n", "output": "6\n"}]}
    programs = [
        ("scala", "case class P(x: Int)\nobject P { def zero = P(0) }\nobject Main extends App {\n"
                  "  println(P(scala.io.StdIn.readLine().trim.toInt * 2).x)\n}\n"),
        ("kotlin", "package a.b\nobject Main {\n    @JvmStatic fun main(args: Array<String>) {\n"
                   "        println(readLine()!!.trim().toInt() * 2)\n    }\n}\n")]
    results = run_code_items([CodeItem(language=language, response=code, limits=LIMITS,
                                       tests=tests) for language, code in programs])
    assert [r.status.value for r in results] == ["correct"] * len(programs), results



def test_the_class_a_judge_runs_is_the_one_holding_main():
    # Java's `main` in a static nested class (the JVM runs `Main$Solver`), a Java file in a
    # package (`a.b.Main`), a Kotlin file whose `@file:JvmName("Solution")` names its top-level
    # class (not MainKt), a Kotlin `main` in a nested object (`Outer$Solver`) or a named
    # companion (its class's), in stdio and assert tests of both shapes: right programs pass,
    # wrong ones do not.
    for language in ("java", "kotlin"):
        _installed(language)
    stdio = {"type": "stdio", "cases": [{"input": "3\n", "output": "6\n"}]}
    java = ("import java.util.*;\npublic class Main {\n  static class Solver {\n"
            "    public static void main(String[] a) {\n"
            "      System.out.println(new Scanner(System.in).nextInt() * 2);\n    }\n  }\n}\n")
    kotlin_stdio = ("@file:JvmName(\"Solution\")\npackage a.b\n\n"
                    "fun main() {\n    println(readLine()!!.trim().toInt() * 2)\n}\n")
    kotlin = "@file:JvmName(\"Solution\")\npackage a.b\n\nfun twice(x: Long): Long = x * 2\n"
    entry = "@JvmStatic fun main(args: Array<String>) { println(readLine()!!.trim().toInt() * 2) }"
    nested = f"package a.b\nobject Outer {{\n  object Solver {{\n    {entry}\n  }}\n}}\n"
    companion = f"class Main {{\n  companion object Factory {{\n    {entry}\n  }}\n}}\n"
    calls = "fun main() {\n    assert(twice(3L) == 6L)\n}\n"
    loop = "fun main() {\n    for (i in 1L..3L) assert(twice(i) == 2 * i)\n}\n"
    packaged = "package a.b;\nimport java.util.*;\nclass Problem {\n" + JAVA_RIGHT
    cases = [("java", java, stdio, "correct"), ("java", java.replace("* 2", "* 3"), stdio, "wrong"),
             ("java", f"package a.b;\n{java}", stdio, "correct"),
             *(("java", code, {"type": "assert", "code": JAVA_TESTS[shape]}, verdict)
               for shape in ("multiple", "loop") for code, verdict in (
                   (packaged, "correct"), (packaged.replace("x * k", "x + k"), "wrong"))),
             ("kotlin", kotlin_stdio, stdio, "correct"),
             ("kotlin", kotlin_stdio.replace("* 2", "* 3"), stdio, "wrong"),
             ("kotlin", nested, stdio, "correct"), ("kotlin", companion, stdio, "correct"),
             ("kotlin", nested.replace("* 2", "* 3"), stdio, "wrong"),
             *((language, code, {"type": "assert", "code": tests}, verdict)
               for language, tests in (("kotlin", calls), ("kotlin", loop))
               for code, verdict in ((kotlin, "correct"), (kotlin.replace("* 2", "+ 2"), "wrong")))]
    results = run_code_items([CodeItem(language=language, response=code, limits=LIMITS,
                                       tests=tests) for language, code, tests, _ in cases])
    assert [r.status.value for r in results] == [verdict for *_, verdict in cases], results

def test_csharp_equals_on_a_primitive_converts_the_literal_as_csharp_does():
    # `x.Equals(K)` on a long or double calls its own overload when K converts to its type:
    # `5L.Equals(5)`, `0.5.Equals(0.5f)` and `(-0.0).Equals(0.0)` are true in C#.
    _installed("csharp")
    tests = ("    public static void Main(string[] args) {\n"
             "    Debug.Assert(F((1L)).Equals(5));\n    Debug.Assert(G((1L)).Equals(0.5f));\n"
             "    Debug.Assert(Z((1L)).Equals(0.0));\n    }\n\n}\n")
    right = ("    public static long F(long x) { return x + 4; }\n"
             "    public static double G(long x) { return 0.5; }\n"
             "    public static double Z(long x) { return -0.0; }\n")
    wrong = right.replace("x + 4", "x + 5")
    results = run_code_items([_item("csharp", "using System;\nusing System.Diagnostics;\n"
                                    "class Problem {\n" + code, tests) for code in (right, wrong)])
    assert [(r.status.value, r.detail.get("judged")) for r in results] == [
        ("correct", "outside"), ("wrong", "outside")], results


def test_a_public_class_nested_in_the_solution_names_no_file():
    # `public class Node` inside HumanEval-X's Solution (or "public class" in a string) is not
    # the top-level public class javac wants the file named after: the tests' Main is.
    _installed("java")
    solution = ("import java.util.*;\nclass Solution {\n    String note = \"public class X\";\n"
                "    public class Node { long v; Node(long v) { this.v = v; } }\n"
                "    public boolean even(long x) { return new Node(x).v % 2 == 0; }\n}\n")
    tests = ("public class Main {\n    public static void main(String[] args) {\n"
             "        Solution s = new Solution();\n        List<Boolean> correct = Arrays.asList("
             "s.even(4), !s.even(3));\n        if (correct.contains(false)) {\n"
             "            throw new AssertionError();\n        }\n    }\n}\n")
    result = run_code_items([_item("java", solution, tests)])[0]
    assert (result.status.value, result.detail.get("judged")) == ("correct", "outside"), result


def test_csharp_tests_run_in_process_beside_a_class_the_solution_nests():
    # A class nested in Problem before the tests' Main: the epilogue calls Problem's renamed
    # Main (not `typeof(Box)`, which the top level cannot name), in every shape.
    _installed("csharp")
    solution = ("using System;\nusing System.Diagnostics;\nusing System.Collections.Generic;\n"
                "class Problem {\n    class Box { public long V; }\n"
                + CSHARP_RIGHT.replace("o.Add(x * k)", "o.Add(new Box { V = x * k }.V)"))
    results = run_code_items([_item("csharp", solution, tests) for tests in CSHARP_TESTS.values()])
    assert [r.status.value for r in results] == ["correct"] * len(CSHARP_TESTS), results


def test_expected_values_the_tests_name_are_out_of_the_solutions_reach():
    # Kotlin's shape that names each expected value (`var v0 : String = ...`) and a Java
    # `main` binding one: the driver declares no variable that no call takes, so neither the
    # compiled class the solution reads nor anything else in the jail holds the value.
    for language in ("java", "kotlin"):
        _installed(language)
    java = ("import java.util.*;\nimport java.nio.file.*;\nclass Problem {\n"
            "    public static String name(long x) throws Exception {\n"
            "        for (Path p : (Iterable<Path>) Files.walk(Paths.get(\".\"))::iterator) {\n"
            "            if (!Files.isRegularFile(p)) continue;\n"
            "            String text = new String(Files.readAllBytes(p), \"ISO-8859-1\");\n"
            "            java.util.regex.Matcher m = java.util.regex.Pattern.compile("
            "\"zq-\" + \"expected-[0-9]+\").matcher(text);\n"
            "            if (m.find()) return m.group();\n        }\n"
            "        return \"nothing\";\n    }\n")
    java_tests = ("    public static void main(String[] args) throws Exception {\n"
                  "    String want = \"zq-expected-91\";\n"
                  "    assert(name((1l)).equals(want));\n    }\n\n}\n")
    kotlin = ("fun name(x: Long): String {\n"
              "    for (f in java.io.File(\".\").walk()) { if (!f.isFile) continue\n"
              "        val m = Regex(\"zq-\" + \"expected-[0-9]+\").find("
              "String(f.readBytes(), Charsets.ISO_8859_1))\n"
              "        if (m != null) return m.value }\n    return \"nothing\"\n}\n")
    kotlin_tests = ("fun main() {\n    var x0 : String = name(1L);\n"
                    "    var v0 : String = \"zq-expected-91\";\n    assert(x0 == v0)\n}\n")
    results = run_code_items([_item("java", java, java_tests),
                              _item("kotlin", kotlin, kotlin_tests)])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("wrong", "outside")] * 2, results


def test_go_testify_tests_that_are_not_plain_calls_run_with_the_real_testify():
    # HumanEval-X's shape with a loop: a test binary with testify from the host's Go sources
    # (golang-github-stretchr-testify-dev), the verifier's TestMain reporting.
    _installed("go")
    tests = GO_TESTS["humaneval_x"].replace(
        "    assert.Equal(true, Even(4))\n",
        "    for k := 1; k < 3; k++ {\n        assert.Equal([]int{k}, Scale([]int{1}, k))\n"
        "    }\n")
    # HumanEval-X's `test` without its `test_setup` (the package clause and the imports of
    # testing and testify): they are added, as its evaluation adds them.
    bare = tests[tests.index("func TestScale"):]
    results = run_code_items([_item("go", "package main\n" + GO_RIGHT, tests),
                              _item("go", "package main\n" + GO_WRONG, tests),
                              _item("go", GO_RIGHT, bare), _item("go", GO_WRONG, bare)])
    assert [(r.status.value, r.detail.get("judged")) for r in results] == [
        ("correct", "in_process"), ("wrong", "in_process")] * 2, results


def test_java_jdk_names_the_tests_call_are_not_the_solutions():
    # A class `Math`, `Objects` or `Arrays` of the solution's (or a field `Math`) is what the
    # in-process tests' `Math.abs(...) < 1e-9`, `Objects.equals(...)`, `Arrays.asList(...)`
    # meant: a wrong solution passed them. Such a program is refused; a right one still passes.
    _installed("java")
    right = ("    public static double half(long x) { return x / 2.0; }\n"
             "    public static boolean even(long x) { return x % 2 == 0; }\n")
    wrong = right.replace("x / 2.0", "x * 7.0").replace("== 0", "== 1")
    loop = ("    public static void main(String[] args) {\n    for (long k = 1; k < 3; k++) {\n"
            "        assert(Math.abs(half(k) - k / 2.0) < 1e-9);\n"
            "        assert(Objects.equals(even(2 * k), true));\n    }\n    }\n\n}\n")
    main = ("}\npublic class Main {\n    public static void main(String[] args) {\n"
            "        Problem s = new Problem();\n        for (long k = 1; k < 3; k++) {\n"
            "            List<Boolean> correct = Arrays.asList("
            "Math.abs(s.half(k) - k / 2.0) < 1e-9, s.even(2 * k));\n"
            "            if (correct.contains(false)) { throw new AssertionError(); }\n"
            "        }\n    }\n}\n")
    fakes = ("class Math { static double abs(double x) { return 0; } }\n"
             "class Objects { static boolean equals(Object a, Object b) { return true; } }\n"
             "class Arrays { @SafeVarargs static <T> java.util.List<T> asList(T... a) {"
             " return new java.util.ArrayList<T>(); } }\n")
    field = ("    static final class Fake { double abs(double x) { return 0; } }\n"
             "    static final Fake Math = new Fake();\n")
    items = [_item("java", f"import java.util.*;\n{top}class Problem {{\n{member}{body}", tests)
             for top, member, body, tests in (
                 ("", "", right, loop), ("", "", right, main), (fakes, "", wrong, loop),
                 (fakes, "", wrong, main), ("", field, wrong.replace("== 1", "== 0"), loop))]
    assert [r.status.value for r in run_code_items(items)] == [
        "correct", "correct", "runtime_error", "runtime_error", "runtime_error"]


def _refused(language: str, right: str, tests: str, attacks: dict[str, str]) -> None:
    """The right solution passes the in-process tests; each attack (a wrong solution declaring
    a library name the tests use) is refused (runtime_error, naming it), never rewarded."""
    _installed(language)
    items = [_item(language, right, tests),
             *(_item(language, code, tests) for code in attacks.values())]
    results = run_code_items(items)
    assert (results[0].status.value, results[0].detail.get("judged")) == (
        "correct", "in_process"), results[0]
    got = {attack: (r.status.value, "which the tests use" in str(r.detail))
           for attack, r in zip(attacks, results[1:], strict=True)}
    assert got == dict.fromkeys(attacks, ("runtime_error", True)), got


def test_go_predeclared_names_the_tests_call_are_not_the_solutions():
    # A package-level `func panic` of the solution's is what the in-process tests' `panic`
    # calls. A raw string ending in a backslash hid it from the guard (the lexer read `\` as
    # escaping the closing backquote: the rest, to the next backquote, was a string, or the
    # solution unreadable and the tests unguarded): a wrong solution scored 1.0. Each is
    # refused, saying why (the refusal itself did not compile: a compile_error).
    panic = "func panic(v interface{}) {}\n"
    _refused("go", RIGHT["go"], GO_TESTS["main"], {
        "func panic": _go(panic, "main"),
        "after a raw string ending in a backslash": _go(f"var bs = `\\`\n{panic}", "main"),
        "between raw strings": _go(f"var bs = `\\`\n{panic}var cs = `x`\n", "main")})


def test_kotlin_library_names_the_tests_call_are_not_the_solutions():
    # An `object Math`, a top-level `fun mutableListOf` or `val Math`, an import aliased as
    # `Math`, an enum constant `Math` imported, an extension `to` of the solution's were what
    # the in-process tests' `Math.abs(...)`, `mutableListOf(...)`, `k to v` meant: wrong
    # solutions passed them. Such a program is refused; a right one (with helpers) still passes.
    right = ("fun half(x: Long): Double = x / 2.0\n"
             "fun twice(v: MutableList<Long>): MutableList<Long> =\n"
             "    v.map { it * 2 }.toMutableList()\n"
             "fun pairs(k: Long): Map<Long, Long> = mapOf(k to k * 3)\n"
             "class Helper(val x: Long) { fun abs() = x }\n")
    tests = ("fun main() {\n    for (k in 1L..2L) {\n"
             "        assert(Math.abs(half(k) - k / 2.0) < 1e-9)\n"
             "        assert(mutableListOf(k * 2) == twice(mutableListOf(k)))\n"
             "        assert(mapOf(k to k * 3) == pairs(k))\n    }\n}\n")
    wrong_half = right.replace("x / 2.0", "x * 7.0")
    fake_abs = "{ fun abs(x: Double) = 0.0 }"
    attacks = {
        "object Math": f"object Math {fake_abs}\n{wrong_half}",
        "val Math": f"private val Math = object {fake_abs}\n{wrong_half}",
        "object `Math`": f"object `Math` {fake_abs}\n{wrong_half}",
        "import as Math": f"package p\nimport p.Fake as Math\nobject Fake {fake_abs}\n{wrong_half}",
        "enum constant Math imported": (f"package p\nimport p.E.*\nenum class E {{ Math; "
                                        f"fun abs(x: Double) = 0.0 }}\n{wrong_half}"),
        "fun mutableListOf": (
            "fun <T> mutableListOf(vararg x: T): MutableList<T> = java.util.ArrayList<T>()\n"
            + right.replace("v.map { it * 2 }.toMutableList()", "java.util.ArrayList<Long>()")),
        "extension to": ("infix fun <A, B> A.to(b: B): Pair<A, B> = Pair(this, this as B)\n"
                         + right.replace("k to k * 3", "k to k")),
        # A raw string has no escapes: a lexer that reads `\"` as one sees the rest as text.
        "object Math after a raw string": (f'val a = """\\"""; object Math {fake_abs}; '
                                           f'val b = "x" // "\n{wrong_half}'),
    }
    _refused("kotlin", right, tests, attacks)
    # An extension property of its own: `indices` empty, the loop over them checks nothing.
    looped = ("fun main() {\n    val got = twice(mutableListOf(1L, 2L))\n"
              "    for (i in got.indices) assert(got[i] == 2L * (i + 1))\n}\n")
    _refused("kotlin", right, looped, {"extension property indices": (
        "val <T> List<T>.indices: IntRange get() = IntRange.EMPTY\n"
        + right.replace("it * 2", "it + 2"))})


def test_scala_library_names_the_tests_call_are_not_the_solutions():
    # An `object Math`, `object List`, `def Some`, `val Math` or an import renamed `Math` in the
    # solution's object were what the in-process tests (in that object) call: wrong solutions
    # passed them. Such a program is refused; a right one (with helpers) still passes.
    right = ("    def half(x : Long) : Double = x / 2.0\n"
             "    def twice(v : List[Long]) : List[Long] = v.map(_ * 2)\n"
             "    def opt(k : Long) : Option[Long] = Some(k)\n"
             "    def check(x : Long) : Boolean = {\n        x >= 0")
    tests = ("    }\n    def main(args: Array[String]) = {\n    for (k <- 1l to 2l) {\n"
             "        assert(Math.abs(half(k) - k / 2.0) < 1e-9)\n"
             "        assert(twice(List[Long](k)).equals(List[Long](k * 2)))\n"
             "        assert(opt(k) == Some(k))\n    }\n    }\n\n}\n")
    pattern = "    val List(first, second) = List(1, 2)\n"  # a pattern, no declaration
    wrong_half = right.replace("x / 2.0", "x * 7.0")
    fake_abs = "{ def abs(x: Double) = 0.0 }"
    attacks = {
        "object Math": f"object Problem {{\n    object Math {fake_abs}\n{wrong_half}",
        "val Math": (f"import scala.language.reflectiveCalls\nobject Problem {{\n"
                     f"    val Math = new {fake_abs}\n{wrong_half}"),
        "import renamed Math": (f"object Fakes {{ object Fake {fake_abs} }}\nobject Problem {{\n"
                                f"    import Fakes.{{Fake => Math}}\n{wrong_half}"),
        "object List": ("object Problem {\n    object List { def apply[T](x: T*): "
                        "scala.List[T] = Nil; def unapplySeq[T](x: scala.List[T]) = "
                        "scala.List.unapplySeq(x) }\n" + right.replace("v.map(_ * 2)", "Nil")),
        "def Some": ("object Problem {\n    def Some(x: Long): Option[Long] = None\n"
                     + right.replace("Some(k)", "None")),
    }
    _refused("scala", "object Problem {\n" + pattern + right, tests, attacks)
    # A `math` bound by a pattern of its own.
    lower = tests.replace("Math.abs", "math.abs")
    _refused("scala", "object Problem {\n" + right, lower, {"val (math, _)": (
        "import scala.language.reflectiveCalls\nobject Problem {\n"
        f"    val (math, unused) = (new {fake_abs}, 1)\n{wrong_half}")})


def test_csharp_system_names_the_tests_call_are_not_the_solutions():
    # A class `Math` (global or nested in the tests' class), a field `Math`, `using Math =
    # Fake;`, a class `List<T>` or an extension `SequenceEqual` of the solution's were what the
    # in-process tests' `Math.Abs(...)`, `new List<long>(...)`, `.SequenceEqual(...)` meant:
    # wrong solutions passed them. Such a program is refused; a right one still passes.
    head = ("using System;\nusing System.Linq;\nusing System.Diagnostics;\n"
            "using System.Collections.Generic;\n")
    right = ("    public static double Half(long x) { return x / 2.0; }\n"
             "    public static List<long> Twice(List<long> v) { return v.Select(x => x * 2)"
             ".ToList(); }\n    class Helper { public long Count { get; set; } }\n")
    tests = ("    public static void Main(string[] args) {\n"
             "    for (long k = 1; k < 3; k++) {\n"
             "        Debug.Assert(Math.Abs(Half(k) - k / 2.0) < 1e-9);\n"
             "        Debug.Assert(Twice(new List<long>(new long[]{k})).SequenceEqual("
             "new List<long>(new long[]{k * 2})));\n    }\n    }\n\n}\n")
    wrong_half = right.replace("x / 2.0", "x * 7.0")
    fake = "{ public static double Abs(double x) { return 0; } }"
    empty = right.replace("v.Select(x => x * 2).ToList()", "new List<long>()")
    attacks = {
        "class Math": f"{head}class Math {fake}\nclass Problem {{\n{wrong_half}",
        "nested class Math": f"{head}class Problem {{\n    class Math {fake}\n{wrong_half}",
        "class @Math": f"{head}class @Math {fake}\nclass Problem {{\n{wrong_half}",
        "field Math": (f"{head}class Fake {{ public double Abs(double x) {{ return 0; }} }}\n"
                       f"class Problem {{\n    static Fake Math = new Fake();\n{wrong_half}"),
        "using Math = Fake": (f"using Math = Fake;\n{head}class Fake {fake}\n"
                              f"class Problem {{\n{wrong_half}"),
        "class List": (f"{head}class List<T> : System.Collections.Generic.List<T> {{ "
                       "public List() { } public List(T[] a) { } }\n"
                       f"class Problem {{\n{empty}"),
        "field Math after a verbatim string": (
            f'{head}class Fake {{ public double Abs(double x) {{ return 0; }} }}\n'
            f'class Problem {{\n    static string a = @"\\"; static Fake Math = new Fake(); '
            f'static string b = "x"; // "\n{wrong_half}'),
        "extension SequenceEqual": (
            f"{head}static class Ext {{ public static bool SequenceEqual<T>(this List<T> a, "
            f"List<T> b) {{ return true; }} }}\nclass Problem {{\n{empty}"),
    }
    _refused("csharp", head + "class Problem {\n" + right, tests, attacks)


# A comment or an ordinary string that says `class Math` declares nothing: a right solution with
# one was refused (the refusal read every string and comment as code). What hides a declaration
# from the lexer is still refused: a `\u002a/` that ends Java's comment, a lone carriage return
# that ends a `//` comment, Kotlin's nested comments, Scala's raw interpolator (its `\"` ends the
# string) and symbol literals, C#'s `#warning /*` and interpolated strings. Per language: a right
# solution with such notes, in-process tests that use Math, and the hiding tricks (each a wrong
# solution declaring Math).
# A comment the lexer may misread (a unicode escape), holding a control character it cannot read
# at all: its reading raised, and the tests ran unguarded, beside the solution's Math.
_UNREADABLE = "// \\u0041 \x1c\n"
_NOTES = {
    "java": ("import java.util.*;\n// class Math { } and class Objects would shadow the JDK's\n"
             "class Problem {\n    static final String NOTE = \"class Math {} class Objects {}\";\n"
             "    public static double half(long x) { return x / 2.0; }\n",
             "    public static void main(String[] args) {\n    for (long k = 1; k < 3; k++)\n"
             "        assert(Math.abs(half(k) - k / 2.0) < 1e-9);\n    }\n\n}\n",
             {"a unicode escape ending a comment": (
                 "import java.util.*;\n/* \\u002a/ class Math { static double abs(double x) { "
                 "return 0; } } /* */\nclass Problem {\n    public static double half(long x) {"
                 " return x * 7.0; }\n"),
              "a carriage return ending a comment": (
                  "import java.util.*;\n// note\rclass Math { static double abs(double x) { "
                  "return 0; } }\nclass Problem {\n    public static double half(long x) { "
                  "return x * 7.0; }\n"),
              "a unicode escape after an escaped backslash ending a string": (
                  "import java.util.*;\nclass Problem {\n    static final String A = \"\\\\"
                  "\\u0022; static class Math { static double abs(double x) { return 0; } } "
                  "static final String B = \"\";\n    public static double half(long x) { "
                  "return x * 7.0; }\n"),
              "a character the lexer cannot read": (
                  f"import java.util.*;\n{_UNREADABLE}class Math {{ static double abs(double x) "
                  "{ return 0; } }\nclass Problem {\n    public static double half(long x) { "
                  "return x * 7.0; }\n")}),
    "kotlin": ("// object Math { } and fun mutableListOf() would shadow the library's\n"
               "val note = \"object Math {}; val Math = 1; fun mutableListOf(x: Int)\"\n"
               "fun half(x: Long): Double = x / 2.0\n",
               "fun main() {\n    for (k in 1L..2L) assert(Math.abs(half(k) - k / 2.0) < 1e-9)"
               "\n}\n",
               {"a comment within a comment": (
                   "/* /* */ \" */ object Math { fun abs(x: Double) = 0.0 } // \"\n"
                   "fun half(x: Long): Double = x * 7.0\n"),
                "a character the lexer cannot read": (
                    f"{_UNREADABLE}object Math {{ fun abs(x: Double) = 0.0 }}\n"
                    "fun half(x: Long): Double = x * 7.0\n")}),
    "scala": ("object Problem {\n    // object Math { } would shadow scala's\n"
              "    val note = \"object Math {} and def Some(x: Long)\"\n"
              "    def half(x : Long) : Double = x / 2.0\n",
              "    def main(args: Array[String]) = {\n    for (k <- 1l to 2l) {\n"
              "        assert(Math.abs(half(k) - k / 2.0) < 1e-9)\n    }\n    }\n\n}\n",
              {"a raw interpolator's backslash": (
                  "object Problem {\n    val a = raw\"\\\"; object Math { def abs(x: Double) = "
                  "0.0 }; val b = \"x\" // \"\n    def half(x : Long) : Double = x * 7.0\n"),
               "a symbol literal": (
                   "object Problem {\n    val a = 'sym; object Math { def abs(x: Double) = 0.0 };"
                   " val b = 'z; val c = 'q'\n    def half(x : Long) : Double = x * 7.0\n"),
               # A keyword then a quote starts a plain string, not an interpolated one: `${`
               # opens no code there.
               "a keyword's string": (
                   "object Problem {\n    val a = if (true) 1 else\"${\"; object Math { def abs("
                   "x: Double) = 0.0 }; val b = \"}\"\n"
                   "    def half(x : Long) : Double = x * 7.0\n"),
               "a character the lexer cannot read": (
                   f"object Problem {{\n{_UNREADABLE}    object Math {{ def abs(x: Double) = 0.0 }}"
                   "\n    def half(x : Long) : Double = x * 7.0\n")}),
    "csharp": ("using System;\nusing System.Diagnostics;\n// class Math { } would shadow System's\n"
               "class Problem {\n    static string Note = \"class Math {} class List<T> {}\";\n"
               "    public static double Half(long x) { return x / 2.0; }\n",
               "    public static void Main(string[] args) {\n    for (long k = 1; k < 3; k++)\n"
               "        Debug.Assert(Math.Abs(Half(k) - k / 2.0) < 1e-9);\n    }\n\n}\n",
               {"a directive that opens a comment": (
                   "using System;\nusing System.Diagnostics;\n#warning /*\nclass Math { public "
                   "static double Abs(double x) { return 0; } }\n#warning */\nclass Problem {\n"
                   "    public static double Half(long x) { return x * 7.0; }\n"),
                "an interpolated string's quote": (
                    "using System;\nusing System.Diagnostics;\nclass Fake { public double Abs("
                    "double x) { return 0; } }\nclass Problem {\n    static string a = "
                    "$\"{\"\\\"\"}\"; static Fake Math = new Fake(); static string b = \"x\"; "
                    "// \"\n"
                    "    public static double Half(long x) { return x * 7.0; }\n"),
                # A section the compiler skips holds half a comment: read as unsure, the
                # solution's strings and comments count as code.
                "a skipped section that opens a comment": (
                    "using System;\nusing System.Diagnostics;\n#if false\n/*\n#endif\nclass Math "
                    "{ public static double Abs(double x) { return 0; } }\n#if false\n*/\n#endif\n"
                    "class Problem {\n"
                    "    public static double Half(long x) { return x * 7.0; }\n"),
                "a character the lexer cannot read": (
                    f"using System;\nusing System.Diagnostics;\n{_UNREADABLE}class Math {{ public"
                    " static double Abs(double x) { return 0; } }\nclass Problem {\n"
                    "    public static double Half(long x) { return x * 7.0; }\n")}),
}


@pytest.mark.parametrize("language", sorted(_NOTES))
def test_a_comment_or_string_naming_a_declaration_declares_nothing(language: str):
    right, tests, attacks = _NOTES[language]
    _refused(language, right, tests, attacks)
    # The calls driver's names too (`object java` would obscure its `java.lang.StringBuilder`).
    note = {"java": "// class java { } would obscure java.lang\n",
            "kotlin": "// object java { } would obscure java.lang\n",
            "scala": "// object scala { } would obscure scala.collection\n",
            "csharp": "// class System { } would obscure System.Text\n"}[language]
    result = run_code_items([_item(language, note + RIGHT[language],
                                   TESTS[language]["multiple"])])[0]
    assert (result.status.value, result.detail["judged"]) == ("correct", "outside"), result


# Right solutions in the forms models write, each with a construct a lexer of C-family text
# reads otherwise than its compiler (a `\u` escape in a string, a text block, a raw or
# interpolated string, a template holding a quote, a verbatim string, a `#region`, a symbol)
# and a note that names a declaration (`class Math`, `the List;`): they were refused (the
# refusal then read every string and comment as code). The strings and comments are read as
# the compiler reads them: in-process tests (a loop) and the calls driver both judge them.
_READ_AS_COMPILED = {
    "java": ("    // Uses Math.abs; a class Math or class java of our own would shadow the JDK's.\n"
             "    static final String ACCENT = \"\\u00e9t\u00e9 \\\\u0022 class Math {}\";\n"
             "    static final String BLOCK = \"\"\"\n        class Math { } \\\"\"\"\n"
             "        \"\"\";\n    static final char QUOTE = '\\'';\n"),
    "kotlin": ("// object Math or object java would shadow the library; returns the List;\n"
               "val raw = \"\"\"C:\\path\\ object Math {} \\\"\"\"\n"
               "val shown = \"${listOf(\"a\", \"}\").size} object Math\"\n/* outer /* inner */ "
               "class Math */\n"),
    "scala": ("    // object Math or object scala would shadow the library's; the List;\n"
              "    val path = raw\"C:\\dir\\\"\n"
              "    val shown = s\"${1 + 1} items, object Math $$\"\n"
              "    val multi = \"\"\"object Math \\\"\"\"\"\n    val sym = 'note\n"
              "    val esc = \"\\u0041 \\\" object Math\"\n"),
    "csharp": ("    // class Math or class System would shadow System's; returns the List;\n"
               "    #region helpers\n    public static string Path = @\"C:\\dir\\\";\n"
               "    public static string Shown = $\"{1 + 1:D2} items, class Math {{x}}\";\n"
               "    public static string Quoted = $@\"say \"\"class Math\"\"\";\n"
               "    public static char Quote = '\\'';\n    #endregion\n"),
}


def _with_notes(language: str, solution: str) -> str:
    """The notes at the top of the solution's class (Kotlin's: of its file)."""
    notes = _READ_AS_COMPILED[language]
    if language == "kotlin":
        return notes + solution
    head, body = solution.split("Problem {\n", 1)
    return f"{head}Problem {{\n{notes}{body}"


@pytest.mark.parametrize("language", sorted(_READ_AS_COMPILED))
def test_strings_and_comments_are_read_as_the_compiler_reads_them(language: str):
    _installed(language)
    right, loop, _ = _NOTES[language]
    results = run_code_items([_item(language, _with_notes(language, right), loop),
                              _item(language, _with_notes(language, RIGHT[language]),
                                    TESTS[language]["multiple"])])
    assert [(r.status.value, r.detail.get("judged")) for r in results] == [
        ("correct", "in_process"), ("correct", "outside")], results

# A calls driver records values in the solution's compilation unit: a wrong solution that takes
# what the driver names must not make a record say the right value. Java's and Scala's recorder
# calls sit in the solution's class (`main`), where a nested `__VerifierCalls` of its own took
# them; a top-level `java` of its own obscured the package in every `java.lang.StringBuilder` of
# the recorder (the compilers take a type or value before a package); Kotlin's `for` over a
# string called the solution's `CharSequence.iterator` extension before the library's; the
# recorders iterated a list through the `iterator` of the solution's own class. Each is
# (language, solution, tests: None for the language's MultiPL-E shape) and earns nothing.
_UNSAFE_JAVA = (
    "            java.lang.reflect.Field f = Class.forName(\"sun.misc.Unsafe\")"
    ".getDeclaredField(\"theUnsafe\");\n            f.setAccessible(true);\n"
    "            Object u = f.get(null);\n            Class<?> c = u.getClass();\n"
    "            long off = (Long) c.getMethod(\"objectFieldOffset\", java.lang.reflect.Field"
    ".class).invoke(u, Long.class.getDeclaredField(\"value\"));\n"
    "            c.getMethod(\"putLong\", Object.class, long.class, long.class)"
    ".invoke(u, Long.valueOf(3L), off, 7L);\n")
_FORWARDED = 'Class.forName("__VerifierCalls{module}")'  # the recorder, called with a fake
_LONGS_RIGHT = r'"4],[\"y\",\"Long\",5]", "3],[\"y\",\"Long\",6]"'
DRIVER_ATTACKS = {
    "java nested __VerifierCalls": ("java", (
        "import java.util.*;\nclass Problem {\n    static class __VerifierCalls {\n"
        "        static void record(int site, Object v) throws Exception {\n"
        f"            {_FORWARDED.format(module='')}.getDeclaredMethod(\"record\", int.class, "
        "Object.class)\n                .invoke(null, site, site == 0 ? Arrays.asList(3L, 6L) : v);"
        "\n        }\n    }\n" + JAVA_WRONG), None),
    "java ArrayList with an iterator of its own": ("java", (
        "import java.util.*;\nclass Problem {\n" + JAVA_WRONG.replace(
            "new ArrayList<>();", "new ArrayList<Long>() {\n            public Iterator<Long> "
            "iterator() { return Arrays.asList(3L, 6L).iterator(); }\n        };")), None),
    "kotlin ArrayList with an iterator of its own": ("kotlin", KOTLIN_WRONG.replace(
        "v.map { it + k }.toMutableList()", "object : java.util.ArrayList<Long>(v.map { it + k })"
        " {\n    override fun iterator(): MutableIterator<Long> = mutableListOf(3L, 6L)"
        ".iterator()\n}"), None),
    "scala Seq with an iterator of its own": ("scala", (
        "object Problem {\n    class Lying(xs: List[Long]) extends scala.collection.immutable."
        "Seq[Long] {\n      def apply(i: Int) = xs(i); def length = xs.length\n"
        "      def iterator = List(3L, 6L).iterator\n    }\n" + SCALA_WRONG.replace(
            ": List[Long] = v.map(_ + k)", ": Seq[Long] = new Lying(v.map(_ + k))")), None),
    "csharp List re-implementing IEnumerable": ("csharp", (
        "using System;\nusing System.Diagnostics;\nusing System.Collections.Generic;\n"
        "class Lying : List<long>, System.Collections.IEnumerable {\n"
        "    System.Collections.IEnumerator System.Collections.IEnumerable.GetEnumerator() {\n"
        "        return new List<long> { 3L, 6L }.GetEnumerator(); }\n}\nclass Problem {\n"
        + CSHARP_WRONG.replace("new List<long>();", "new Lying();")), None),
    # The recorders trusted a class by its name's package: one the solution declares in
    # org.javatuples or scala is its own, with an iterator that says anything.
    "java a list of its own in package org.javatuples": ("java", (
        "package org.javatuples;\nimport java.util.*;\nclass Problem {\n"
        "    static class Lying extends ArrayList<Long> {\n        public Iterator<Long> "
        "iterator() { return Arrays.asList(3L, 6L).iterator(); }\n    }\n"
        + JAVA_WRONG.replace("new ArrayList<>();", "new Lying();")), None),
    "scala a Seq of its own in package scala": ("scala", (
        "package scala.mine\nobject Problem {\n    class Lying(xs: List[Long]) extends scala."
        "collection.immutable.Seq[Long] {\n      def apply(i: Int) = xs(i); def length = "
        "xs.length\n      def iterator = List(3L, 6L).iterator\n    }\n" + SCALA_WRONG.replace(
            ": List[Long] = v.map(_ + k)", ": Seq[Long] = new Lying(v.map(_ + k))")), None),
    # sun.misc.Unsafe (module jdk.unsupported) writes into any object: the Long the driver
    # boxes f's 3 into (the cached Long.valueOf(3)) then says 7. Runs have the java.se modules
    # only, so it is not there (the solution returns 3).
    "java Unsafe rewrites the cached Long": ("java", (
        "class Problem {\n    static {\n        try {\n" + _UNSAFE_JAVA + "        } catch "
        "(Exception e) { }\n    }\n    public static long f(long x) { return x; }\n"),
        "    public static void main(String[] args) {\n    assert(f((3l)) == (7l));\n    }\n\n}\n"),
    "kotlin Unsafe rewrites the cached Long": ("kotlin", (
        "val poisoned = try {\n    val f = Class.forName(\"sun.misc.Unsafe\")"
        ".getDeclaredField(\"theUnsafe\")\n    f.isAccessible = true\n    val u = f.get(null)!!\n"
        "    val off = u.javaClass.getMethod(\"objectFieldOffset\", java.lang.reflect.Field::class"
        ".java).invoke(u, java.lang.Long::class.java.getDeclaredField(\"value\")) as Long\n"
        "    u.javaClass.getMethod(\"putLong\", Any::class.java, java.lang.Long.TYPE, java.lang."
        "Long.TYPE).invoke(u, java.lang.Long.valueOf(3L), off, 7L)\n    true\n"
        "} catch (e: Exception) { false }\nfun f(x: Long): Long = x\n"),
        "fun main() {\n    assert(7L == f(3L))\n}\n"),
    "scala Unsafe rewrites the cached Long": ("scala", (
        "object Problem {\n  val poisoned = try {\n    val f = Class.forName(\"sun.misc.Unsafe\")"
        ".getDeclaredField(\"theUnsafe\")\n    f.setAccessible(true)\n    val u = f.get(null)\n"
        "    val off = u.getClass.getMethod(\"objectFieldOffset\", classOf[java.lang.reflect."
        "Field]).invoke(u, classOf[java.lang.Long].getDeclaredField(\"value\"))\n"
        "    u.getClass.getMethod(\"putLong\", classOf[Object], java.lang.Long.TYPE, java.lang."
        "Long.TYPE).invoke(u, java.lang.Long.valueOf(3L), off, java.lang.Long.valueOf(7L))\n"
        "    true\n  } catch { case e: Exception => false }\n  def f(x: Long): Long = x\n"),
        "    def main(args: Array[String]) = {\n    assert(f((3l)) == (7l));\n    }\n\n}\n"),
    # A view or wrapper of the JDK's over a collection of its own: the JDK's class is the
    # bootstrap loader's, but what it reads is the solution's (its iterator says [3, 6]).
    "java an unmodifiable view of a list of its own": ("java", (
        "import java.util.*;\nclass Problem {\n    static class Lying extends ArrayList<Long> {\n"
        "        public Iterator<Long> iterator() { return Arrays.asList(3L, 6L).iterator(); }\n"
        "    }\n" + JAVA_WRONG.replace("ArrayList<Long> scale", "List<Long> scale").replace(
            "new ArrayList<>();", "new Lying();").replace(
            "return out;", "return Collections.unmodifiableList(out);")), None),
    "java an unmodifiable view of a map of its own": ("java", (
        "import java.util.*;\nclass Problem {\n    static class Lying extends HashMap<String, "
        "Long> {\n        public Set<Map.Entry<String, Long>> entrySet() { return Map.of(\"a\", 3L)"
        ".entrySet(); }\n    }\n"
        "    public static Map<String, Long> m(long x) { Lying out = new Lying(); "
        "out.put(\"a\", x + 1); return Collections.unmodifiableMap(out); }\n"),
        "    public static void main(String[] args) {\n    assert(m((1l)).equals((new "
        "HashMap<String,Long>(Map.of(\"a\", 3l)))));\n    }\n\n}\n"),
    # A proxy of List given no class loader is defined by the bootstrap one, which the
    # recorders took for the JDK's: its handler answered the iteration (and `equals`, which it
    # answers with null, fails in the language).
    "java a proxy of List": ("java", (
        "import java.util.*;\nclass Problem {\n    @SuppressWarnings(\"unchecked\")\n"
        "    public static List<Long> lst(long a) {\n        return (List<Long>) java.lang.reflect"
        ".Proxy.newProxyInstance(null, new Class<?>[]{List.class}, (p, m, args) -> m.getName()"
        ".equals(\"iterator\") ? Arrays.asList(a + 2).iterator() : null);\n    }\n"),
        "    public static void main(String[] args) {\n    assert(lst((5l)).equals((new "
        "ArrayList<Long>(Arrays.asList((long)7l)))));\n    }\n\n}\n"),
    "kotlin a proxy of List": ("kotlin", (
        "@Suppress(\"UNCHECKED_CAST\")\nfun lst(a: Long): List<Long> = java.lang.reflect.Proxy."
        "newProxyInstance(null, arrayOf<Class<*>>(java.util.List::class.java)) { _, m, _ -> if "
        "(m.name == \"iterator\") mutableListOf(a + 2).iterator() else null } as List<Long>\n"),
        "fun main() {\n    assert(lst(5L) == mutableListOf(7L))\n}\n"),
    "scala a proxy of List": ("scala", (
        "object Problem {\n  def lst(a: Long): java.util.List[Long] = java.lang.reflect.Proxy."
        "newProxyInstance(null, Array[Class[_]](classOf[java.util.List[_]]), new java.lang."
        "reflect.InvocationHandler { def invoke(p: Object, m: java.lang.reflect.Method, args: "
        "Array[Object]): Object = if (m.getName == \"iterator\") java.util.Arrays.asList(java."
        "lang.Long.valueOf(a + 2)).iterator() else null }).asInstanceOf[java.util.List[Long]]\n"),
        "    def main(args: Array[String]) = {\n    assert(lst((5l)).equals((List[Long](7l))));\n"
        "    }\n\n}\n"),
    # The same views in Kotlin and Scala (Kotlin's own `asReversed` too, and Scala's wrapper of
    # a Java list, `asScala`): the library's class, the solution's iterator.
    "kotlin an unmodifiable view of a list of its own": ("kotlin", (
        "class Lying : java.util.ArrayList<Long>() {\n    override fun iterator(): "
        "MutableIterator<Long> = mutableListOf(7L).iterator()\n}\nfun lst(a: Long): List<Long> "
        "{ val out = Lying(); out.add(a); return java.util.Collections.unmodifiableList(out) }\n"),
        "fun main() {\n    assert(lst(5L) == mutableListOf(7L))\n}\n"),
    "kotlin a reversed view of a list of its own": ("kotlin", (
        "class Lying : java.util.AbstractList<Long>() {\n    override fun get(index: Int): Long = "
        "7L\n    override val size: Int get() = 1\n}\nfun lst(a: Long): List<Long> = "
        "Lying().asReversed()\n"),
        "fun main() {\n    assert(lst(5L) == mutableListOf(7L))\n}\n"),
    "scala an unmodifiable view of a list of its own": ("scala", (
        "object Problem {\n  class Lying extends java.util.ArrayList[Long] {\n    override def "
        "iterator(): java.util.Iterator[Long] = java.util.Arrays.asList(java.lang.Long.valueOf("
        "7L)).iterator().asInstanceOf[java.util.Iterator[Long]]\n  }\n  def lst(a: Long): "
        "java.util.List[Long] = { val out = new Lying(); out.add(a); "
        "java.util.Collections.unmodifiableList(out) }\n"),
        "    def main(args: Array[String]) = {\n    assert(lst((5l)).equals((List[Long](7l))));\n"
        "    }\n\n}\n"),
    "scala a wrapper of a java list of its own": ("scala", (
        "object Problem {\n  import scala.collection.JavaConverters._\n  class Lying extends "
        "java.util.AbstractList[Long] {\n    def get(i: Int): Long = 7L\n    def size(): Int = 1\n"
        "  }\n  def lst(a: Long): Seq[Long] = new Lying().asScala\n"),
        "    def main(args: Array[String]) = {\n    assert(lst((5l)).equals((List[Long](7l))));\n"
        "    }\n\n}\n"),
    # The C# recorder trusted any type from an assembly other than the program's: one the
    # solution emits at run time (Reflection.Emit) re-implementing IEnumerable, or a
    # transparent proxy, which says it is of the interface it proxies (mscorlib's).
    "csharp a type emitted at run time": ("csharp", (
        "using System;\nusing System.Diagnostics;\nusing System.Collections.Generic;\n"
        "using E = System.Reflection.Emit;\nusing A = System.Reflection.MethodAttributes;\n"
        "class Problem {\n    public static List<long> Right = new List<long> { 3L, 6L };\n"
        "    public static List<long> Scale(List<long> v, long k) {\n"
        "        var tb = E.AssemblyBuilder.DefineDynamicAssembly(new System.Reflection."
        "AssemblyName(\"X\"), E.AssemblyBuilderAccess.Run).DefineDynamicModule(\"X\")"
        ".DefineType(\"Lying\", System.Reflection.TypeAttributes.Public, typeof(List<long>), "
        "new[] { typeof(System.Collections.IEnumerable) });\n"
        "        var each = typeof(System.Collections.IEnumerable).GetMethod(\"GetEnumerator\");\n"
        "        var m = tb.DefineMethod(\"Each\", A.Private | A.Virtual | A.HideBySig | "
        "A.NewSlot | A.Final, typeof(System.Collections.IEnumerator), Type.EmptyTypes);\n"
        "        var il = m.GetILGenerator();\n"
        "        il.Emit(E.OpCodes.Ldsfld, typeof(Problem).GetField(\"Right\"));\n"
        "        il.Emit(E.OpCodes.Callvirt, each);\n        il.Emit(E.OpCodes.Ret);\n"
        "        tb.DefineMethodOverride(m, each);\n"
        "        var o = (List<long>) Activator.CreateInstance(tb.CreateType());\n"
        "        foreach (var x in v) o.Add(x + k);\n        return o;\n    }\n"
        "    public static bool Even(long x) { return x % 2 == 0; }\n"), None),
    "csharp a transparent proxy": ("csharp", (
        "using System;\nusing System.Diagnostics;\nusing System.Collections.Generic;\n"
        "using System.Linq;\nusing M = System.Runtime.Remoting.Messaging;\n"
        "class P : System.Runtime.Remoting.Proxies.RealProxy {\n    long a;\n"
        "    public P(long a) : base(typeof(IEnumerable<long>)) { this.a = a; }\n"
        "    public override M.IMessage Invoke(M.IMessage msg) {\n"
        "        var call = (M.IMethodCallMessage) msg;\n        return new M.ReturnMessage("
        "((IEnumerable<long>) new List<long> { a + 2 }).GetEnumerator(), null, 0, "
        "call.LogicalCallContext, call);\n    }\n}\nclass Problem {\n"
        "    public static IEnumerable<long> Lst(long a) { return (IEnumerable<long>) new P(a)"
        ".GetTransparentProxy(); }\n"),
        "    public static void Main(string[] args) {\n    Debug.Assert(Lst((5L)).SequenceEqual(("
        "new List<long>(new long[]{(long)7L}))));\n    }\n\n}\n"),
    "scala nested __VerifierCalls": ("scala", (
        "object Problem {\n    object __VerifierCalls {\n"
        "      def record(site: Int, value: Any): Unit = {\n"
        f"        val c = {_FORWARDED.format(module='$')}\n"
        "        c.getDeclaredMethod(\"record\", classOf[Int], classOf[Any]).invoke(c.getField("
        "\"MODULE$\").get(null),\n          Integer.valueOf(site), (if (site == 0) List[Long]("
        "3L, 6L) else value).asInstanceOf[AnyRef])\n      }\n    }\n" + SCALA_WRONG), None),
    "scala object java": ("scala", (
        "object java {\n  object lang {\n    type StringBuilder = _root_.java.lang.StringBuilder\n"
        "    type String = _root_.java.lang.String\n    object String {\n"
        "      def format(f: String, a: AnyRef*): String = f\n"
        "      def valueOf(c: Char): String = _root_.java.lang.String.valueOf(c)\n    }\n"
        "    object Double {\n      def isNaN(d: scala.Double): Boolean = d != d\n"
        "      val POSITIVE_INFINITY = _root_.java.lang.Double.POSITIVE_INFINITY\n"
        "      val NEGATIVE_INFINITY = _root_.java.lang.Double.NEGATIVE_INFINITY\n"
        "      def toString(d: scala.Double): String = _root_.java.lang.Double.toString(d)\n"
        "    }\n    object Integer { def valueOf(i: Int): _root_.java.lang.Integer = "
        "_root_.java.lang.Integer.valueOf(i) }\n  }\n  object io {\n"
        "    type OutputStream = _root_.java.io.OutputStream\n"
        "    class FileOutputStream(p: String) extends _root_.java.io.FileOutputStream(p) {\n"
        "      override def write(b: Array[Byte]): Unit = super.write(new String(b, \"US-ASCII\")"
        f".replace(\n        {_LONGS_RIGHT}).getBytes(\"US-ASCII\"))\n    }}\n  }}\n"
        "  object nio { object charset { object StandardCharsets {\n"
        "    val US_ASCII = _root_.java.nio.charset.StandardCharsets.US_ASCII } } }\n"
        "  object util { type List[A] = _root_.java.util.List[A] }\n}\n"
        "object Problem {\n" + SCALA_WRONG), None),
    "kotlin object java": ("kotlin", (
        "import java.io.FileOutputStream as Fos\nobject java {\n    object lang {\n"
        "        class StringBuilder {\n            val b = kotlin.text.StringBuilder()\n"
        "            fun append(x: Any?): StringBuilder { b.append(x); return this }\n"
        f"            override fun toString() = b.toString().replace({_LONGS_RIGHT})\n"
        "        }\n        object String { fun format(f: kotlin.String, vararg a: Any?): "
        "kotlin.String = f }\n        object Double {\n"
        "            fun toString(d: kotlin.Double): kotlin.String = d.toString()\n"
        "            fun isNaN(d: kotlin.Double): Boolean = d != d\n        }\n    }\n"
        "    object io {\n        open class OutputStream(p: kotlin.String) {\n"
        "            val f = Fos(p)\n            fun write(b: ByteArray) = f.write(b)\n"
        "            fun flush() = f.flush()\n        }\n"
        "        class FileOutputStream(p: kotlin.String) : OutputStream(p)\n    }\n}\n"
        + KOTLIN_WRONG), None),
    "kotlin CharSequence.iterator extension": ("kotlin", (
        "fun s(n: Long): String = \"bye\"\n"
        "operator fun CharSequence.iterator(): CharIterator = object : CharIterator() {\n"
        "    val s = if (this@iterator.toString() == \"bye\") \"hi\" else this@iterator.toString()"
        "\n    var i = 0\n    override fun hasNext() = i < s.length\n"
        "    override fun nextChar() = s[i++]\n}\n"),
        "fun main() {\n  assert(s(1L) == \"hi\")\n}\n"),
}


@pytest.mark.parametrize("attack", sorted(DRIVER_ATTACKS))
def test_the_recorder_is_out_of_the_solutions_reach(attack: str):
    language, solution, tests = DRIVER_ATTACKS[attack]
    _installed(language)
    result = run_code_items([_item(language, solution, tests or TESTS[language]["multiple"])])[0]
    assert result.reward == 0.0 and result.detail["judged"] == "outside", result
    assert result.status.value in ("wrong", "runtime_error"), result


def test_collections_of_classes_the_solution_wrote_no_method_of_are_read():
    # Double-brace initialisation makes a subclass of ArrayList that declares no method; C#'s
    # compiler makes a `yield` method's iterator: what the recorder calls on them is the
    # library's or what the solution's source yields, so right solutions so written pass.
    _installed("java")
    _installed("csharp")
    java = "import java.util.*;\nclass Problem {\n" + JAVA_RIGHT.replace(
        "new ArrayList<>(); for (long x : v) out.add(x * k);",
        "new ArrayList<Long>() {{ for (long x : v) add(x * k); }};")
    csharp = RIGHT["csharp"].replace("class Problem {\n", (
        "class Problem {\n    static IEnumerable<long> Each(List<long> v, long k) {\n"
        "        foreach (var x in v) yield return x * k; }\n")).replace(
        "public static List<long> Scale(List<long> v, long k) {\n        var o = new List<long>()"
        "; foreach (var x in v) o.Add(x * k); return o; }",
        "public static IEnumerable<long> Scale(List<long> v, long k) { return Each(v, k); }")
    assert "yield" in csharp and "IEnumerable<long> Scale" in csharp
    results = run_code_items([_item("java", java, JAVA_TESTS["multiple"]),
                              _item("csharp", csharp, CSHARP_TESTS["multiple"])])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("correct", "outside")] * 2, results


def test_java_collections_of_the_jdks_that_hold_their_elements_are_read():
    # What right solutions return: an ArrayList's subList, List.of, Arrays.asList and its
    # subList (HumanEval-X's Java/148), a singleton, a stream's toList, a TreeMap; each read as
    # the values it holds (a view or wrapper of the JDK's, which reads through what it wraps,
    # equals nothing).
    _installed("java")
    returns = {"new ArrayList<>(Arrays.asList(3L, 6L, 9L)).subList(0, 2)": True,
               "List.of(3L, 6L)": True, "Arrays.asList(3L, 6L)": True,
               "java.util.stream.Stream.of(3L, 6L).toList()": True,
               "new LinkedList<>(List.of(3L, 6L))": True,
               "Arrays.asList(9L, 3L, 6L).subList(1, 3)": True,
               "Collections.unmodifiableList(new ArrayList<>(List.of(3L, 6L)))": False}
    items = [_item("java", "import java.util.*;\nclass Problem {\n    public static List<Long> "
                   f"scale(ArrayList<Long> v, long k) {{ return {value}; }}\n"
                   "    public static boolean even(long x) { return x % 2 == 0; }\n",
                   JAVA_TESTS["multiple"]) for value in returns]
    items.append(_item("java", "import java.util.*;\nclass Problem {\n    public static "
                       "Map<String, Long> m(long x) { return new TreeMap<>(Map.of(\"a\", 3L)); }\n",
                       "    public static void main(String[] args) {\n    assert(m((1l)).equals("
                       "(new HashMap<String,Long>(Map.of(\"a\", 3l)))));\n    }\n\n}\n"))
    results = run_code_items(items)
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("correct" if read else "wrong", "outside") for read in returns.values()] + [
        ("correct", "outside")], results


def test_kotlin_and_scala_collections_of_the_libraries_that_hold_their_elements_are_read():
    # What right solutions return, read as the values they hold; a view (Kotlin's asReversed,
    # a JDK wrapper) equals nothing.
    _installed("kotlin")
    _installed("scala")
    kotlin = {"v.map { it * k }": True, "v.map { it * k }.toList()": True,
              "listOf(v[0] * k, v[1] * k)": True, "v.map { it * k }.sorted()": True,
              "ArrayList(v.map { it * k }).subList(0, 2)": True,
              "v.map { it * k }.reversed().reversed()": True,
              "v.map { it * k }.toLongArray().asList()": True,
              "java.util.Collections.unmodifiableList(v.map { it * k })": False}
    scala = {"v.map(_ * k)": True, "v.map(_ * k).toVector.toList": True,
             "v.map(_ * k).sorted": True, "(v.map(_ * k) ++ Nil).reverse.reverse": True}
    items = [_item("kotlin", f"fun scale(v: MutableList<Long>, k: Long): List<Long> = {value}\n"
                   "fun even(x: Long): Boolean = x % 2 == 0L\n", KOTLIN_TESTS["multiple"])
             for value in kotlin]
    items += [_item("scala", RIGHT["scala"].replace("v.map(_ * k)", value), SCALA_TESTS["multiple"])
              for value in scala]
    items.append(_item("kotlin", "fun m(x: Long): Map<String, Long> = mapOf(\"a\" to x + 2)\n",
                       "fun main() {\n    assert(m(1L) == mapOf(\"a\" to 3L))\n}\n"))
    results = run_code_items(items)
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("correct" if read else "wrong", "outside") for read in [*kotlin.values(),
                                                                  *scala.values()]] + [
        ("correct", "outside")], results


def test_java_a_class_the_solution_defines_in_the_javatuples_package_is_its_own(tmp_path):
    # MethodHandles.privateLookupIn a javatuples class gives a lookup that defines any class in
    # org.javatuples, loaded as the jar's are, with the jar's protection domain: the recorder
    # took such a class (an ArrayList whose iterator says [3, 6]) for javatuples'.
    _installed("java")
    source = tmp_path / "org" / "javatuples" / "Lying.java"
    source.parent.mkdir(parents=True)
    source.write_text("package org.javatuples;\npublic class Lying extends java.util."
                      "ArrayList<Long> {\n    public java.util.Iterator<Long> iterator() {"
                      " return java.util.Arrays.asList(3L, 6L).iterator(); }\n}\n")
    subprocess.run([shutil.which("javac"), "--release", "17", "-d", str(tmp_path), str(source)],
                   check=True)
    lying = base64.b64encode((source.parent / "Lying.class").read_bytes()).decode()
    solution = (
        "import java.util.*;\nimport java.lang.invoke.MethodHandles;\nclass Problem {\n"
        "    @SuppressWarnings(\"unchecked\")\n"
        "    public static ArrayList<Long> scale(ArrayList<Long> v, long k) {\n        try {\n"
        f"        byte[] b = Base64.getDecoder().decode(\"{lying}\");\n"
        "        Class<?> c = MethodHandles.privateLookupIn(Class.forName(\"org.javatuples.Unit\"),"
        " MethodHandles.lookup()).defineClass(b);\n"
        "        ArrayList<Long> out = (ArrayList<Long>) c.getDeclaredConstructor()"
        ".newInstance();\n"
        "        for (long x : v) out.add(x + k);\n        return out;\n"
        "        } catch (ReflectiveOperationException e) { throw new RuntimeException(e); }\n"
        "    }\n"
        "    public static boolean even(long x) { return x % 2 == 0; }\n")
    result = run_code_items([_item("java", solution, JAVA_TESTS["multiple"])])[0]
    assert (result.reward, result.detail["judged"]) == (0.0, "outside"), result
    # javatuples' own tuples are still read, by the values they hold.
    pair = ("import java.util.*;\nimport org.javatuples.*;\nclass Problem {\n    public static "
            "Pair<Long, Long> two(long x) { return Pair.with(x, x * 2); }\n")
    tests = ("    public static void main(String[] args) {\n    assert(two((3l)).equals("
             "(Pair.with(3l, 6l))));\n    }\n\n}\n")
    results = run_code_items([_item("java", pair, tests),
                              _item("java", pair.replace("x * 2", "x * 3"), tests)])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("correct", "outside"), ("wrong", "outside")], results
