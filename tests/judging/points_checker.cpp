// Checker with partial credit: the best value scores all, one less half (testlib's quitp),
// two less a quarter (testlib's _pc(50)); a negative value makes the checker fail.
#include "judge.h"

int main(int argc, char** argv) {
    judge::start(argc, argv);
    std::FILE* output = judge::open(argv[2]);
    std::FILE* answer = judge::open(argv[3]);
    long best = 0, got = 0;
    if (std::fscanf(answer, "%ld", &best) != 1) judge::failure("the answer has no value");
    if (std::fscanf(output, "%ld", &got) != 1) judge::format("no value");
    if (got < 0) judge::failure("this checker refuses negative values");
    if (got == best) judge::accepted("best");
    if (got == best - 1) judge::points(0.5, "one short");
    if (got == best - 2) judge::partially(50, "two short");
    judge::wrong("too far from the best");
}
