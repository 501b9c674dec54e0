// Interactor: the solution guesses a hidden number in [1, 10^9] (from the input file) with
// queries "? g" answered "<", ">" or "=", at most 40, then states it with "! g". testlib's
// convention: argv input output answer result; verdict by exit code and result file.
#include <cstring>

#include "judge.h"

int main(int argc, char** argv) {
    judge::start(argc, argv);
    long hidden = 0;
    if (std::fscanf(judge::open(argv[1]), "%ld", &hidden) != 1) judge::failure("no number");
    std::FILE* transcript = std::fopen(argv[2], "w");
    char kind[4];
    long guess = 0;
    for (int queries = 0; std::scanf("%3s %ld", kind, &guess) == 2;) {
        if (std::strcmp(kind, "!") == 0) {
            std::fprintf(transcript, "%ld\n", guess);
            std::fclose(transcript);
            if (guess == hidden) judge::accepted("found it");
            judge::wrong("that is not the number");
        }
        if (std::strcmp(kind, "?") != 0) judge::format("queries start with ? or !");
        if (++queries > 40) judge::wrong("more than 40 queries");
        std::printf("%s\n", guess == hidden ? "=" : hidden < guess ? "<" : ">");
        std::fflush(stdout);
    }
    judge::format("the solution stopped before stating the number");
}
