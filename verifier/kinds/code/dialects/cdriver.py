"""What the C and C++ calls drivers write their records with: code of their own, calling no
function of a library.

The driver and the solution are one program, linked as one: a function the solution defines
under a library's name (`write`, `snprintf`, `strlen`, libgcc's `__umodti3`) is the one every
call of that name in the program reaches, the driver's too, so a driver that formatted a float
with `snprintf` or wrote its buffer with `write` recorded what the solution's own said. These
are the drivers' system call and float text, each a function named by the dialect (`NAME`),
compiled in C and C++ alike; a float is written exactly, as C99's hexadecimal text (the
record's `["h", text]`, values.py). The system call needs the compiler's own architecture
macro: a solution that undefines it gets a program that does not compile, not a fallback.
"""

from __future__ import annotations

WRITE = r"""static long NAME(const char *data, unsigned long size) {
#if defined(__x86_64__)
    long result;
    __asm__ volatile ("syscall" : "=a"(result) : "a"(1L), "D"(3L), "S"(data), "d"(size)
                      : "rcx", "r11", "memory");
    return result;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = 64;
    register long x0 __asm__("x0") = 3;
    register long x1 __asm__("x1") = (long)data;
    register long x2 __asm__("x2") = (long)size;
    __asm__ volatile ("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
    return x0;
#else
#error "the calls driver writes by a system call of x86-64 or AArch64"
#endif
}
"""

# A double as `[-]0x1.<13 hex digits>p<exponent>` (`0x0.` for zeros and subnormals): into
# `out` (32 bytes), its length returned. Not for infinities and NaNs (the record's "f").
HEX_FLOAT = r"""static int NAME(double number, char *out) {
    static const char hex[] = "0123456789abcdef";
    union { double number; unsigned long long bits; } pun;
    unsigned long long mantissa, biased;
    long exponent;
    char reversed[8];
    int length = 0, shift, count = 0;
    pun.number = number;
    mantissa = pun.bits & 0xfffffffffffffULL;
    biased = (pun.bits >> 52) & 0x7ffULL;
    if (pun.bits >> 63) out[length++] = '-';
    out[length++] = '0';
    out[length++] = 'x';
    out[length++] = biased ? '1' : '0';
    out[length++] = '.';
    for (shift = 48; shift >= 0; shift -= 4) out[length++] = hex[(mantissa >> shift) & 15];
    out[length++] = 'p';
    exponent = biased ? (long)biased - 1023 : -1022;
    out[length++] = exponent < 0 ? '-' : '+';
    if (exponent < 0) exponent = -exponent;
    do { reversed[count++] = (char)('0' + exponent % 10); exponent /= 10; } while (exponent);
    while (count > 0) out[length++] = reversed[--count];
    return length;
}
"""
