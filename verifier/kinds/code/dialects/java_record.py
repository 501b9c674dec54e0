"""Java's side of a calls run: a class, appended to the program, that writes a returned value
on the channel (fd 3) as values.py encodes it.

It reads values by their runtime class, never by a method the solution could override (a
collection of a class of the solution's that declares methods is a value that equals nothing):
boxed numbers with their type (`Long` 1 is not `Integer` 1 to `equals`), floats exactly
(`Double.toString` of the double a `Float` is), chars and strings (every non-ASCII char as
`\\uXXXX`, lone surrogates included), `Optional` (an empty one is not null), lists, sets,
maps and javatuples (MultiPL-E's `Pair`); an array or anything else is a value that equals
nothing. Of the JDK's classes only those that hold their elements themselves are read (see
SELF_CONTAINED, with an `AbstractList`'s `subList`, which reads as its `equals` does): a view
or wrapper (`Collections.unmodifiableList`, a map's `keySet`) reads through what it wraps,
which may be the solution's, and the JDK's internals are closed to the recorder, so such a value
equals nothing. Names are fully
qualified, so a class of the solution named `Long` or `List` cannot stand in for the JDK's.
Depth is bounded, so a cycle is cut, not followed forever.
"""

from __future__ import annotations

RECORDER = "__VerifierCalls"

# The JDK's classes whose iteration (and Optional's `get`) reads their own storage, never a
# method of another object's (a view's backing collection, a wrapper's delegate): what a
# right solution returns (`ArrayList`, its `subList`, `List.of`, `Arrays.asList`, `Map.of`,
# `Collections.singletonList`, streams' collectors). Their elements are read as values again.
# An AbstractList's `subList` reads its list by `get`, as the language's `equals` of it does
# (HumanEval-X's Java/148 returns one of `Arrays.asList`'s): it says what `equals` says.
SELF_CONTAINED = (
    "java.util.ArrayList", "java.util.ArrayList$SubList", "java.util.AbstractList$SubList",
    "java.util.AbstractList$RandomAccessSubList", "java.util.LinkedList",
    "java.util.Vector", "java.util.Stack", "java.util.concurrent.CopyOnWriteArrayList",
    "java.util.Arrays$ArrayList", "java.util.ImmutableCollections$List12",
    "java.util.ImmutableCollections$ListN", "java.util.ImmutableCollections$SubList",
    "java.util.ImmutableCollections$Set12", "java.util.ImmutableCollections$SetN",
    "java.util.ImmutableCollections$Map1", "java.util.ImmutableCollections$MapN",
    "java.util.Collections$EmptyList", "java.util.Collections$EmptySet",
    "java.util.Collections$EmptyMap", "java.util.Collections$SingletonList",
    "java.util.Collections$SingletonSet", "java.util.Collections$SingletonMap",
    "java.util.Collections$CopiesList", "java.util.HashMap", "java.util.LinkedHashMap",
    "java.util.TreeMap", "java.util.HashSet", "java.util.LinkedHashSet", "java.util.TreeSet",
    "java.util.Optional", "java.lang.Object")

# The JDK's final classes of plain values (Java's recorder reads them before it asks whose a
# class is; Kotlin's and Scala's ask first).
BOXES = ("java.lang.Boolean", "java.lang.Byte", "java.lang.Short", "java.lang.Integer",
         "java.lang.Long", "java.lang.Float", "java.lang.Double", "java.lang.Character",
         "java.lang.String")

_SOURCE = r"""
final class __VerifierCalls {
    private static java.io.OutputStream channel;
    private static final java.util.Set<java.lang.String> SELF_CONTAINED = java.util.Set.of(
        SELF_CONTAINED_NAMES);
    private static final java.util.Set<java.lang.String> TUPLES = java.util.Set.of(
        "org.javatuples.Unit", "org.javatuples.Pair", "org.javatuples.Triplet",
        "org.javatuples.Quartet", "org.javatuples.Quintet", "org.javatuples.Sextet",
        "org.javatuples.Septet", "org.javatuples.Octet", "org.javatuples.Ennead",
        "org.javatuples.Decade");

    static void record(int site, java.lang.Object value) {
        java.lang.StringBuilder line = new java.lang.StringBuilder();
        line.append('[').append(site).append(',');
        put(line, value, 0);
        line.append("]\n");
        try {
            if (channel == null) channel = new java.io.FileOutputStream("/proc/self/fd/3");
            channel.write(line.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            channel.flush();
        } catch (java.io.IOException e) {
            throw new java.lang.IllegalStateException("the channel is closed");
        }
    }

    private static void text(java.lang.StringBuilder out, java.lang.String value) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c >= 32 && c < 127) out.append(c);
            else out.append(java.lang.String.format("\\u%04x", (int) c));
        }
        out.append('"');
    }

    private static void typed(java.lang.StringBuilder out, java.lang.String type) {
        out.append("[\"y\",\"").append(type).append("\",");
    }

    private static void real(java.lang.StringBuilder out, double value) {
        if (java.lang.Double.isNaN(value)) out.append("[\"f\",\"nan\"]");
        else if (value == java.lang.Double.POSITIVE_INFINITY) out.append("[\"f\",\"inf\"]");
        else if (value == java.lang.Double.NEGATIVE_INFINITY) out.append("[\"f\",\"-inf\"]");
        else if (value == 0.0 && 1.0 / value < 0) out.append("[\"f\",\"-0\"]");
        else out.append(java.lang.Double.toString(value));
    }

    // Whether what the serialiser calls on a value of `type` is the library's: a class of the
    // solution's declaring a method (an ArrayList's `iterator`, an AbstractList's `get`) could
    // make it say anything; one declaring none (`new ArrayList<>() {{ add(1); }}`) cannot.
    // Of the JDK's classes, only those that read their own storage (SELF_CONTAINED). A proxy
    // is the solution's handler, whatever loader defined it (given none, the bootstrap one).
    private static boolean library(java.lang.Class<?> type) {
        for (java.lang.Class<?> at = type; at != null; at = at.getSuperclass()) {
            if (java.lang.reflect.Proxy.isProxyClass(at)) return false;
            if (at.getClassLoader() == null) return SELF_CONTAINED.contains(at.getName());
            if (at.getDeclaredMethods().length > 0) return false;
        }
        return true;
    }

    // A javatuples tuple's values (MultiPL-E's Pair), read from the array its Tuple holds as a
    // field, never through a method: a class of that name may be the solution's (a lookup of
    // a javatuples class, MethodHandles.privateLookupIn, defines any class in the package,
    // with the jar's protection domain), and then what it holds is what it is. Else null.
    private static java.lang.Object[] tuple(java.lang.Object value) {
        if (!TUPLES.contains(value.getClass().getName())) return null;
        for (java.lang.Class<?> at = value.getClass(); at != null; at = at.getSuperclass()) {
            if (!at.getName().equals("org.javatuples.Tuple")) continue;
            try {
                java.lang.reflect.Field field = at.getDeclaredField("valueArray");
                field.setAccessible(true);
                java.lang.Object held = field.get(value);
                return held instanceof java.lang.Object[] ? (java.lang.Object[]) held : null;
            } catch (java.lang.ReflectiveOperationException | java.lang.RuntimeException e) {
                return null;
            }
        }
        return null;
    }

    private static void items(java.lang.StringBuilder out, java.lang.String tag,
                              java.lang.Iterable<?> values, int depth) {
        out.append("[\"").append(tag).append('"');
        for (java.lang.Object item : values) {
            out.append(',');
            put(out, item, depth + 1);
        }
        out.append(']');
    }

    static void put(java.lang.StringBuilder out, java.lang.Object value, int depth) {
        if (depth > 90) { out.append("[\"x\",\"too deep\"]"); return; }
        if (value == null) { out.append("null"); return; }
        if (value instanceof java.lang.Boolean) {
            out.append(((java.lang.Boolean) value).booleanValue() ? "true" : "false");
        } else if (value instanceof java.lang.Long || value instanceof java.lang.Integer
                || value instanceof java.lang.Short || value instanceof java.lang.Byte) {
            typed(out, value.getClass().getSimpleName());
            out.append(((java.lang.Number) value).longValue()).append(']');
        } else if (value instanceof java.lang.Double || value instanceof java.lang.Float) {
            typed(out, value.getClass().getSimpleName());
            real(out, ((java.lang.Number) value).doubleValue());
            out.append(']');
        } else if (value instanceof java.lang.Character) {
            typed(out, "Character");
            text(out, java.lang.String.valueOf(((java.lang.Character) value).charValue()));
            out.append(']');
        } else if (value instanceof java.lang.String) {
            text(out, (java.lang.String) value);
        } else if (tuple(value) != null) {
            items(out, "t", java.util.Arrays.asList(tuple(value)), depth);
        } else if (!library(value.getClass())) {
            out.append("[\"x\",\"a class of the solution's\"]");
        } else if (value instanceof java.util.Optional) {
            java.util.Optional<?> optional = (java.util.Optional<?>) value;
            if (optional.isPresent()) {
                out.append("[\"?\",");
                put(out, optional.get(), depth + 1);
                out.append(']');
            } else {
                out.append("[\"y\",\"Optional\",null]");
            }
        } else if (value instanceof java.util.Map) {
            out.append("[\"m\"");
            for (java.util.Map.Entry<?, ?> entry : ((java.util.Map<?, ?>) value).entrySet()) {
                out.append(',');
                put(out, entry.getKey(), depth + 1);
                out.append(',');
                put(out, entry.getValue(), depth + 1);
            }
            out.append(']');
        } else if (value instanceof java.util.Set) {
            items(out, "s", (java.lang.Iterable<?>) value, depth);
        } else if (value instanceof java.util.List) {
            items(out, "l", (java.lang.Iterable<?>) value, depth);
        } else {
            out.append("[\"x\",\"").append(value.getClass().getSimpleName().replaceAll(
                "[^A-Za-z0-9_$.]", "?")).append("\"]");
        }
    }
}
"""
JAVA_RECORDER = _SOURCE.replace("SELF_CONTAINED_NAMES", ", ".join(
    f'"{name}"' for name in SELF_CONTAINED))
