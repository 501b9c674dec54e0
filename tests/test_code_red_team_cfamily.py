"""C and C++ assert tests against solutions that attack them, through the real compilers and jail.

Each attack is a wrong solution (its function returns the wrong value) placed ahead of the tests
with a trick that beat the tests when they ran in its process: preprocessor tricks, shadowing
what the tests use, interposing the C library, static initialisers, atexit and signal handlers,
forged records, floods and crashes. Each must earn nothing, and never an infra_error, whatever
the tests' shape: MultiPL-E's (`auto candidate = f; assert(candidate(...) == ...)`),
HumanEval-X's (`assert (f(...) == ...)`, `issame`, `abs(... - K) < 1e-4`), both judged outside
the solution's process, and a shape that is not plain calls (a loop), run in its process.
"""

from __future__ import annotations

import shutil

import pytest

from rlvr_contract.schemas import CodeItem
from verifier.config import Settings
from verifier.kinds.code import run_code_items

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

LIMITS = {"time_s": 5, "memory_mb": 256}

# C++: scale(v, k) multiplies each element of v by k (right), or adds k (wrong).
CPP_RIGHT = ("#include <bits/stdc++.h>\nusing namespace std;\n"
             "vector<long> scale(vector<long> v, long k) { for (auto &x : v) x *= k; return v; }\n"
             "float half(long x) { return x / 2.0f; }\n")
CPP_WRONG = ("#include <bits/stdc++.h>\nusing namespace std;\n"
             "vector<long> scale(vector<long> v, long k) { for (auto &x : v) x += k; return v; }\n"
             "float half(long x) { return x; }\n")
CPP_TESTS = {
    "multiple": ("#include<assert.h>\n#include<bits/stdc++.h>\nint main() {\n"
                 "    auto candidate = scale;\n"
                 "    assert(candidate((std::vector<long>({(long)1, (long)2})), (3)) == "
                 "(std::vector<long>({(long)3, (long)6})));\n"
                 "    assert(candidate((std::vector<long>()), (3)) == (std::vector<long>()));\n"
                 "}\n"),
    "humaneval_x": ("#undef NDEBUG\n#include<assert.h>\nbool issame(vector<long> a,vector<long>b){"
                    "\n    if (a.size()!=b.size()) return false;\n    for (int i=0;i<a.size();i++)"
                    "\n    {\n    if (a[i]!=b[i]) return false;\n    }\n    return true;\n}\n"
                    "int main(){\n    assert (issame(scale({1, 2}, 3) , {3, 6}));\n"
                    "    assert (abs(half(3) - 1.5) < 1e-4);\n}\n"),
    "loop": ("#include <cassert>\nint main() {\n    for (long k = 1; k < 4; k++)\n"
             "        assert(scale({1, 2}, k) == std::vector<long>({k, 2 * k}));\n}\n"),
}
# C: add(a, b) returns a + b (right) or a - b (wrong); name() returns "bob".
C_RIGHT = ('#include <stdlib.h>\nint add(int a, int b) { return a + b; }\n'
           'const char *name(void) { return "bob"; }\n')
C_WRONG = ('#include <stdlib.h>\nint add(int a, int b) { return a - b; }\n'
           'const char *name(void) { return "al"; }\n')
C_TESTS = {
    "calls": ('#include <assert.h>\n#include <string.h>\nint main() {\n    assert(add(1, 2) == 3);'
              '\n    assert(strcmp(name(), "bob") == 0);\n    return 0;\n}\n'),
    "loop": ("#include <assert.h>\nint main() {\n    for (int i = 1; i < 3; i++)\n"
             "        assert(add(i, i) == 2 * i);\n    return 0;\n}\n"),
}

# Tricks a wrong solution ends with (C++ first, then C where they differ).
CPP_ATTACKS = {
    "NDEBUG before the tests' assert.h": "#define NDEBUG\n",
    "assert defined away": "#undef assert\n#define assert(...) ((void)0)\n",
    "assert that evaluates and ignores": "#include <cassert>\n#undef assert\n"
                                         "#define assert(e) ((void)(e))\n",
    "interposed __assert_fail": 'extern "C" void __assert_fail(const char *, const char *, '
                                'unsigned int, const char *) { }\n',
    "abs shadowed": "#define abs(x) 0\n",
    "equality shadowed": "bool operator==(const std::vector<long> &, const std::vector<long> &)"
                         " { return true; }\n",
    "issame and main shadowed": "#define issame(...) true\n",
    "record forged from a static initialiser": (
        "#include <unistd.h>\nstatic int forged = [] { char b[4096]; long n = read(4, b, "
        "sizeof b); if (n > 0) write(3, b, n); _exit(0); return 0; }();\n"),
    "records forged from a static initialiser": (
        '#include <unistd.h>\nstatic int forged = [] { const char r[] = "[0,[\\"l\\",3,6]]\\n'
        '[1,[\\"l\\"]]\\n[0,1.5]\\n"; write(3, r, sizeof r - 1); _exit(0); return 0; }();\n'),
    "exit(0) from a static initialiser": "#include <cstdlib>\n"
                                         "static int quit = (std::exit(0), 0);\n",
    "atexit handler that exits 0": "#include <cstdlib>\n#include <unistd.h>\n"
                                   "static int hook = std::atexit([] { _exit(0); });\n",
    "SIGABRT handler that exits 0": "#include <csignal>\n#include <unistd.h>\nstatic int "
                                    "handler = (std::signal(SIGABRT, [](int) { _exit(0); }), 0);\n",
    "terminate handler that exits 0": "#include <exception>\n#include <unistd.h>\nstatic int "
                                      "handler = (std::set_terminate([] { _exit(0); }), 0);\n",
    "output flood": "#include <cstdio>\nstatic int flood = [] { for (long i = 0; i < (1L << 25);"
                    " i++) std::fputs(\"[0,1]\\n\", stdout); return 0; }();\n",
    "garbage on the channel": '#include <unistd.h>\nstatic int junk = [] { write(3, "{\\"passed\\'
                              '": true}\\n[", 18); return 0; }();\n',
    "a macro of a name of the epilogue (its call of the tests)": "#define f() 0\n",
    # The driver's serialiser was `__verifier_calls::put`: a non-template overload declared
    # first for what scale returns was the one the record called, writing the right value.
    "the driver's namespace opened first with a put of its own": (
        "namespace __verifier_calls {\ninline void put_text(const char *text);\n"
        "void put(const std::vector<long> &v) { put_text(v.empty() ? \"[\\\"l\\\"]\" : "
        "\"[\\\"l\\\",3,6]\"); }\n}\n"),
}
C_ATTACKS = {
    "NDEBUG before the tests' assert.h": "#define NDEBUG\n",
    "assert defined away": "#include <assert.h>\n#undef assert\n#define assert(x) ((void)0)\n",
    "interposed __assert_fail": "void __assert_fail(const char *a, const char *b, unsigned c, "
                                "const char *d) { }\n",
    "strcmp shadowed": "#define strcmp(a, b) 0\n",
    "record forged from a constructor": (
        "#include <unistd.h>\n__attribute__((constructor)) static void forge(void) { char b[4096];"
        " long n = read(4, b, sizeof b); if (n > 0) write(3, b, n); _exit(0); }\n"),
    "atexit handler that exits 0": "#include <unistd.h>\n#include <stdlib.h>\nstatic void out(void)"
                                   " { _exit(0); }\n__attribute__((constructor)) static void "
                                   "hook(void) { atexit(out); }\n",
    "SIGABRT handler that exits 0": "#include <signal.h>\n#include <unistd.h>\nstatic void "
                                    "out(int s) { _exit(0); }\n__attribute__((constructor)) "
                                    "static void hook(void) { signal(SIGABRT, out); }\n",
    "a macro of a name of the epilogue (the tests' renamed main)": (
        "int real_(void) { return 0; }\n#define __verifier_main(x) real_##x(x)\n"),
}
# Tricks no program can be kept from inside its own process, where tests that are not plain
# calls still run (docs/code.md: which tests are judged outside the solution's process): copying the
# run's record to the channel, overloading the operators the tests compare with.
IN_PROCESS_ONLY = {"record forged from a static initialiser", "record forged from a constructor",
                   "equality shadowed"}


def _item(language: str, response: str, tests: str) -> CodeItem:
    return CodeItem(language=language, response=response, limits=LIMITS,
                    tests={"type": "assert", "code": tests})


@pytest.mark.parametrize(("language", "right", "shapes"), [
    ("cpp", CPP_RIGHT, CPP_TESTS), ("c", C_RIGHT, C_TESTS)])
def test_right_solutions_pass_and_say_where_they_were_judged(language, right, shapes):
    items = [_item(language, right, tests) for tests in shapes.values()]
    results = run_code_items(items)
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("correct", "in_process" if shape == "loop" else "outside") for shape in shapes], results


@pytest.mark.parametrize(("language", "wrong", "shapes", "attacks"), [
    ("cpp", CPP_WRONG, CPP_TESTS, CPP_ATTACKS), ("c", C_WRONG, C_TESTS, C_ATTACKS)])
def test_attacks_earn_nothing(language, wrong, shapes, attacks):
    cases = [(attack, shape) for attack in attacks for shape in shapes
             if not (shape == "loop" and attack in IN_PROCESS_ONLY)]
    items = [_item(language, wrong + attacks[attack], shapes[shape]) for attack, shape in cases]
    results = run_code_items(items)
    won = [(case, r.status.value, r.detail.get("tests", [{}])[0].get("message"))
           for case, r in zip(cases, results, strict=True)
           if r.reward != 0.0 or r.status.value == "infra_error"]
    assert not won, won


def test_a_wrong_value_is_wrong_and_names_its_line():
    result = run_code_items([_item("cpp", CPP_WRONG, CPP_TESTS["multiple"])])[0]
    assert result.status.value == "wrong"
    assert result.detail["tests"][0]["message"] == "the assertion at line 5 of the tests failed"
    assert "3, 6" not in str(result.detail)


def test_in_process_forgery_is_marked_and_can_be_refused():
    # Inside its own process a program can copy the run's record to the channel: that is why
    # such results say `judged: in_process`, and why an operator may refuse them.
    forged = _item("cpp", CPP_WRONG + CPP_ATTACKS["record forged from a static initialiser"],
                   CPP_TESTS["loop"])
    result = run_code_items([forged])[0]
    assert result.detail["judged"] == "in_process"
    refused = run_code_items([forged], Settings(in_process_tests="refuse"))[0]
    assert refused.status.value == "infra_error" and refused.reward is None
    assert refused.detail["judged"] == "in_process"
    assert "VERIFIER_IN_PROCESS_TESTS=refuse" in refused.detail["error"]
    plain = run_code_items([_item("cpp", CPP_RIGHT, CPP_TESTS["multiple"])],
                           Settings(in_process_tests="refuse"))[0]
    assert plain.status.value == "correct"


FINDER = r"""
#include <cctype>
#include <cstdio>
#include <fstream>
#include <string>
// Looks for the expected value in everything it can read: its own program and memory.
static std::string found() {
    const std::string needle = std::string("zq-") + "expected-";
    std::ifstream maps("/proc/self/maps");
    std::ifstream memory("/proc/self/mem", std::ios::binary);
    std::string line;
    while (std::getline(maps, line)) {
        unsigned long start, end;
        char perms[8];
        if (std::sscanf(line.c_str(), "%lx-%lx %7s", &start, &end, perms) != 3 || perms[0] != 'r'
                || end - start > (1UL << 28)) continue;
        std::string data(end - start, '\0');
        memory.clear();
        memory.seekg(start);
        if (!memory.read(&data[0], data.size())) continue;
        for (size_t at = data.find(needle); at != std::string::npos; at = data.find(needle, at + 1))
            if (at + needle.size() + 2 <= data.size() && std::isdigit(data[at + needle.size()])
                    && std::isdigit(data[at + needle.size() + 1]))
                return data.substr(at, needle.size() + 2);
    }
    return "nothing";
}
std::string f(std::string x) { return found(); }
"""


def test_expected_values_are_out_of_the_solutions_reach():
    tests = ('#include <cassert>\nint main() {\n    auto candidate = f;\n'
             '    assert(candidate("x") == "zq-expected-91");\n}\n')
    result = run_code_items([_item("cpp", FINDER, tests)])[0]
    assert result.status.value == "wrong", result


def test_an_expected_value_in_a_variable_is_out_of_the_solutions_reach():
    # The tests' variables the calls take go to the driver; one they compare with does not.
    tests = ('#include <cassert>\n#include <string>\nint main() {\n    std::string x = "x";\n'
             '    std::string e = "zq-expected-91";\n    assert(f(x) == e);\n}\n')
    result = run_code_items([_item("cpp", FINDER, tests)])[0]
    assert (result.status.value, result.detail["judged"]) == ("wrong", "outside"), result
    right = ('#include <string>\nstd::string f(std::string x) { return "zq-expected-"'
             ' + std::to_string(91); }\n')
    right = run_code_items([_item("cpp", right, tests)])[0]
    assert right.status.value == "correct", right


def test_a_solution_with_macros_of_its_own_still_passes():
    # Competitive programmers' headers: the driver undefines what it uses.
    header = ("#include <bits/stdc++.h>\nusing namespace std;\n#define int long long\n"
              "#define put push_back\n#define record rec\n#define write wr\n")
    right = header + ("vector<long> scale(vector<long> v, long k) { for (auto &x : v) x *= k; "
                      "return v; }\nfloat half(long x) { return x / 2.0f; }\n")
    result = run_code_items([_item("cpp", right, CPP_TESTS["humaneval_x"])])[0]
    assert (result.status.value, result.detail["judged"]) == ("correct", "outside"), result


def test_values_the_driver_cannot_write_fail_without_breaking_the_build():
    odd = ("#include <bits/stdc++.h>\nstruct Odd { long v; bool operator==("
           "const std::vector<long>&) const { return true; } };\n"
           "Odd scale(std::vector<long> v, long k) { return {0}; }\n")
    bad_pointer = ("#include <vector>\nconst char *scale(std::vector<long> v, long k) { return "
                   "(const char *)16; }\n")
    results = run_code_items([_item("cpp", odd, CPP_TESTS["multiple"]),
                              _item("cpp", bad_pointer, CPP_TESTS["multiple"])])
    assert [r.status.value for r in results] == ["wrong", "runtime_error"], results


# In-process tests that call library functions; a wrong solution that defines them itself
# (the link, or C++'s overload resolution, would take its own) is refused.
LIBRARY_TESTS = {
    "c": ('#include <assert.h>\n#include <string.h>\nint main() {\n'
          '    const char *expected[] = {"bob", "bobby"};\n    for (int i = 0; i < 2; i++)\n'
          '        assert(strcmp(name(), expected[i] + 3 * i) == 0 '
          '|| memcmp(name(), expected[i], 2) == 0);\n    return 0;\n}\n'),
    "cpp": ("#include <cassert>\n#include <cstring>\n#include <algorithm>\nusing namespace std;\n"
            "int main() {\n    for (long k = 1; k < 3; k++)\n"
            "        assert(scale({1}, k).size() == 1 && max(scale({1}, k)[0], k) == k && strcmp("
            "to_string(half(2 * k)).c_str(), to_string((float)k).c_str()) == 0);\n}\n"),
}
# A name no compiler can fold: the calls reach the symbols.
LIBRARY_WRONG = {"c": ("static volatile char first = 'a';\nconst char *name(void) { static char "
                       "s[3]; s[0] = first; s[1] = 'l'; return s; }\n"),
                 "cpp": CPP_WRONG}
LIBRARY_ATTACKS = {
    "c": ["int strcmp(const char *a, const char *b) { return 0; }\n"
          "int memcmp(const void *a, const void *b, unsigned long n) { return 0; }\n",
          "int mine(const char *a, const char *b) __asm__(\"strcmp\");\n"
          "int mine(const char *a, const char *b) { return 0; }\n"
          "int other(const void *a, const void *b, unsigned long n) __asm__(\"memcmp\");\n"
          "int other(const void *a, const void *b, unsigned long n) { return 0; }\n",
          "#define DEF(name, ...) int name(__VA_ARGS__) { return 0; }\n"
          "DEF(strcmp, const char *a, const char *b)\n"
          "DEF(memcmp, const void *a, const void *b, unsigned long n)\n"],
    "cpp": ["long max(long, long b) { return b; }\n"
            "int strcmp(const char *, const char *) { return 0; }\n",
            "namespace std { template <> const long &max<long>(const long &, const long &b) "
            "{ return b; } }\nextern \"C\" int strcmp(const char *, const char *) { return 0; }\n",
            "const char *quote = R\"x(\")x\";\nlong max(long, long b) { return b; }\n"
            "int strcmp(const char *, const char *) { return 0; }\n"],
}
# Right solutions with helpers of ordinary names, members named as library functions, and
# calls of the library's: not refused.
LIBRARY_RIGHT = {
    "c": ('#include <string.h>\nstatic int helper(const char *s) { return (int)strlen(s); }\n'
          'const char *name(void) { return helper("x") ? "bob" : "al"; }\n'),
    "cpp": CPP_RIGHT + ("struct Box { long size() const { return 1; } long max() const "
                        "{ return std::max(-1L, 1L); } };\nlong helper(long x) { return "
                        "std::max(x, 0L); }\nlong size(long x) { return x; }\n"),
}


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_a_library_function_of_the_solutions_own_is_refused(language):
    wrong, tests = LIBRARY_WRONG[language], LIBRARY_TESTS[language]
    items = [_item(language, wrong + attack, tests) for attack in LIBRARY_ATTACKS[language]]
    results = run_code_items([*items, _item(language, LIBRARY_RIGHT[language], tests)])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        *[("runtime_error", "in_process")] * len(items), ("correct", "in_process")], results
    assert all("the tests call" in r.detail["tests"][0]["stderr"] for r in results[:-1])


def test_cpp_a_std_name_the_driver_uses_declared_by_the_solution_is_refused():
    # An overload of std::get for pairs (declared in std, or through a macro) was what the
    # driver's serialiser read a pair's items with: a wrong pair recorded as the right one. A
    # right solution that specialises std::hash (no name of the driver's) or has a macro of its
    # own that uses std::get still passes.
    tests = ("#include<assert.h>\n#include<bits/stdc++.h>\nint main() {\n    auto candidate = pr;"
             "\n    assert(candidate(1) == (std::make_pair(1, 7)));\n}\n")
    head = "#include <bits/stdc++.h>\nusing namespace std;\n"
    wrong = head + "pair<long, long> pr(long a) { return {a, a}; }\n"
    get = ("template <size_t I> long GET(const pair<long, long> &p) { return I == 1 ? 7 : "
           "p.first; }")
    right = (head + "#define SECOND(p) std::get<1>(p)\n"
             "pair<long, long> pr(long a) { return {a, SECOND(make_pair(0, 7))}; }\n"
             "namespace std { template <>"
             " struct hash<pair<int, int>> { size_t operator()(const pair<int, int> &p) const "
             "{ return p.first; } }; }\n")
    results = run_code_items([
        _item("cpp", wrong + "namespace std { " + get.replace("GET", "get") + " }\n", tests),
        _item("cpp", wrong + "#define G get\nnamespace std { " + get.replace("GET", "G") + " }\n",
              tests),
        _item("cpp", right, tests)])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("runtime_error", "outside"), ("runtime_error", "outside"), ("correct", "outside")], results


# The driver read a container by what it has (`begin` and `end`, `data` and `traits_type`): a
# class of the solution's that has them, its `begin` the right list's (also one it declares in
# std, where the driver takes types for the library's), was recorded as that list. A right
# solution's std containers, and one that specialises std::hash, still pass.
_CPP_LIAR = ("static const std::vector<long> lie{3, 6};\nNAMESPACE struct Liar {\n"
             "    std::vector<long> v;\n    std::vector<long>::const_iterator begin() const {"
             " return v.empty() ? lie.end() : lie.begin(); }\n"
             "    std::vector<long>::const_iterator end() const { return lie.end(); }\n};CLOSE\n"
             "TYPE scale(std::vector<long> v, long k) { TYPE l; for (long x : v) l.v.push_back(x "
             "+ k); return l; }\n")


def test_cpp_a_class_of_the_solutions_that_looks_like_a_container_is_read_as_nothing():
    head = "#include <bits/stdc++.h>\n"
    text = ("struct Liar {\n    using traits_type = std::char_traits<char>;\n"
            "    const char *data() const { return \"ab\"; }\n"
            "    unsigned long size() const { return 2; }\n};\nLiar name(long k) { return {}; }\n")
    text_tests = ("#include<assert.h>\n#include<bits/stdc++.h>\nint main() {\n"
                  "    auto candidate = name;\n    assert(candidate((1)) == (\"ab\"));\n}\n")
    own = _CPP_LIAR.replace("NAMESPACE ", "").replace("CLOSE", "").replace("TYPE", "Liar")
    in_std = (_CPP_LIAR.replace("NAMESPACE", "namespace std {").replace("CLOSE", " }")
              .replace("TYPE", "std::Liar"))
    results = run_code_items([
        _item("cpp", head + own, CPP_TESTS["multiple"]), _item("cpp", head + text, text_tests),
        _item("cpp", head + in_std, CPP_TESTS["multiple"]),
        _item("cpp", CPP_RIGHT, CPP_TESTS["multiple"])])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("wrong", "outside"), ("wrong", "outside"), ("runtime_error", "outside"),
        ("correct", "outside")], results


# The calls driver and the solution are one program, linked as one: a function the solution
# defines under a library's name is what the driver's call of that name reached (`snprintf` for
# a float's digits, `write` for the records, libgcc's `__umodti3` for a 128-bit integer's
# digits), a name of the driver's C declared first (a static object's tentative definition)
# gave the solution its buffer, a solution that undefined the architecture's macro had the
# driver fall back to `write`, and a specialised `std::vector<long>::begin` was what the
# driver's loop over a vector called. Each made the record say the right value.
C_DRIVER_TESTS = ("#include <assert.h>\nint main() {\n    assert(add(1, 2) == 3);\n"
                  "    assert(add(0, 0) == 0);\n    assert(half(3) == 1.5);\n    return 0;\n}\n")
C_DRIVER_RIGHT = "int add(int a, int b) { return a + b; }\ndouble half(int x) { return x / 2.0; }\n"
_SYSCALL_WRITE = (
    "long write(int fd, const void *b, unsigned long n) {"
    " char t[4096]; const char *s = b; unsigned long m = 0; for (unsigned long i = 0; i < n; i++)"
    " { if (s[i] == '-' && s[i + 1] == '1') { t[m++] = '3'; i++; } else t[m++] = s[i]; } "
    "return syscall(SYS_write, fd, t, m) == (long)m ? (long)n : -1; }\n")
DRIVER_ATTACKS = {
    "c snprintf of its own": (
        "c", "#include <stdarg.h>\nint add(int a, int b) { return a + b; }\n"
             "double half(int x) { return x; }\nint snprintf(char *s, unsigned long n, const char "
             "*f, ...) { va_list a; va_start(a, f); double d = va_arg(a, double); va_end(a); "
             "const char *t = d == 3.0 ? \"1.5\" : \"0\"; int i = 0; while ((s[i] = t[i])) i++; "
             "return i; }\n", C_DRIVER_TESTS),
    "c the driver's buffer declared first": (
        "c", "static char __verifier_buffer[1 << 16];\nstatic unsigned long __verifier_used;\n"
             "int add(int a, int b) { static int calls; if (calls++ == 1 && __verifier_buffer[3] "
             "== '-') { __verifier_buffer[3] = '3'; __verifier_buffer[4] = ']'; "
             "__verifier_buffer[5] = '\\n'; __verifier_used--; } return a - b; }\n"
             "double half(int x) { return x / 2.0; }\n", C_DRIVER_TESTS),
    "c architecture undefined, write of its own": (
        "c", "#include <sys/syscall.h>\n#include <unistd.h>\n#undef __x86_64__\n"
             "#undef __aarch64__\nint add(int a, int b) { return a - b; }\n"
             "double half(int x) { return x / 2.0; }\n" + _SYSCALL_WRITE, C_DRIVER_TESTS),
    "cpp snprintf of its own": (
        "cpp", CPP_WRONG.replace("x += k", "x *= k") + "#include <cstdarg>\nextern \"C\" int "
               "snprintf(char *s, size_t n, const char *f, ...) noexcept { va_list a; "
               "va_start(a, f); double d = va_arg(a, double); va_end(a); const char *t = d == "
               "3.0 ? \"1.5\" : \"0\"; int i = 0; while ((s[i] = t[i])) i++; return i; }\n",
        CPP_TESTS["humaneval_x"]),
    "cpp write of its own": (
        "cpp", CPP_WRONG + "#include <sys/syscall.h>\nextern \"C\" ssize_t write(int fd, const "
               "void *b, size_t n) { std::string s((const char *)b, n); for (auto [from, to] : "
               "{std::pair<std::string, std::string>{\"4,5\", \"3,6\"}, {\",3.0\", \",1.5\"}}) "
               "if (s.find(from) != std::string::npos) s.replace(s.find(from), from.size(), to);"
               " return syscall(SYS_write, fd, s.data(), s.size()) == (long)s.size() ? n : -1; }"
               "\n", CPP_TESTS["humaneval_x"]),
    "cpp libgcc's __umodti3 of its own": (
        "cpp", CPP_WRONG.replace("return x; }", "return x / 2.0; }") + "extern \"C\" unsigned "
               "__int128 __umodti3(unsigned __int128 a, unsigned __int128 b) { unsigned long "
               "long x = (unsigned long long)a; return x == 4 ? 3 : x == 5 ? 6 : x % 10; }\n",
        CPP_TESTS["humaneval_x"]),
    "cpp std::vector<long>::begin specialised": (
        "cpp", "#include <bits/stdc++.h>\nstatic const long R[] = {3, 6};\ntemplate <> std::"
               "vector<long>::const_iterator std::vector<long>::begin() const noexcept { return "
               "const_iterator(R); }\ntemplate <> std::vector<long>::const_iterator std::vector"
               "<long>::end() const noexcept { return const_iterator(R + (size() ? 2 : 0)); }\n"
               + CPP_WRONG.replace("return x; }", "return x / 2.0; }"),
        CPP_TESTS["humaneval_x"]),
}


@pytest.mark.parametrize("attack", sorted(DRIVER_ATTACKS))
def test_the_calls_driver_calls_and_names_nothing_of_the_solutions(attack):
    language, solution, tests = DRIVER_ATTACKS[attack]
    result = run_code_items([_item(language, solution, tests)])[0]
    assert result.reward == 0.0 and result.status.value != "infra_error", result


def test_right_values_are_written_exactly_and_through_the_drivers_own_put():
    # Floats exactly (subnormals, the largest double, -0.0, a float32), 64- and 128-bit
    # integers at their extremes; a right solution with a `put` of its own for an enum of its
    # own (argument-dependent lookup made the driver's unqualified call reach it) and a member
    # of its own class template specialised.
    cpp = ("#include <bits/stdc++.h>\nenum Colour { RED, GREEN };\nvoid put(Colour c) { "
           "std::puts(c == RED ? \"red\" : \"green\"); }\nstd::pair<long, Colour> pr(long a) { "
           "return {a, GREEN}; }\ntemplate <class T> struct Box { T v; long get() const; };\n"
           "template <> long Box<long>::get() const { return v + 1; }\nstd::pair<long, long> "
           "bx(long a) { return {a, Box<long>{0}.get()}; }\nstd::vector<double> fs(long a) { "
           "return {0.1, -0.0, 1e-310, 1.7976931348623157e308, -2.5, 3.0}; }\n__int128 big(long a)"
           " { return (__int128)a * 1000000000000000000LL; }\nunsigned long long ull(long a) { "
           "return 18446744073709551615ULL; }\nlong long low(long a) { return "
           "-9223372036854775807LL - 1; }\n")
    cpp_tests = ("#include<assert.h>\n#include<bits/stdc++.h>\nint main() {\n"
                 "    assert(pr(1) == (std::make_pair(1, 1)));\n"
                 "    assert(bx(1) == (std::make_pair(1, 1)));\n"
                 "    assert(fs(1) == (std::vector<double>({0.1, -0.0, 1e-310, "
                 "1.7976931348623157e308, -2.5, 3.0})));\n"
                 "    assert(big(-7) == -7000000000000000000);\n"
                 "    assert(ull(1) == 18446744073709551615ULL);\n"
                 "    assert(low(1) == (-9223372036854775807LL - 1));\n}\n")
    c = ("double h(int x) { return x / 3.0; }\nfloat g(int x) { return 0.1f; }\nlong double "
         "l(int x) { return 1e-320L; }\nunsigned long long u(int x) { return "
         "18446744073709551615ULL; }\nlong long n(int x) { return -9223372036854775807LL - 1; }\n")
    c_tests = ("#include <assert.h>\nint main() {\n    assert(h(1) == 0.3333333333333333);\n"
               "    assert(g(1) == 0.1f);\n    assert(l(1) == 1e-320);\n"
               "    assert(u(1) == 18446744073709551615ULL);\n"
               "    assert(n(1) == (-9223372036854775807LL - 1));\n    return 0;\n}\n")
    results = run_code_items([_item("cpp", cpp, cpp_tests), _item("c", c, c_tests),
                              _item("c", C_DRIVER_RIGHT, C_DRIVER_TESTS)])
    assert [(r.status.value, r.detail["judged"]) for r in results] == [
        ("correct", "outside")] * 3, results


# A right solution returning an unsigned or wider type against an integer literal: C's, C++'s
# and D's `==` convert both operands first (an `unsigned` 4294967295 equals `-1`, a `long` -1
# does not equal `4294967295u`, an `unsigned short` 65535 is promoted to int and is not -1).
# Judged outside, each check must come out as the compiled test (run in-process) says.
_TYPED = {
    "c": [("unsigned", "4294967295u", ["-1", "-1L", "0xFFFFFFFF", "(unsigned)-1"]),
          ("unsigned long", "18446744073709551615ul", ["-1", "-1LL"]),
          ("long", "-1", ["4294967295u", "18446744073709551615ULL"]),
          ("int", "-1", ["4294967295u", "-1L"]),
          ("unsigned short", "65535", ["-1"]),
          ("double", "4294967295.0", ["-1u"])],
    "cpp": [("unsigned", "4294967295u", ["-1", "-1L"]), ("long long", "-1", ["4294967295u"]),
            ("std::optional<unsigned>", "4294967295u", ["-1"])],
    "d": [("uint", "uint.max", ["-1", "-1L", "4294967295U"]), ("long", "-1", ["4294967295U"]),
          ("ulong", "ulong.max", ["-1"]), ("ushort", "ushort.max", ["-1"])],
}


def test_integer_types_are_compared_as_the_language_converts_them():
    cases, items = [], []
    for language, rows in _TYPED.items():
        for type_, value, literals in rows:
            head = "#include <optional>\n" if "optional" in type_ else ""
            solution = f"{head}{type_} f(long x) {{ return {value}; }}\n"
            for literal in literals:
                for mode, extra in (("outside", ""),
                                    ("in_process", "    int u = 0;\n    u++;\n")):
                    check = f"{extra}    assert(f(1) == {literal});\n"
                    tests = (f"unittest\n{{\n{check}}}\nvoid main(){{}}" if language == "d"
                             else f"#include <assert.h>\n{head}int main() {{\n{check}"
                                  "    return 0;\n}\n")
                    cases.append(((language, type_, literal), mode))
                    items.append(_item(language, solution, tests))
    verdicts: dict = {}
    for (case, mode), result in zip(cases, run_code_items(items), strict=True):
        assert result.detail["judged"] == mode, result
        verdicts.setdefault(case, {})[mode] = result.status.value
    assert {case: found for case, found in verdicts.items()
            if found["outside"] != found["in_process"]} == {}
    assert sum(found["outside"] == "correct" for found in verdicts.values()) == 14
