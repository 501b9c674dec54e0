"""Calls dialects of Java, Kotlin, Scala, C# and Go without the jail: which tests are plain
calls (MultiPL-E's and HumanEval-X's shapes), what the worker expects with each language's
typing, how it compares, and that nothing the tests hold breaks the parsers."""

from __future__ import annotations

import contextlib
import math
import random
import re
import time

import pytest

from verifier.kinds.code.dialects import DIALECTS, calls_plan, in_process_program
from verifier.kinds.code.dialects.core import Check, NotPlainCalls
from verifier.kinds.code.dialects.go_format import format_float, sprint_v
from verifier.kinds.code.dialects.lexer import tokenize
from verifier.kinds.code.dialects.values import Map, OfType, Opaque, SetOf, Some, read_records

# Our own problems, written as each translator writes its tests.
MULTIPLE_JAVA = """    }
    public static void main(String[] args) {
    assert(closeElements((new ArrayList<Float>(Arrays.asList((float)1.0f, (float)2.5f))), (0.3f)) \
== (true));
    assert(makeAPile((3l)).equals((new ArrayList<Long>(Arrays.asList((long)3l, (long)5l)))));
    assert(evenOdd((12l)).equals((Pair.with(4l, 6l))));
    assert(histogram(("a b")).equals((new HashMap<String,Long>(Map.of("a", 1l, "b", 1l)))));
    assert(longest((new ArrayList<String>(Arrays.asList()))).equals(Optional.empty()));
    assert(longest((new ArrayList<String>(Arrays.asList((String)"x")))).equals(Optional.of("x")));
    assert(mean((new ArrayList<Long>(Arrays.asList((long)1l)))) == (1.5f));
    }

}
"""
HUMANEVAL_X_JAVA = """public class Main {
    public static void main(String[] args) {
        Solution s = new Solution();
        List<Boolean> correct = Arrays.asList(
                s.sortThird(new ArrayList<>(Arrays.asList(5, 6, 3))).equals(Arrays.asList(3, 6, 5)),
                !s.isPrime(6),
                s.isPrime(7),
                s.triangleArea(5, 3) == 7.5,
                Objects.equals(s.changeBase(8, 3), "22"),
                s.nextSmallest(new ArrayList<>(List.of())).isEmpty(),
                s.nextSmallest(new ArrayList<>(Arrays.asList(1, 2))).get() == 2,
                Objects.equals(s.longest(new ArrayList<>(Arrays.asList("x"))).get(), "x"),
                Math.abs(s.mean(Arrays.asList(1.0, 2.0)) - 1.5) < 1e-6,
                s.concat("ab" + "cd").equals("abcd")
        );
        if (correct.contains(false)) {
            throw new AssertionError();
        }
    }
}
"""
MULTIPLE_CSHARP = """    }
    public static void Main(string[] args) {
    Debug.Assert(Add((1L), (2L)) == (3L));
    Debug.Assert(SortArray((new List<long>(new long[]{(long)5L, (long)1L}))).Equals((new \
List<long>(new long[]{(long)1L, (long)5L}))));
    Debug.Assert(Words(("a b")).Equals((new List<string>(new string[]{(string)"a", (string)"b"}))));
    Debug.Assert(Hist(("a")).Equals((new Dictionary<string,long>(){{"a", 1L}})));
    Debug.Assert(Pair((1L)).Equals((Tuple.Create(1L, 2L))));
    Debug.Assert(Half((3L)) == (1.5f));
    Debug.Assert(Grid((new List<List<long>>(new List<long>[]{(List<long>)new List<long>(new \
long[]{(long)0L})}))) == (0L));
    }

}
"""
MULTIPLE_KOTLIN = """fun main() {
  assert(mutableListOf(2, 4) == generateIntegers(2, 4));
  assert(mutableListOf<Any>() == generateIntegers(17, 89));
  assert(0.5 == mean(mutableListOf(1.0, 2.0)));
  assert("b" == name(1));
  assert(mapOf("a" to 1L) == hist("a"));
  assert(Pair(1L, 2L) == pair(1L));
}
"""
VAR_KOTLIN = """fun main() {
    var arg00 : MutableList<Long> = mutableListOf(1L, 2L)
    var x0 : Long = total(arg00);
    var v0 : Long = 3;
    assert(x0 == v0)
    var x1 : Long = total(mutableListOf(2L));
    var v1 : Long = 2L;
    if (x1 != v1) {
        throw Exception("Exception -- test case 1 did not pass. x1 = " + x1)
    }
}
"""
MULTIPLE_SCALA = """    }
    def main(args: Array[String]) = {
    assert(closeElements((List[Float](1.0f.toFloat, 2.0f)), (0.3f)) == (true));
    assert(sortArray((List[Long](5l, 1l))).equals((List[Long](1l.toLong, 5l))));
    assert(evenOdd((12l)).equals(((4l, 6l))));
    assert(histogram(("a b")).equals((Map[String,Long]("a" -> 1l, "b" -> 1l))));
    assert(longest((List[String]())).equals(None));
    assert(longest((List[String]("x"))).equals(Some("x")));
    }

}
"""
HUMANEVAL_X_GO = """package main

import (
    "testing"
    "math"
    "github.com/stretchr/testify/assert"
)
func TestAll(t *testing.T) {
    assert := assert.New(t)
    assert.Equal(5, Add(2, 3))
    assert.Equal([]int{1, 2}, Sorted([]int{2, 1}))
    assert.Equal([]string{}, Filter([]string{"a"}, "b"))
    assert.Equal(nil, NextSmallest([]int{}))
    assert.Equal(true, math.Abs(Mean([]float64{1.0, 2.0})-2.0/3.0) < 1e-6)
    assert.Equal([2]int{1, 2}, Pair(1), "a message")
    assert.Equal(map[string]int{"a": 1}, Histogram("a"))
    assert.Equal([][2]int{{0, 0}, {1, 4}}, GetRow([][]int{
        {1, 2},
        {3, 4},
    }, 1))
    assert.Equal(t, 0.5, Half(1))
}
"""
MULTIPLE_GO = """func TestAdd(t *testing.T) {
  candidate := add
	type test struct {
		actual   interface{}
		expected interface{}
	}
   tests := []test{
     { actual: candidate(2, 3), expected: 5 },
     { actual: candidate(1, 1), expected: 2.0 },
     { actual: candidate(0, 0), expected: []int{} },
   }

	for i, tc := range tests {
		t.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {
			if fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {
				t.Errorf("expected '%s', got '%s'", tc.expected, tc.actual)
			}
		})
	}
}
"""
MAIN_GO = 'func main() {\n    if add(1, 2) != 3 { panic("assertion failed") }\n}\n'


def checks(language: str, tests: str) -> list[Check]:
    return [site.check for site in DIALECTS[language].plan(tests).sites]


def test_java_shapes_are_read_with_javas_types():
    found = checks("java", MULTIPLE_JAVA)
    assert [c.expected for c in found] == [
        True, [OfType("Long", 3), OfType("Long", 5)], (OfType("Long", 4), OfType("Long", 6)),
        Map((("a", OfType("Long", 1)), ("b", OfType("Long", 1)))), OfType("Optional", None),
        Some("x"), OfType("Float", 1.5)]
    assert [c.how for c in found] == ["==", "equals", "equals", "equals", "equals", "equals",
                                      "=="]
    x = checks("java", HUMANEVAL_X_JAVA)
    assert [(c.kind, c.negated) for c in x] == [
        ("equal", False), ("truth", True), ("truth", False), ("equal", False), ("equal", False),
        ("empty", False), ("equal", False), ("equal", False), ("close", False), ("equal", False)]
    assert x[0].expected == [OfType("Integer", 3), OfType("Integer", 6), OfType("Integer", 5)]
    assert x[6].expected == Some(OfType("Integer", 2)) and x[7].expected == Some("x")
    assert x[9].expected == "abcd"


def test_csharp_kotlin_scala_shapes():
    cs = checks("csharp", MULTIPLE_CSHARP)
    assert cs[0].expected == OfType("Int64", 3) and cs[0].how == "=="
    assert cs[1].expected == [OfType("Int64", 1), OfType("Int64", 5)]
    assert cs[3].expected == Map((("a", OfType("Int64", 1)),))
    assert cs[4].expected == (OfType("Int64", 1), OfType("Int64", 2))
    assert cs[5].expected == OfType("Single", 1.5)
    kt = checks("kotlin", MULTIPLE_KOTLIN)
    assert kt[0].expected == [OfType("Integer", 2), OfType("Integer", 4)]
    assert kt[2].expected == OfType("Double", 0.5) and kt[4].expected == Map(
        (("a", OfType("Long", 1)),))
    assert checks("kotlin", VAR_KOTLIN)[0].expected == OfType("Long", 3)  # `: Long = 3`
    sc = checks("scala", MULTIPLE_SCALA)
    assert [c.how for c in sc] == ["cooperative"] * 6
    assert sc[2].expected == (OfType("Long", 4), OfType("Long", 6))
    assert sc[4].expected == OfType("Option", None) and sc[5].expected == Some("x")


# Shapes of MultiPL-E's current translators: C#'s SequenceEqual (nuprl/MultiPL-E#71), casts
# of generic types (with a comma in their type arguments), Scala's negative `.toLong`s.
CURRENT_SHAPES = {
    "csharp": ("    }\n    public static void Main(string[] args) {\n"
               "    Debug.Assert(Row((new List<List<long>>(new List<long>[]{(List<long>)new "
               "List<long>(new long[]{(long)1L})})), (1L)).SequenceEqual((new List<Tuple<long, "
               "long>>(new Tuple<long, long>[]{(Tuple<long, long>)Tuple.Create(0L, 0L)}))));\n"
               "    Debug.Assert(Words((\"a\")).SequenceEqual((new List<string>())));\n"
               "    }\n\n}\n",
               [[(OfType("Int64", 0), OfType("Int64", 0))], []]),
    "java": ("    }\n    public static void main(String[] args) {\n"
             "    assert(row((new ArrayList<ArrayList<Long>>(Arrays.asList((ArrayList<Long>)new "
             "ArrayList<Long>(Arrays.asList((long)1l))))), (1l)).equals((new ArrayList<Pair<Long, "
             "Long>>(Arrays.asList((Pair<Long, Long>)Pair.with(0l, 0l))))));\n"
             "    assert(ints((new ArrayList<Object>(Arrays.asList(4l, new HashMap<Long,Long>("
             "Map.of()), \"a\")))).equals((new ArrayList<Long>(Arrays.asList((long)4l)))));\n"
             "    }\n\n}\n",
             [[(OfType("Long", 0), OfType("Long", 0))], [OfType("Long", 4)]]),
    "scala": ("    }\n    def main(args: Array[String]) = {\n"
              "    assert(sorted((List[Long](-3l.toLong, 2l.toLong))).equals((List[Long]("
              "-3l.toLong, 2l.toLong))));\n"
              "    assert(total((List[Float](-1.5f.toFloat))) == (-1.5f.toDouble));\n    }\n\n}\n",
              [[OfType("Long", -3), OfType("Long", 2)], OfType("Double", -1.5)]),
}


@pytest.mark.parametrize("language", sorted(CURRENT_SHAPES))
def test_multiple_current_shapes_are_plain_calls(language: str):
    tests, expected = CURRENT_SHAPES[language]
    assert [c.expected for c in checks(language, tests)] == expected


@pytest.mark.parametrize(("language", "tests"), [
    # SequenceEqual compares sequences: a string or a dictionary is not one MultiPL-E writes
    ("csharp", "    public static void Main(string[] args) {\n"
               "    Debug.Assert(F((1L)).SequenceEqual((\"ab\")));\n    }\n}\n"),
    # a reference cast converts nothing: a list is no Pair
    ("java", "    public static void main(String[] args) {\n"
             "    assert(f((1l)).equals(((Pair<Long, Long>)new ArrayList<Long>())));\n    }\n}\n"),
])
def test_current_shapes_of_something_else_run_in_process(language: str, tests: str):
    with pytest.raises(NotPlainCalls):
        DIALECTS[language].plan(tests)


def test_go_shapes_are_read_with_gos_types():
    found = checks("go", HUMANEVAL_X_GO)
    assert [c.expected for c in found] == [
        OfType("int", 5), OfType("[]int", [1, 2]), OfType("[]string", []), None, 2.0 / 3.0,
        OfType("[2]int", [1, 2]), OfType("map[string]int", Map((("a", 1),))),
        OfType("[][2]int", [[0, 0], [1, 4]]), OfType("float64", 0.5)]
    assert found[4].kind == "close" and found[4].tolerance == 1e-6
    table = checks("go", MULTIPLE_GO)
    assert [c.how for c in table] == ["%v"] * 3
    assert checks("go", MAIN_GO)[0].how == "=="
    driver = DIALECTS["go"].plan(MULTIPLE_GO).driver
    assert "candidate := add" in driver and "_ = candidate" in driver


@pytest.mark.parametrize(("language", "tests"), [
    # loops, helpers, computed arguments, more than calls
    ("java", "public class Main {\n public static void main(String[] args) {\n"
             "  for (int i = 0; i < 3; i++) assert f(i) == i;\n }\n}\n"),
    ("java", "public class Main {\n static int k = 3;\n public static void main(String[] a) {\n"
             "  assert f(1) == 1;\n }\n}\n"),
    ("java", "public class Main {\n public static void main(String[] args) {\n"
             "  assert f(g(1)) == 1;\n }\n}\n"),
    ("java", "public class Main {\n public static void main(String[] args) {\n"
             "  assert f(1) == \"a\";\n }\n}\n"),  # == on strings compares references
    ("java", "public class Main {\n public static void main(String[] args) {\n"
             "  List<Boolean> correct = Arrays.asList(f(1));\n }\n}\n"),  # never checked
    ("csharp", "    }\n    public static void Main(string[] args) {\n"
               "    Console.WriteLine(F(1));\n    Debug.Assert(F(1) == 1L);\n    }\n}\n"),
    ("kotlin", "fun main() {\n  for (i in 1..3) assert(i == f(i))\n}\n"),
    ("kotlin", "fun main() {\n  var x0 : Long = f(1L)\n}\n"),  # a result never checked
    ("kotlin", 'fun main() {\n  assert("$x" == f(1))\n}\n'),  # a template
    ("scala", "    }\n    def main(args: Array[String]) = {\n    val x = f(1)\n"
              "    assert(x == 1)\n    }\n}\n"),
    ("go", "func TestF(t *testing.T) {\n    for i := 0; i < 3; i++ {\n"
           "        assert.Equal(t, i, F(i))\n    }\n}\n"),
    ("go", "func TestF(t *testing.T) {\n    assert := assert.New(t)\n"
           "    assert.Equal(F(1), G(1))\n}\n"),
    ("go", "func TestF(t *testing.T) {\n    assert := assert.New(t)\n"
           "    assert.Equal(1, F(int(math.Pow(2, 3))))\n}\n"),
    ("go", MULTIPLE_GO.replace('"%v", tc.actual', '"%d", tc.actual')),
    ("go", MULTIPLE_GO.replace("t.Errorf", "t.Logf")),
    ("go", "func helper() {}\n" + MAIN_GO),
])
def test_what_is_not_plain_calls_runs_in_process(language: str, tests: str):
    with pytest.raises(NotPlainCalls):
        DIALECTS[language].plan(tests)
    assert calls_plan(language, tests) is None


def test_expected_values_never_enter_the_driver():
    marker = "zq-expected-91"
    for language, tests in [
        ("java", MULTIPLE_JAVA.replace('Optional.of("x")', f'Optional.of("{marker}")')),
        ("csharp", MULTIPLE_CSHARP.replace('(string)"b"', f'(string)"{marker}"')),
        ("kotlin", MULTIPLE_KOTLIN.replace('"b" ==', f'"{marker}" ==')),
        ("scala", MULTIPLE_SCALA.replace('Some("x")', f'Some("{marker}")')),
        ("go", HUMANEVAL_X_GO.replace('"a": 1', f'"{marker}": 1')),
        ("go", MULTIPLE_GO.replace("expected: 5", f'expected: "{marker}"')),
    ]:
        plan = DIALECTS[language].plan(tests)
        assert marker not in plan.driver, language
        program = DIALECTS[language].program("class Problem {", plan)
        assert marker not in program, language


@pytest.mark.parametrize(("language", "check", "value", "holds"), [
    # Java: a primitive == by value, equals with types
    ("java", Check("equal", OfType("Long", 3), how="=="), OfType("Long", 3), True),
    ("java", Check("equal", OfType("Long", 3), how="=="), OfType("Integer", 3), True),
    ("java", Check("equal", OfType("Double", 7.5), how="=="), OfType("Integer", 7), False),
    ("java", Check("equal", [OfType("Long", 1)], how="equals"), [OfType("Integer", 1)], False),
    ("java", Check("equal", [OfType("Long", 1)], how="equals"), [OfType("Long", 1)], True),
    ("java", Check("equal", OfType("Double", math.nan), how="equals"),
     OfType("Double", math.nan), True),  # Double.equals: NaN equals NaN
    ("java", Check("equal", OfType("Double", 0.0), how="equals"),
     OfType("Double", -0.0), False),
    ("java", Check("equal", OfType("Optional", None), how="equals"), None, False),
    ("java", Check("equal", Some(OfType("Integer", 2)), how="=="), Some(OfType("Integer", 2)),
     True),
    ("java", Check("equal", Some(OfType("Integer", 2)), how="=="),
     OfType("Optional", None), False),
    ("java", Check("equal", Map((("a", OfType("Long", 1)),)), how="equals"),
     Map((("a", OfType("Long", 1)), ("a", OfType("Long", 1)))), False),
    ("java", Check("equal", SetOf((OfType("Integer", 1), OfType("Integer", 2))), how="equals"),
     SetOf((OfType("Integer", 2), OfType("Integer", 1))), True),
    ("java", Check("truth"), OfType("Integer", 1), False),
    ("java", Check("truth", negated=True), None, False),  # a null Boolean throws
    ("java", Check("empty"), [], True),
    ("java", Check("empty", negated=True), None, False),
    ("java", Check("equal", "x", how="equals"), Opaque("Fake"), False),
    ("java", Check("equal", "x", negated=True, how="equals"), Opaque("Fake"), True),
    ("java", Check("close", 1.5, tolerance=1e-6), OfType("Double", 1.5000001), True),
    ("java", Check("close", 1.5, tolerance=1e-6), OfType("Double", math.nan), False),
    # Kotlin: == is equals, but two doubles compare as numbers
    ("kotlin", Check("equal", OfType("Integer", 3), how="kotlin=="), OfType("Long", 3), False),
    ("kotlin", Check("equal", OfType("Double", 0.0), how="kotlin=="), OfType("Double", -0.0),
     True),
    ("kotlin", Check("equal", [], how="kotlin=="), [], True),
    # Scala: cooperative
    ("scala", Check("equal", [OfType("Long", 1)], how="cooperative"), [OfType("Integer", 1)],
     True),
    ("scala", Check("equal", OfType("Float", 0.30000001192092896), how="cooperative"),
     OfType("Double", 0.3), False),
    ("scala", Check("equal", OfType("Option", None), how="cooperative"), None, False),
    ("scala", Check("equal", [1], how="cooperative"), SetOf((1,)), False),
    ("scala", Check("equal", OfType("Double", math.nan), how="cooperative"),
     OfType("Double", math.nan), False),
    # C#: Equals with types, a list by its elements
    ("csharp", Check("equal", [OfType("Int64", 1)], how="equals"), [OfType("Int32", 1)], False),
    ("csharp", Check("equal", (OfType("Int64", 1),), how="equals"), (OfType("Int64", 1),),
     True),
    # Go: testify's DeepEqual (types, nil unlike empty), MultiPL-E's %v
    ("go", Check("equal", OfType("int", 5)), OfType("int", 5), True),
    ("go", Check("equal", OfType("int", 5)), OfType("int64", 5), False),
    ("go", Check("equal", OfType("[]string", [])), OfType("[]string", None), False),
    ("go", Check("equal", None), OfType("[]int", None), False),  # a typed nil is not nil
    ("go", Check("equal", None), None, True),
    ("go", Check("equal", OfType("float64", math.nan)), OfType("float64", math.nan), False),
    ("go", Check("equal", OfType("int", 5), how="%v"), OfType("float64", 5.0), True),
    ("go", Check("equal", OfType("[]int", []), how="%v"), OfType("[]int", None), True),
    ("go", Check("equal", OfType("string", "[1 2]"), how="%v"), OfType("[]int", [1, 2]), True),
    ("go", Check("equal", OfType("float32", 0.10000000149011612), how="%v"),
     OfType("float64", 0.1), True),
    ("go", Check("equal", OfType("int", 1), how="%v"), Opaque("ptr"), False),
    ("go", Check("equal", OfType("int", 3), how="=="), OfType("int", 3), True),
    ("go", Check("truth"), OfType("bool", True), True),
    ("go", Check("truth"), True, False),
])
def test_values_compare_as_each_language_does(language: str, check: Check, value,
                                              holds: bool):
    assert DIALECTS[language].holds(check, value) is holds


def test_go_prints_as_fmt_does():
    assert [format_float(v, False) for v in (1e6, 123456.0, 1e-5, 0.0001, 2 / 3, -0.5, 100.0)] == [
        "1e+06", "123456", "1e-05", "0.0001", "0.6666666666666666", "-0.5", "100"]
    assert format_float(0.10000000149011612, True) == "0.1"
    assert sprint_v(OfType("map[string]int", Map((("b", 1), ("a", 2))))) == "map[a:2 b:1]"
    assert sprint_v(OfType("[]interface {}", [OfType("int", 1), OfType("string", "a"), None]))\
        == "[1 a <nil>]"
    assert sprint_v(OfType("map[string]int", None)) == "map[]" and sprint_v(None) == "<nil>"


def test_typed_records_decode():
    line = b'[0,["y","[]int",["l",1,2]]]\n[1,["y","Long",3]]\n'
    assert read_records(line, 2) == ([OfType("[]int", [1, 2]), OfType("Long", 3)], None)
    assert read_records(b'[0,["y",1,2]]\n', 1)[1].startswith("a malformed value")


GARBLE = ('package main\nimport (\n  "fmt"\n  x "os"\n)\nfunc main() { fmt.Println(`raw`) }\n'
          'class Problem { static { } public static long f(long x) { return "}"; }\n'
          'object O { def main(a: Array[String]) = { } }\nfun main() { }\n')


def _shuffled(source: str, count: int, seed: int) -> list[str]:
    """`count` variants of `source`, each with a few of its tokens dropped, doubled or swapped
    (tests cut or garbled where it hurts a parser most: at token boundaries), or a stray
    character put in."""
    rng = random.Random(seed)
    tokens = tokenize(source)
    out = []
    for _ in range(count):
        spans = [source[t.start:t.end] for t in tokens]
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(spans))
            move = rng.choice(("drop", "double", "swap", "stray"))
            if move == "drop":
                spans[at] = ""
            elif move == "double":
                spans[at] *= 2
            elif move == "swap":
                other = rng.randrange(len(spans))
                spans[at], spans[other] = spans[other], spans[at]
            else:
                spans[at] += rng.choice("()[]{}<>\"'`,;:=$@\\")
        out.append(" ".join(spans))
    return out


@pytest.mark.parametrize(("language", "sources"), [
    ("java", (MULTIPLE_JAVA, HUMANEVAL_X_JAVA)), ("csharp", (MULTIPLE_CSHARP,)),
    ("kotlin", (MULTIPLE_KOTLIN, VAR_KOTLIN)), ("scala", (MULTIPLE_SCALA,)),
    ("go", (HUMANEVAL_X_GO, MULTIPLE_GO, MAIN_GO))])
def test_broken_tests_never_break_the_parsers(language: str, sources: tuple[str, ...]):
    deep = "(" * 5000 + "1" + ")" * 5000
    for index, source in enumerate(sources):
        for mutated in [*_shuffled(source, 120, index), source.replace("(3l)", deep),
                        source.replace("5, ", deep + ", "), source.replace("true", "-" * 5000)]:
            with contextlib.suppress(NotPlainCalls):
                DIALECTS[language].plan(mutated)
            program = in_process_program(language, "class Problem {", mutated)
            assert isinstance(program, str)
    # Solutions are untrusted too: whatever they are, a program comes out (the compiler judges).
    plan = DIALECTS[language].plan(sources[0])
    for garbled in [*_shuffled(GARBLE, 60, 7), "`unclosed", '"open', "}}}{{{", ""]:
        assert isinstance(DIALECTS[language].program(garbled, plan), str)
        assert isinstance(in_process_program(language, garbled, sources[0]), str)


def test_in_process_programs_take_the_tests_primitives_out_of_reach():
    # Each language's in-process program calls the verifier's check under a drawn name.
    java = in_process_program("java", "class Problem {", "    }\n    public static void main("
                              "String[] a) {\n    for (int i = 0; i < 1; i++) assert f(i) == i;"
                              "\n    }\n}\n")
    assert "assert f" not in java and "__VerifierCheck_" in java and ".halt(1)" in java
    csharp = in_process_program("csharp", "class Problem {", "    }\n    public static void "
                                "Main(string[] a) {\n    for (int i = 0; i < 1; i++) "
                                "Debug.Assert(F(i) == i);\n    }\n}\n")
    assert "Debug.Assert" not in csharp and "global::__VerifierCheck_" in csharp
    go = in_process_program("go", "package main\nvar fmt = 1\nfunc F() int { return 1 }\n",
                            "func TestF(t *testing.T) {\n  for i := 0; i < 2; i++ {\n"
                            "    if F() != 1 { t.Errorf(fmt.Sprint(i)) }\n  }\n}\n")
    assert not re.search(r"\bfmt\.Sprint", go) and "TestMain(" in go
    refused = in_process_program("go", "package main\nfunc panic(v interface{}) {}\n",
                                 "func main() {\n  for i := 0; i < 2; i++ {\n"
                                 "    if F() != 1 { panic(i) }\n  }\n}\n")
    assert "declares panic" in refused and "func F" not in refused


KOTLIN_LOOP = ("fun main() {\n  for (k in 1L..2L) assert(Math.abs(f(k)) == listOf(k).sorted()[0])"
               "\n}\n")
SCALA_LOOP = ("    }\n    def main(args: Array[String]) = {\n"
              "    for (k <- 1l to 2l) assert(Math.abs(f(k)) == List(k).head + Some(k).get)\n"
              "    }\n}\n")
CSHARP_LOOP = ("    public static void Main(string[] a) {\n    for (long k = 1; k < 3; k++)\n"
               "        Debug.Assert(Math.Abs(F(k)) == new List<long>{k}.Sum());\n    }\n}\n")
JAVA_LOOP = ("    public static void main(String[] a) {\n    for (long k = 1; k < 3; k++)\n"
             "        assert Math.abs(f(k)) == Objects.hash(k);\n    }\n}\n")


@pytest.mark.parametrize(("language", "solution", "tests", "refused"), [
    # A declaration of a library name the tests use, in each way the language has.
    ("kotlin", "typealias Math = Fake\n", KOTLIN_LOOP, "Math"),
    ("kotlin", "fun <T> List<T>.sorted(): List<T> = this\n", KOTLIN_LOOP, "sorted"),
    ("kotlin", "fun <T> listOf(vararg x: T) = emptyList<T>()\n", KOTLIN_LOOP, "listOf"),
    ("kotlin", "val `listOf` = { x: Long -> mutableListOf(x) }\n", KOTLIN_LOOP, "listOf"),
    ("kotlin", "import p.Fake as Math\n", KOTLIN_LOOP, "Math"),
    ("kotlin", "val <T: Any> List<T>.sorted: Int get() = 0\n", KOTLIN_LOOP, "sorted"),
    ("scala", "object Problem {\n    val a, math = 3\n", SCALA_LOOP.replace("Math", "math"),
     "math"),
    ("scala", "object Problem {\n    case class Some(x: Long) { def get = 0L }\n", SCALA_LOOP,
     "Some"),
    ("scala", "object Problem {\n    trait List\n", SCALA_LOOP, "List"),
    ("scala", "object Problem {\n    var Math: Fake = null\n", SCALA_LOOP, "Math"),
    ("scala", "object Problem {\n    import a.{\n      B => Math,\n      C => D}\n", SCALA_LOOP,
     "Math"),
    ("csharp", "struct Math { }\nclass Problem {\n", CSHARP_LOOP, "Math"),
    ("csharp", "class Problem {\n    static Fake Math { get; }\n", CSHARP_LOOP, "Math"),
    ("csharp", "class Problem {\n    static Fake Math => null;\n", CSHARP_LOOP, "Math"),
    ("csharp", "enum E { A, Math }\nclass Problem {\n", CSHARP_LOOP, "Math"),
    ("csharp", "static class X { public static long Sum<T>(this List<T> a) => 0; }\n"
               "class Problem {\n", CSHARP_LOOP, "Sum"),
    ("java", "record Objects(int x) { }\nclass Problem {\n", JAVA_LOOP, "Objects"),
    ("java", "class \\u004Dath { }\nclass Problem {\n", JAVA_LOOP, "Math"),
    ("java", "class Problem {\n    static Fake a = null, Math = new Fake();\n", JAVA_LOOP, "Math"),
    # Hidden from a lexer by a string it reads otherwise than the compiler, or unreadable.
    ("csharp", 'class Problem {\n    static string a = @"\\"; static Fake Math = null; // "\n',
     CSHARP_LOOP, "Math"),
    ("scala", 'object Problem {\n    val a = """\\"""; object Math; val b = "x" // "\n',
     SCALA_LOOP, "Math"),
    ("kotlin", "val s = 'sym\nobject Math\n", KOTLIN_LOOP, "Math"),
    # What only uses them, or declares them where the tests do not reach: run as it is.
    ("kotlin", "import kotlin.math.abs\nfun f(x: Any) = abs((x as List<Long>)[0])\n"
               "val enum = 1\nfun g() = listOf(1)\nclass H(val x: Long) { fun abs() = x }\n"
               "fun h(p: Pair<Int, Int>): List<Long> = listOf(p.first.toLong()).sorted()\n"
               "val i: kotlin.Int = 3\nval s = listOf(1).sorted\n",
     KOTLIN_LOOP, None),
    ("scala", "object Problem {\n    import scala.math._\n    val List(a, b) = List(1, 2)\n"
              "    def f(xs: List[Long]) = { xs foreach { x => List(x) }; xs match {\n"
              "      case List(x) => Some(x); case _ => None } }\n    def abs(x: Long) = x\n"
              "    val m: Map[String, Long] = g(a, math)\n", SCALA_LOOP, None),
    ("csharp", "using System;\nusing System.Linq;\nusing static System.Math;\nclass Problem {\n"
               "    public override bool Equals(object o) { return o is String; }\n"
               "    static long F(List<long> v) { foreach (var x in v) { } return v.Sum(); }\n",
     CSHARP_LOOP, None),
    ("java", "import java.util.*;\nclass Problem {\n    // sort the List, then see Objects\n"
             "    static Triplet<Long, String, Long> t;\n    static long f(long k) { "
             "List<Long> xs = new ArrayList<>(); return Math.abs(k); }\n", JAVA_LOOP, None),
])
def test_in_process_programs_refuse_a_solution_declaring_a_library_name_the_tests_use(
        language: str, solution: str, tests: str, refused: str | None):
    # Declared by the solution, the name would be what the tests call (docs/code.md).
    program = in_process_program(language, solution, tests)
    if refused is None:
        assert "which the tests use" not in program and solution in program
    else:
        assert f"declares {refused}," in program and solution not in program


def test_a_solution_the_lexer_cannot_read_is_still_hardened():
    # Its declarations are read as bare text: the tests' checks are the verifier's all the same.
    program = in_process_program("kotlin", "val s = 'sym\nfun assert(c: Boolean) { }\n",
                                 KOTLIN_LOOP)
    assert "__VerifierCheck_" in program and "which the tests use" not in program


@pytest.mark.parametrize("language", ["java", "kotlin", "scala", "csharp"])
def test_reading_the_declarations_takes_linear_time(language: str):
    # Chains the rules walk (receivers, import selectors, enum bodies, type parameters) as long
    # as a response may be: read in one pass each, not once per name.
    tests = {"java": JAVA_LOOP, "kotlin": KOTLIN_LOOP, "scala": SCALA_LOOP,
             "csharp": CSHARP_LOOP}[language]
    for unit in ("x.listOf(", "fun <T> a.b", "as List ", "import a.{b => ", "enum E ",
                 "enum class E { ", "Sum<a,"):
        solution = unit * (200_000 // len(unit))
        started = time.perf_counter()
        with contextlib.suppress(NotPlainCalls):
            in_process_program(language, solution, tests)
        assert time.perf_counter() - started < 5, unit
