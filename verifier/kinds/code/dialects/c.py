"""C assert tests as calls (see cfamily.py for the shapes): `assert(f(ARGS) == K)`, the truth
of a call, `fabs(f(x) - K) < T`, `strcmp(f(x), "s") == 0`.

The driver writes a value by its type, chosen by `_Generic` (the records in a buffer, written
out by a system call of its own when it is full and when the calls are done; it needs no
header and is compiled without optimisation, so the program compiles about as fast as the
tests it replaces): integers and chars as numbers (those `==` converts with their type:
`unsigned`, `long`, cintegers.py),
floats exactly, `char *` as its bytes; anything else (a struct, another pointer) as a value
that equals nothing, so any return type compiles. It calls no library function (cdriver.py),
and its names are drawn per program.
"""

from __future__ import annotations

from verifier.kinds.code.dialects.cdriver import HEX_FLOAT, WRITE
from verifier.kinds.code.dialects.cfamily import CFamilyDialect
from verifier.kinds.code.dialects.core import CallsPlan, renamed_driver

_PRELUDE = r"""#pragma GCC push_options
#pragma GCC optimize ("O0")
static char __verifier_buffer[1 << 16];
static unsigned long __verifier_used = 0;
__VERIFIER_WRITE
static void __verifier_flush(void) {
    const char *data = __verifier_buffer;
    while (__verifier_used > 0) {
        long written = __verifier_write(data, __verifier_used);
        if (written <= 0) { __verifier_used = 0; return; }
        data += written;
        __verifier_used -= (unsigned long)written;
    }
}
static void __verifier_send(const char *data, unsigned long size) {
    for (unsigned long i = 0; i < size; ++i) {
        if (__verifier_used == sizeof __verifier_buffer) __verifier_flush();
        __verifier_buffer[__verifier_used++] = data[i];
    }
}
static void __verifier_text(const char *text) {
    unsigned long length = 0;
    while (text[length]) ++length;
    __verifier_send(text, length);
}
static void __verifier_unsigned(unsigned long long value) {
    char digits[24];
    int length = 0;
    do { digits[length++] = (char)('0' + value % 10); value /= 10; } while (value);
    while (length > 0) __verifier_send(&digits[--length], 1);
}
static void __verifier_signed(long long value) {
    if (value < 0) __verifier_text("-");
    __verifier_unsigned(value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value);
}
static void __verifier_bool(_Bool value) { __verifier_text(value ? "true" : "false"); }
static void __verifier_u32(unsigned long long value) {
    __verifier_text("[\"y\",\"u32\",");
    __verifier_unsigned(value);
    __verifier_text("]");
}
static void __verifier_u64(unsigned long long value) {
    __verifier_text("[\"y\",\"u64\",");
    __verifier_unsigned(value);
    __verifier_text("]");
}
static void __verifier_i64(long long value) {
    __verifier_text("[\"y\",\"i64\",");
    __verifier_signed(value);
    __verifier_text("]");
}
__VERIFIER_HEX_FLOAT
static void __verifier_float(long double value) {
    double number = (double)value;
    char digits[32];
    if (number != number) { __verifier_text("[\"f\",\"nan\"]"); return; }
    if (number > 1.7976931348623157e308) { __verifier_text("[\"f\",\"inf\"]"); return; }
    if (number < -1.7976931348623157e308) { __verifier_text("[\"f\",\"-inf\"]"); return; }
    __verifier_text("[\"h\",\"");
    __verifier_send(digits, (unsigned long)__verifier_hex_float(number, digits));
    __verifier_text("\"]");
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
static void __verifier_site(int site) {
    __verifier_text("[");
    __verifier_signed(site);
    __verifier_text(",");
}
#define __verifier_recorder(name, type, write) \
    __attribute__((noinline)) static void name(int site, type value) { \
        __verifier_site(site); write(value); __verifier_text("]\n"); }
__verifier_recorder(__verifier_record_bool, _Bool, __verifier_bool)
__verifier_recorder(__verifier_record_signed, long long, __verifier_signed)
__verifier_recorder(__verifier_record_unsigned, unsigned long long, __verifier_unsigned)
__verifier_recorder(__verifier_record_u32, unsigned long long, __verifier_u32)
__verifier_recorder(__verifier_record_u64, unsigned long long, __verifier_u64)
__verifier_recorder(__verifier_record_i64, long long, __verifier_i64)
__verifier_recorder(__verifier_record_float, long double, __verifier_float)
__verifier_recorder(__verifier_record_string, const char *, __verifier_string)
__attribute__((noinline)) static void __verifier_record_unknown(int site, ...) {
    __verifier_site(site);
    __verifier_text("[\"x\",\"unknown\"]]\n");
}
#pragma GCC pop_options
#define __verifier_record(site, value) _Generic((value), \
    _Bool: __verifier_record_bool, char: __verifier_record_signed, \
    signed char: __verifier_record_signed, unsigned char: __verifier_record_unsigned, \
    short: __verifier_record_signed, unsigned short: __verifier_record_unsigned, \
    int: __verifier_record_signed, unsigned int: __verifier_record_u32, \
    long: __verifier_record_i64, unsigned long: __verifier_record_u64, \
    long long: __verifier_record_i64, unsigned long long: __verifier_record_u64, \
    float: __verifier_record_float, double: __verifier_record_float, \
    long double: __verifier_record_float, char *: __verifier_record_string, \
    const char *: __verifier_record_string, default: __verifier_record_unknown)(site, value)
""".replace("__VERIFIER_WRITE", WRITE.replace("NAME", "__verifier_write")).replace(
    "__VERIFIER_HEX_FLOAT", HEX_FLOAT.replace("NAME", "__verifier_hex_float"))


class CDialect(CFamilyDialect):
    language = "c"
    cpp = False
    prelude = _PRELUDE
    record = "__verifier_record({site}, {call});"
    finish = "__verifier_flush();"

    def program(self, solution: str, plan: CallsPlan) -> str:
        """The solution and the driver, every name of the driver's (`__verifier_buffer`...)
        drawn per program: a solution that declared them first (C allows a static object's
        tentative definitions, a static function's declarations) rewrote the records in the
        driver's buffer."""
        return renamed_driver(solution, plan.driver, "__verifier_")
