"""Scala's side of a calls run: an object, appended to the program, that writes a returned
value on the channel (fd 3) as values.py encodes it.

As java_record.py, in Scala (2.11): by runtime type and fully qualified names, numbers with
their JVM box's name, tuples (`scala.TupleN`) as tuples, `Some` as an optional and `None` as
`Option`'s empty one (not null), Scala's and Java's sequences as lists, sets, maps; arrays
(equal only to themselves) and anything else equal nothing. So does a view or wrapper over a
collection that may be the solution's: of the JDK's classes only those that hold their elements
themselves are read (java_record.SELF_CONTAINED), and none of Scala's views (`view`) or
wrappers of Java's collections (`asScala`, scala.collection.convert).
"""

from __future__ import annotations

from verifier.kinds.code.dialects.java_record import BOXES, SELF_CONTAINED

RECORDER = "__VerifierCalls"

_SOURCE = r"""
object __VerifierCalls {
  private var channel: java.io.OutputStream = null
  private val selfContained: java.util.Set[java.lang.String] = new java.util.HashSet(
    java.util.Arrays.asList(SELF_CONTAINED_NAMES))

  def record(site: scala.Int, value: scala.Any): scala.Unit = {
    val line = new java.lang.StringBuilder()
    line.append('[').append(site).append(',')
    put(line, value, 0)
    line.append("]\n")
    if (channel == null) channel = new java.io.FileOutputStream("/proc/self/fd/3")
    channel.write(line.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII))
    channel.flush()
  }

  private def text(out: java.lang.StringBuilder, value: java.lang.String): scala.Unit = {
    out.append('"')
    var i = 0
    while (i < value.length) {
      val c = value.charAt(i)
      if (c == '"' || c == '\\') out.append('\\').append(c)
      else if (c >= 32 && c < 127) out.append(c)
      else out.append(java.lang.String.format("\\u%04x", java.lang.Integer.valueOf(c.toInt)))
      i += 1
    }
    out.append('"')
  }

  private def real(out: java.lang.StringBuilder, value: scala.Double): scala.Unit = {
    if (java.lang.Double.isNaN(value)) out.append("[\"f\",\"nan\"]")
    else if (value == java.lang.Double.POSITIVE_INFINITY) out.append("[\"f\",\"inf\"]")
    else if (value == java.lang.Double.NEGATIVE_INFINITY) out.append("[\"f\",\"-inf\"]")
    else if (value == 0.0 && 1.0 / value < 0) out.append("[\"f\",\"-0\"]")
    else out.append(java.lang.Double.toString(value))
  }

  private def typed(out: java.lang.StringBuilder, name: java.lang.String): scala.Unit = {
    out.append("[\"y\",\"").append(name).append("\",")
  }

  private def items(out: java.lang.StringBuilder, tag: java.lang.String,
                    values: scala.collection.Iterator[scala.Any], depth: scala.Int): scala.Unit = {
    out.append("[\"").append(tag).append('"')
    while (values.hasNext) {
      out.append(',')
      put(out, values.next(), depth + 1)
    }
    out.append(']')
  }

  // Whether what the serialiser calls on a value of `start` is the library's: a class of the
  // solution's declaring a method (a Seq's `iterator`) could make it say anything. Scala's
  // classes are its library's jar's: one the solution declares in a package `scala` is loaded
  // from the program's own classes.
  private def library(start: java.lang.Class[_]): scala.Boolean = {
    var at: java.lang.Class[_] = start
    while (at != null) {
      if (java.lang.reflect.Proxy.isProxyClass(at)) return false
      if (at.getClassLoader == null) return selfContained.contains(at.getName)
      if (at.getName.startsWith("scala.") && (at.getClassLoader eq __VerifierCalls.getClass
          .getClassLoader) && source(at) != source(__VerifierCalls.getClass)) {
        return !at.getName.startsWith("scala.collection.convert.") && !at.getName.contains("View")
      }
      if (at.getDeclaredMethods.length > 0) return false
      at = at.getSuperclass
    }
    true
  }

  private def source(of: java.lang.Class[_]): java.lang.String = {
    val found = of.getProtectionDomain.getCodeSource
    if (found == null) "" else java.lang.String.valueOf(found.getLocation)
  }

  private def put(out: java.lang.StringBuilder, value: scala.Any, depth: scala.Int): scala.Unit = {
    if (depth > 90) { out.append("[\"x\",\"too deep\"]"); return }
    value match {
      case null => out.append("null")
      case b: scala.Boolean => out.append(if (b) "true" else "false")
      case n: scala.Int => typed(out, "Integer"); out.append(n).append(']')
      case n: scala.Long => typed(out, "Long"); out.append(n).append(']')
      case n: scala.Short => typed(out, "Short"); out.append(n.toLong).append(']')
      case n: scala.Byte => typed(out, "Byte"); out.append(n.toLong).append(']')
      case d: scala.Double => typed(out, "Double"); real(out, d); out.append(']')
      case f: scala.Float => typed(out, "Float"); real(out, f.toDouble); out.append(']')
      case c: scala.Char =>
        typed(out, "Character"); text(out, java.lang.String.valueOf(c)); out.append(']')
      case s: java.lang.String => text(out, s)
      case other: scala.AnyRef if !library(other.getClass) =>
        out.append("[\"x\",\"a class of the solution's\"]")
      case scala.Some(held) =>
        out.append("[\"?\","); put(out, held, depth + 1); out.append(']')
      case scala.None => out.append("[\"y\",\"Option\",null]")
      case m: scala.collection.Map[_, _] =>
        out.append("[\"m\"")
        val entries = m.iterator
        while (entries.hasNext) {
          val (key, held) = entries.next()
          out.append(','); put(out, key, depth + 1)
          out.append(','); put(out, held, depth + 1)
        }
        out.append(']')
      case s: scala.collection.Set[_] => items(out, "s", s.iterator, depth)
      case s: scala.collection.Seq[_] => items(out, "l", s.iterator, depth)
      case p: scala.Product if p.getClass.getName.startsWith("scala.Tuple") =>
        items(out, "t", p.productIterator, depth)
      case l: java.util.List[_] =>
        out.append("[\"l\"")
        val all = l.iterator()
        while (all.hasNext) { out.append(','); put(out, all.next(), depth + 1) }
        out.append(']')
      case other =>
        out.append("[\"x\","); text(out, other.getClass.getSimpleName); out.append(']')
    }
  }
}
"""
SCALA_RECORDER = _SOURCE.replace("SELF_CONTAINED_NAMES", ", ".join(
    f'"{name}"' for name in (*BOXES, *SELF_CONTAINED)))
