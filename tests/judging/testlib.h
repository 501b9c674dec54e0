// A small stand-in for testlib.h (this project's own, for its tests): the part of testlib's
// API that checkers are written against (registerTestlibCmd, the inf/ouf/ans streams and their
// read* methods, quitf/quitp/quit, ensuref, _ok/_wa/_pe/_fail/_points/_pc), with testlib's
// argv, exit codes (0, 1, 2, 3, 7; _pc(k) exits k) and its -appes result file. A checker that
// compiles against it compiles against testlib.h unchanged.
#pragma once
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

enum TResult { _ok = 0, _wa = 1, _pe = 2, _fail = 3, _points = 7, _partially = 16 };
inline TResult _pc(int k) { return TResult(_partially + k); }

inline const char* testlib_result_path = nullptr;

[[noreturn]] inline void testlib_quit(TResult result, double points, const std::string& message) {
    int code = result >= _partially ? result - _partially : int(result);
    static const char* names[] = {"accepted", "wrong-answer", "presentation-error", "fail",
                                  "", "", "", "points"};
    const char* outcome = result >= _partially ? "partially-correct" : names[result];
    if (testlib_result_path != nullptr) {
        if (std::FILE* file = std::fopen(testlib_result_path, "w")) {
            std::fprintf(file, "<?xml version=\"1.0\" encoding=\"windows-1251\"?>");
            if (result == _points)
                std::fprintf(file, "<result outcome = \"%s\" points = \"%g\">", outcome, points);
            else if (result >= _partially)
                std::fprintf(file, "<result outcome = \"%s\" pctype = \"%d\">", outcome, code);
            else
                std::fprintf(file, "<result outcome = \"%s\">", outcome);
            std::fprintf(file, "%s</result>\n", message.c_str());
            std::fclose(file);
        }
    }
    std::fprintf(stderr, "%s %s\n", outcome, message.c_str());
    std::exit(code);
}

inline std::string testlib_format(const char* format, va_list args) {
    char buffer[4096];
    std::vsnprintf(buffer, sizeof buffer, format, args);
    return buffer;
}

[[noreturn]] inline void quitf(TResult result, const char* format, ...) {
    va_list args;
    va_start(args, format);
    std::string message = testlib_format(format, args);
    va_end(args);
    testlib_quit(result, 0, message);
}

[[noreturn]] inline void quit(TResult result, const std::string& message) {
    testlib_quit(result, 0, message);
}

[[noreturn]] inline void quitp(double points, const std::string& message = "") {
    testlib_quit(_points, points, message);
}

inline void ensuref(bool condition, const char* format, ...) {
    if (condition) return;
    va_list args;
    va_start(args, format);
    std::string message = testlib_format(format, args);
    va_end(args);
    testlib_quit(_fail, 0, message);
}

// A stream over one file; a read that fails blames the contestant for `ouf` (presentation
// error) and the test data for `inf` and `ans` (the checker's failure), as testlib does.
struct InStream {
    std::FILE* file = nullptr;
    TResult on_error = _fail;

    void init(const char* path, TResult error) {
        on_error = error;
        file = std::fopen(path, "r");
        if (file == nullptr) testlib_quit(_fail, 0, std::string("cannot open ") + path);
    }
    void skipBlanks() {
        int c;
        while ((c = std::fgetc(file)) != EOF && std::isspace(c)) {}
        if (c != EOF) std::ungetc(c, file);
    }
    bool seekEof() {
        skipBlanks();
        int c = std::fgetc(file);
        if (c == EOF) return true;
        std::ungetc(c, file);
        return false;
    }
    bool eof() { return seekEof(); }
    std::string readToken(const char* name = "token") {
        skipBlanks();
        std::string token;
        int c;
        while ((c = std::fgetc(file)) != EOF && !std::isspace(c)) token += char(c);
        if (token.empty()) testlib_quit(on_error, 0, std::string("unexpected eof reading ") + name);
        return token;
    }
    std::string readWord(const char* name = "word") { return readToken(name); }
    long long readLong(long long low, long long high, const char* name = "integer") {
        std::string token = readToken(name);
        char* end = nullptr;
        long long value = std::strtoll(token.c_str(), &end, 10);
        if (*end != '\0') testlib_quit(on_error, 0, std::string("expected an integer: ") + name);
        if (value < low || value > high)
            testlib_quit(on_error == _pe ? _wa : on_error, 0,
                         std::string(name) + " is out of range");
        return value;
    }
    long long readLong() { return readLong(-(1LL << 62), 1LL << 62); }
    int readInt(int low, int high, const char* name = "integer") {
        return int(readLong(low, high, name));
    }
    int readInt() { return readInt(-2147483647 - 1, 2147483647); }
    double readDouble(const char* name = "double") {
        std::string token = readToken(name);
        char* end = nullptr;
        double value = std::strtod(token.c_str(), &end);
        if (*end != '\0') testlib_quit(on_error, 0, std::string("expected a number: ") + name);
        return value;
    }
};

inline InStream inf, ouf, ans;

// checker <input> <output> <answer> [<result file> [-appes]]
inline void registerTestlibCmd(int argc, char* argv[]) {
    if (argc < 4) testlib_quit(_fail, 0, "usage: checker input output answer [result [-appes]]");
    if (argc >= 6 && std::strcmp(argv[5], "-appes") == 0) testlib_result_path = argv[4];
    inf.init(argv[1], _fail);
    ouf.init(argv[2], _pe);
    ans.init(argv[3], _fail);
}
