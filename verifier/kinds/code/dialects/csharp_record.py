"""C#'s side of a calls run: a class, appended to the program, that writes a returned value on
the channel (fd 3) as values.py encodes it.

It reads values by their runtime type, never by a method the solution could override
(`Equals`, `ToString`): numbers with their CLR type (`Int64` 1 is not `Int32` 1 to `Equals`),
floats exactly (17 significant digits, read back to the same double), chars and strings
(non-ASCII as \\uXXXX), dictionaries, sets, tuples (`Tuple.Create`, value tuples), and any other
sequence as a list; anything else, and a sequence of a class of the solution's that declares
methods (a `GetEnumerator` of its own), is a value that equals nothing. Every name is `global::`
qualified, so no class of the solution (a `Debug`, a `System`) stands in for the framework's.
Depth is bounded.
"""

from __future__ import annotations

RECORDER = "global::__VerifierCalls"

CSHARP_RECORDER = r"""
static class __VerifierCalls {
    static global::System.IO.Stream channel;
    static readonly global::System.IFormatProvider Invariant =
        global::System.Globalization.CultureInfo.InvariantCulture;

    public static void Record(int site, object value) {
        var line = new global::System.Text.StringBuilder();
        line.Append('[').Append(site.ToString(Invariant)).Append(',');
        Put(line, value, 0);
        line.Append("]\n");
        if (channel == null) {
            channel = new global::System.IO.FileStream(
                "/proc/self/fd/3", global::System.IO.FileMode.Open,
                global::System.IO.FileAccess.Write);
        }
        byte[] data = global::System.Text.Encoding.ASCII.GetBytes(line.ToString());
        channel.Write(data, 0, data.Length);
        channel.Flush();
    }

    static void Text(global::System.Text.StringBuilder o, string value) {
        o.Append('"');
        foreach (char c in value) {
            if (c == '"' || c == '\\') o.Append('\\').Append(c);
            else if (c >= 32 && c < 127) o.Append(c);
            else o.Append("\\u").Append(((int) c).ToString("x4", Invariant));
        }
        o.Append('"');
    }

    static void Real(global::System.Text.StringBuilder o, double value) {
        if (double.IsNaN(value)) o.Append("[\"f\",\"nan\"]");
        else if (double.IsPositiveInfinity(value)) o.Append("[\"f\",\"inf\"]");
        else if (double.IsNegativeInfinity(value)) o.Append("[\"f\",\"-inf\"]");
        else if (value == 0 && 1 / value < 0) o.Append("[\"f\",\"-0\"]");
        else {
            string digits = value.ToString("G17", Invariant);
            o.Append(digits);
            if (digits.IndexOf('.') < 0 && digits.IndexOf('E') < 0) o.Append(".0");
        }
    }

    // Whether what the serialiser calls on a value of `type` is the framework's: a class of the
    // solution's declaring a method (an IEnumerable.GetEnumerator of its own) could make it say
    // anything. The compiler's (a `yield` method's iterator, named with `<`) is what its
    // source yields. A transparent proxy (RealProxy) says it is of the interface it proxies:
    // its calls are the solution's Invoke.
    // The framework's assemblies are those installed with it (not one the solution emits or
    // loads at run time, whose types are its own).
    static readonly string Framework = global::System.IO.Path.GetDirectoryName(
        global::System.IO.Path.GetDirectoryName(typeof(object).Assembly.Location)) + "/";
    static bool Library(global::System.Type type) {
        for (var at = type; at != null; at = at.BaseType) {
            if ((!at.Assembly.IsDynamic && at.Assembly.Location.StartsWith(
                    Framework, global::System.StringComparison.Ordinal))
                || at.FullName.IndexOf('<') >= 0) return true;
            if (at.GetMethods(global::System.Reflection.BindingFlags.DeclaredOnly
                              | global::System.Reflection.BindingFlags.Instance
                              | global::System.Reflection.BindingFlags.Static
                              | global::System.Reflection.BindingFlags.Public
                              | global::System.Reflection.BindingFlags.NonPublic).Length > 0) {
                return false;
            }
        }
        return true;
    }

    static void Put(global::System.Text.StringBuilder o, object value, int depth) {
        if (depth > 90) { o.Append("[\"x\",\"too deep\"]"); return; }
        if (value == null) { o.Append("null"); return; }
        global::System.Type type = value.GetType();
        string name = type.FullName ?? "";
        if (value is bool) {
            o.Append((bool) value ? "true" : "false");
        } else if (value is long || value is int || value is short || value is sbyte
                   || value is byte || value is ushort || value is uint) {
            o.Append("[\"y\",\"").Append(type.Name).Append("\",");
            o.Append(global::System.Convert.ToInt64(value).ToString(Invariant)).Append(']');
        } else if (value is ulong) {
            o.Append("[\"y\",\"UInt64\",").Append(((ulong) value).ToString(Invariant));
            o.Append(']');
        } else if (value is double || value is float) {
            o.Append("[\"y\",\"").Append(type.Name).Append("\",");
            Real(o, value is float ? (double) (float) value : (double) value);
            o.Append(']');
        } else if (value is char) {
            o.Append("[\"y\",\"Char\",");
            Text(o, value.ToString());
            o.Append(']');
        } else if (value is string) {
            Text(o, (string) value);
        } else if (global::System.Runtime.Remoting.RemotingServices.IsTransparentProxy(value)
                   || !Library(type)) {
            o.Append("[\"x\",\"a class of the solution's\"]");
        } else if (value is global::System.Collections.IDictionary) {
            o.Append("[\"m\"");
            var entries = (global::System.Collections.IDictionary) value;
            foreach (global::System.Collections.DictionaryEntry entry in entries) {
                o.Append(',');
                Put(o, entry.Key, depth + 1);
                o.Append(',');
                Put(o, entry.Value, depth + 1);
            }
            o.Append(']');
        } else if (name.StartsWith("System.Tuple`") || name.StartsWith("System.ValueTuple`")) {
            o.Append("[\"t\"");
            for (int i = 1; i <= 7; i++) {
                var property = type.GetProperty("Item" + i);
                var field = type.GetField("Item" + i);
                if (property == null && field == null) break;
                o.Append(',');
                object item = property != null ? property.GetValue(value, null)
                                               : field.GetValue(value);
                Put(o, item, depth + 1);
            }
            o.Append(']');
        } else if (value is global::System.Collections.IEnumerable) {
            bool set = type.GetInterface("ISet`1") != null;
            o.Append(set ? "[\"s\"" : "[\"l\"");
            foreach (object item in (global::System.Collections.IEnumerable) value) {
                o.Append(',');
                Put(o, item, depth + 1);
            }
            o.Append(']');
        } else {
            o.Append("[\"x\",");
            Text(o, type.Name);
            o.Append(']');
        }
    }
}
"""
