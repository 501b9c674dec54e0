"""C assert tests as calls (see cfamily.py for the shapes): `assert(f(ARGS) == K)`, the truth
of a call, `fabs(f(x) - K) < T`, `strcmp(f(x), "s") == 0`.

The driver writes a value by its type, chosen by `_Generic`: integers and chars as numbers,
floats exactly, `char *` as its bytes; anything else (a struct, another pointer) as a value
that equals nothing, so any return type compiles.
"""

from __future__ import annotations

from verifier.code.dialects.cfamily import CFamilyDialect

_PRELUDE = r"""#include <stdio.h>
#include <string.h>
#include <unistd.h>
static void __verifier_send(const char *data, size_t left) {
    while (left > 0) {
        ssize_t written = write(3, data, left);
        if (written <= 0) return;
        data += written;
        left -= (size_t)written;
    }
}
static void __verifier_text(const char *text) { __verifier_send(text, strlen(text)); }
static void __verifier_signed(long long value) {
    char digits[32];
    __verifier_send(digits, (size_t)snprintf(digits, sizeof digits, "%lld", value));
}
static void __verifier_unsigned(unsigned long long value) {
    char digits[32];
    __verifier_send(digits, (size_t)snprintf(digits, sizeof digits, "%llu", value));
}
static void __verifier_bool(_Bool value) { __verifier_text(value ? "true" : "false"); }
static void __verifier_float(long double value) {
    double number = (double)value;
    char digits[40];
    int length, integral = 1;
    if (number != number) { __verifier_text("[\"f\",\"nan\"]"); return; }
    if (number > 1.7976931348623157e308) { __verifier_text("[\"f\",\"inf\"]"); return; }
    if (number < -1.7976931348623157e308) { __verifier_text("[\"f\",\"-inf\"]"); return; }
    length = snprintf(digits, sizeof digits, "%.17g", number);
    for (int i = 0; i < length; ++i)
        integral &= digits[i] == '-' || (digits[i] >= '0' && digits[i] <= '9');
    __verifier_send(digits, (size_t)length);
    if (integral) __verifier_text(".0");
}
static void __verifier_string(const char *text) {
    static const char digits[] = "0123456789abcdef";
    if (text == 0) { __verifier_text("null"); return; }
    __verifier_text("[\"b\",\"");
    for (; *text; ++text) {
        char pair[2] = {digits[(unsigned char)*text >> 4], digits[(unsigned char)*text & 15]};
        __verifier_send(pair, 2);
    }
    __verifier_text("\"]");
}
static void __verifier_unknown() { __verifier_text("[\"x\",\"unknown\"]"); }
static void __verifier_site(int site) {
    char digits[32];
    __verifier_send(digits, (size_t)snprintf(digits, sizeof digits, "[%d,", site));
}
#define __verifier_record(site, value) do { __typeof__(value) __verifier_value = (value); \
    __verifier_site(site); _Generic(__verifier_value, \
    _Bool: __verifier_bool, char: __verifier_signed, signed char: __verifier_signed, \
    unsigned char: __verifier_unsigned, short: __verifier_signed, \
    unsigned short: __verifier_unsigned, int: __verifier_signed, \
    unsigned int: __verifier_unsigned, long: __verifier_signed, \
    unsigned long: __verifier_unsigned, long long: __verifier_signed, \
    unsigned long long: __verifier_unsigned, float: __verifier_float, \
    double: __verifier_float, long double: __verifier_float, char *: __verifier_string, \
    const char *: __verifier_string, default: __verifier_unknown)(__verifier_value); \
    __verifier_text("]\n"); } while (0)
"""


class CDialect(CFamilyDialect):
    language = "c"
    cpp = False
    prelude = _PRELUDE
    record = "__verifier_record({site}, {call});"
