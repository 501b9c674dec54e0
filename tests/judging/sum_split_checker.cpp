// Checker written against testlib's API, as Codeforces checkers are: the output is two
// numbers a <= b, both in [0, n], with a + b = n (many right answers); a + b = n with a > b
// earns half the points (quitp).
#include "testlib.h"

int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int n = inf.readInt(1, 1000000, "n");
    int a = ouf.readInt(0, n, "a");
    int b = ouf.readInt(0, n, "b");
    int jury_a = ans.readInt(0, n, "jury's a");
    ensuref(jury_a + ans.readInt() == n, "the jury's answer does not add up");
    if (!ouf.seekEof()) quitf(_pe, "more than two numbers");
    if (a + b != n) quitf(_wa, "%d + %d is not %d", a, b, n);
    if (a > b) quitp(0.5, "the two numbers are out of order");
    quitf(_ok, "%d = %d + %d", n, a, b);
}
