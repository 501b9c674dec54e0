// A tiny judge library (this project's own, for its tests): testlib's calling convention
// (checker: input output answer [result [-appes]]; interactor: input output answer [result
// [-appes]]), its exit codes and its appes result file. Shipped with a checker as a support
// file, the way a request ships testlib.h.
#pragma once
#include <cstdio>
#include <cstdlib>

namespace judge {

inline const char* result_path = nullptr;

[[noreturn]] inline void quit(int code, const char* outcome, const char* attributes,
                              const char* message) {
    if (result_path != nullptr) {
        if (std::FILE* file = std::fopen(result_path, "w")) {
            std::fprintf(file, "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
                               "<result outcome = \"%s\"%s>%s</result>\n",
                         outcome, attributes, message);
            std::fclose(file);
        }
    }
    std::fflush(stdout);
    std::exit(code);
}

[[noreturn]] inline void accepted(const char* message) { quit(0, "accepted", "", message); }
[[noreturn]] inline void wrong(const char* message) { quit(1, "wrong-answer", "", message); }
[[noreturn]] inline void format(const char* message) {
    quit(2, "presentation-error", "", message);
}
[[noreturn]] inline void failure(const char* message) { quit(3, "fail", "", message); }

// testlib's quitp: exit 7, the points in the result file.
[[noreturn]] inline void points(double value, const char* message) {
    char attributes[64];
    std::snprintf(attributes, sizeof attributes, " points = \"%g\"", value);
    quit(7, "points", attributes, message);
}

// testlib's _pc(k), k in 0..200: the exit status is k itself, the result file says so.
[[noreturn]] inline void partially(int k, const char* message) {
    char attributes[64];
    std::snprintf(attributes, sizeof attributes, " pctype = \"%d\"", k);
    quit(k, "partially-correct", attributes, message);
}

inline std::FILE* open(const char* path) {
    std::FILE* file = std::fopen(path, "r");
    if (file == nullptr) failure("cannot open a file");
    return file;
}

inline void start(int argc, char** argv) {
    if (argc > 4) result_path = argv[4];
    if (argc < 4) failure("usage: input output answer [result [-appes]]");
}

}  // namespace judge
