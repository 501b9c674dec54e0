"""Kotlin's side of a calls run: an object, appended to the program, that writes a returned
value on the channel (fd 3) as values.py encodes it.

As java_record.py, in Kotlin: by runtime type and fully qualified names (`kotlin.Int` is the
builtin whatever the solution declares), numbers with their JVM box's name (`Integer`, `Long`:
Kotlin's `==` on boxed values is `equals`, which tells them apart), `Pair` and `Triple` as
tuples, lists, sets, maps; arrays (equal only to themselves) and anything else equal nothing.
Members and qualified functions only where the value is the solution's: an extension of the
solution's (`CharSequence.iterator` for a `for` over a string, `Double.isNaN`) would come
before the library's. A collection of a class of the solution's that declares methods (an
`iterator` of its own) equals nothing; so does a view or wrapper of the library's over one
(`Collections.unmodifiableList`, `asReversed`): of the JDK's and Kotlin's classes only those
that hold their elements themselves are read (java_record.SELF_CONTAINED, KOTLIN_SELF_CONTAINED).
"""

from __future__ import annotations

from verifier.kinds.code.dialects.java_record import BOXES, SELF_CONTAINED

RECORDER = "__VerifierCalls"

# Kotlin's own classes that hold their values (`emptyList()`, `a to b`), and (by the prefix
# kotlin.collections.ArraysKt) its lists over an array (`longArrayOf(...).asList()`), whose
# storage is the array; its other views (`asReversed`) read another object's.
KOTLIN_SELF_CONTAINED = (
    "kotlin.Pair", "kotlin.Triple", "kotlin.collections.EmptyList", "kotlin.collections.EmptySet",
    "kotlin.collections.EmptyMap", "kotlin.collections.ArrayDeque",
    "kotlin.collections.builders.ListBuilder", "kotlin.collections.builders.SetBuilder",
    "kotlin.collections.builders.MapBuilder")

_SOURCE = r"""
object __VerifierCalls {
    private var channel: java.io.OutputStream? = null
    private val selfContained: kotlin.collections.Set<kotlin.String> =
        java.util.HashSet<kotlin.String>(java.util.Arrays.asList(SELF_CONTAINED_NAMES))

    fun record(site: kotlin.Int, value: kotlin.Any?) {
        val line = java.lang.StringBuilder()
        line.append('[').append(site).append(',')
        put(line, value, 0)
        line.append("]\n")
        val out = channel ?: java.io.FileOutputStream("/proc/self/fd/3")
        channel = out
        out.write(line.toString().toByteArray(kotlin.text.Charsets.US_ASCII))
        out.flush()
    }

    private fun text(out: java.lang.StringBuilder, value: kotlin.String) {
        out.append('"')
        var i = 0
        while (i < value.length) {
            val c = value[i]
            if (c == '"' || c == '\\') out.append('\\').append(c)
            else if (c.toInt() in 32..126) out.append(c)
            else out.append(java.lang.String.format("\\u%04x", c.toInt()))
            i += 1
        }
        out.append('"')
    }

    private fun real(out: java.lang.StringBuilder, value: kotlin.Double) {
        if (java.lang.Double.isNaN(value)) out.append("[\"f\",\"nan\"]")
        else if (value == kotlin.Double.POSITIVE_INFINITY) out.append("[\"f\",\"inf\"]")
        else if (value == kotlin.Double.NEGATIVE_INFINITY) out.append("[\"f\",\"-inf\"]")
        else if (value == 0.0 && 1.0 / value < 0) out.append("[\"f\",\"-0\"]")
        else out.append(java.lang.Double.toString(value))
    }

    private fun typed(out: java.lang.StringBuilder, type: kotlin.String) {
        out.append("[\"y\",\"").append(type).append("\",")
    }

    private fun items(out: java.lang.StringBuilder, tag: kotlin.String,
                      values: kotlin.collections.Iterable<*>, depth: kotlin.Int) {
        out.append("[\"").append(tag).append('"')
        for (item in values) {
            out.append(',')
            put(out, item, depth + 1)
        }
        out.append(']')
    }

    // Whether what the serialiser calls on a value of `type` is the library's: a class of the
    // solution's declaring a method (an ArrayList's `iterator`) could make it say anything.
    private fun library(type: java.lang.Class<*>?): kotlin.Boolean {
        var at = type
        while (at != null) {
            if (java.lang.reflect.Proxy.isProxyClass(at)) return false
            if (at.getClassLoader() == null
                || (at.getName() as java.lang.String).startsWith("kotlin.")) {
                return selfContained.contains(at.getName()) || (at.getName() as java.lang.String)
                    .startsWith("kotlin.collections.ArraysKt")
            }
            if (at.getDeclaredMethods().size > 0) return false
            at = at.getSuperclass()
        }
        return true
    }

    private fun put(out: java.lang.StringBuilder, value: kotlin.Any?, depth: kotlin.Int) {
        if (depth > 90) { out.append("[\"x\",\"too deep\"]"); return }
        if (value != null && !library((value as java.lang.Object).getClass())) {
            out.append("[\"x\",\"a class of the solution's\"]")
            return
        }
        when (value) {
            null -> out.append("null")
            is kotlin.Boolean -> out.append(if (value) "true" else "false")
            is kotlin.Int -> { typed(out, "Integer"); out.append(value).append(']') }
            is kotlin.Long -> { typed(out, "Long"); out.append(value).append(']') }
            is kotlin.Short -> { typed(out, "Short"); out.append(value.toLong()).append(']') }
            is kotlin.Byte -> { typed(out, "Byte"); out.append(value.toLong()).append(']') }
            is kotlin.Double -> { typed(out, "Double"); real(out, value); out.append(']') }
            is kotlin.Float -> { typed(out, "Float"); real(out, value.toDouble()); out.append(']') }
            is kotlin.Char -> {
                typed(out, "Character"); text(out, value.toString()); out.append(']')
            }
            is kotlin.String -> text(out, value)
            is kotlin.Pair<*, *> ->
                items(out, "t", kotlin.collections.listOf(value.first, value.second), depth)
            is kotlin.Triple<*, *, *> ->
                items(out, "t", kotlin.collections.listOf(value.first, value.second,
                                                          value.third), depth)
            is kotlin.collections.Map<*, *> -> {
                out.append("[\"m\"")
                for (entry in value.entries) {
                    out.append(',')
                    put(out, entry.key, depth + 1)
                    out.append(',')
                    put(out, entry.value, depth + 1)
                }
                out.append(']')
            }
            is kotlin.collections.Set<*> -> items(out, "s", value, depth)
            is kotlin.collections.List<*> -> items(out, "l", value, depth)
            else -> {
                out.append("[\"x\","); text(out, value.javaClass.simpleName); out.append(']')
            }
        }
    }
}
"""
KOTLIN_RECORDER = _SOURCE.replace("SELF_CONTAINED_NAMES", ", ".join(  # `$`: a template
    '"' + name.replace("$", "\\$") + '"'
    for name in (*BOXES, *SELF_CONTAINED, *KOTLIN_SELF_CONTAINED)))
