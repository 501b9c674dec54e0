// Checker: the output must be a permutation of 1..n that does not start with 1 (many right
// answers). Reads the input and the contestant's output; the answer file is a sample only.
#include <vector>

#include "judge.h"

int main(int argc, char** argv) {
    judge::start(argc, argv);
    std::FILE* input = judge::open(argv[1]);
    std::FILE* output = judge::open(argv[2]);
    int n = 0;
    if (std::fscanf(input, "%d", &n) != 1 || n < 2) judge::failure("the input has no n");
    std::vector<bool> seen(n + 1, false);
    for (int i = 0; i < n; ++i) {
        int x = 0;
        if (std::fscanf(output, "%d", &x) != 1) judge::format("fewer than n numbers");
        if (x < 1 || x > n || seen[x]) judge::wrong("not a permutation of 1..n");
        if (i == 0 && x == 1) judge::wrong("the permutation starts with 1");
        seen[x] = true;
    }
    int extra = 0;
    if (std::fscanf(output, "%d", &extra) == 1) judge::format("more than n numbers");
    judge::accepted("a permutation of 1..n not starting with 1");
}
