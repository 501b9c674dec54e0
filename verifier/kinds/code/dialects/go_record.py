"""Go's side of a calls run: functions, appended to the program, that write a returned value
on the channel (fd 3) as values.py encodes it, by reflection.

The value is written with its dynamic type (`["y", "[]int", ...]`, as reflect's Type.String()
spells it), and so is each element held in an interface (`[]interface {}`'s): testify's
`assert.Equal` (reflect.DeepEqual) tells `int` from `int64` and a nil slice from an empty one,
and MultiPL-E's `fmt.Sprintf("%v")` prints a float32 by its own shortest digits. Numbers are
written exactly (a float by strconv's shortest round-trip digits), strings as JSON (non-ASCII
as \\uXXXX, a byte that is no UTF-8 as the lone surrogate \\udcXX, which equals no text, not
the U+FFFD Go's range reads it as); a nil slice or map is null; a pointer, struct, func or
channel is a value that equals nothing. Depth is bounded. The imports it uses have names of
the verifier's own (`IMPORTS`), and it calls no method a solution's type could define (no
String(), no Error()). A value compared with a constant by `==` is recorded with whether its
static type is an interface (`["y", "interface", VALUE]`): Go converts the constant to the
interface, so only a dynamic type of the constant's default type can equal it (an `int64` 3 in
an `interface{}` is not 3).
"""

from __future__ import annotations

IMPORTS = {"__verifier_reflect": "reflect", "__verifier_strconv": "strconv",
           "__verifier_os": "os", "__verifier_math": "math", "__verifier_utf16": "unicode/utf16"}

GO_RECORDER = r"""
func __verifierText(out []byte, text string) []byte {
	out = append(out, '"')
	for at, r := range text {
		switch {
		case r == 0xFFFD && (len(text)-at < 3 || text[at:at+3] != "\uFFFD"):
			// A byte that is no UTF-8, which range reads as U+FFFD: a lone surrogate of its
			// own (as Python's surrogateescape), so that it equals no string of valid text.
			out = append(out, '\\', 'u', 'd', 'c')
			digits := __verifier_strconv.FormatInt(int64(text[at]), 16)
			if len(digits) < 2 {
				out = append(out, '0')
			}
			out = append(out, digits...)
		case r == '"' || r == '\\':
			out = append(out, '\\', byte(r))
		case r >= 32 && r < 127:
			out = append(out, byte(r))
		default:
			units := []rune{r}
			if r > 0xFFFF {
				first, second := __verifier_utf16.EncodeRune(r)
				units = []rune{first, second}
			}
			for _, unit := range units {
				out = append(out, '\\', 'u')
				digits := __verifier_strconv.FormatInt(int64(unit), 16)
				for pad := len(digits); pad < 4; pad++ {
					out = append(out, '0')
				}
				out = append(out, digits...)
			}
		}
	}
	return append(out, '"')
}

func __verifierPut(out []byte, value __verifier_reflect.Value, typed bool, depth int) []byte {
	if depth > 90 {
		return append(out, `["x","too deep"]`...)
	}
	if !value.IsValid() {
		return append(out, "null"...)
	}
	if value.Kind() == __verifier_reflect.Interface {
		if value.IsNil() {
			return append(out, "null"...)
		}
		return __verifierPut(out, value.Elem(), true, depth+1)
	}
	if typed {
		out = append(out, `["y",`...)
		out = __verifierText(out, value.Type().String())
		out = append(out, ',')
	}
	switch value.Kind() {
	case __verifier_reflect.Bool:
		out = __verifier_strconv.AppendBool(out, value.Bool())
	case __verifier_reflect.Int, __verifier_reflect.Int8, __verifier_reflect.Int16,
		__verifier_reflect.Int32, __verifier_reflect.Int64:
		out = __verifier_strconv.AppendInt(out, value.Int(), 10)
	case __verifier_reflect.Uint, __verifier_reflect.Uint8, __verifier_reflect.Uint16,
		__verifier_reflect.Uint32, __verifier_reflect.Uint64, __verifier_reflect.Uintptr:
		out = __verifier_strconv.AppendUint(out, value.Uint(), 10)
	case __verifier_reflect.Float32, __verifier_reflect.Float64:
		number := value.Float()
		switch {
		case number != number:
			out = append(out, `["f","nan"]`...)
		case __verifier_math.IsInf(number, 1):
			out = append(out, `["f","inf"]`...)
		case __verifier_math.IsInf(number, -1):
			out = append(out, `["f","-inf"]`...)
		case number == 0 && __verifier_math.Signbit(number):
			out = append(out, `["f","-0"]`...)
		default:
			digits := __verifier_strconv.AppendFloat(nil, number, 'g', -1, 64)
			out = append(out, digits...)
			integral := true
			for _, c := range digits {
				if c == '.' || c == 'e' {
					integral = false
				}
			}
			if integral {
				out = append(out, ".0"...)
			}
		}
	case __verifier_reflect.String:
		out = __verifierText(out, value.String())
	case __verifier_reflect.Slice, __verifier_reflect.Array:
		if value.Kind() == __verifier_reflect.Slice && value.IsNil() {
			out = append(out, "null"...)
			break
		}
		out = append(out, `["l"`...)
		for i := 0; i < value.Len(); i++ {
			out = append(out, ',')
			out = __verifierPut(out, value.Index(i), false, depth+1)
		}
		out = append(out, ']')
	case __verifier_reflect.Map:
		if value.IsNil() {
			out = append(out, "null"...)
			break
		}
		out = append(out, `["m"`...)
		entries := value.MapRange()
		for entries.Next() {
			out = append(out, ',')
			out = __verifierPut(out, entries.Key(), false, depth+1)
			out = append(out, ',')
			out = __verifierPut(out, entries.Value(), false, depth+1)
		}
		out = append(out, ']')
	default:
		out = append(out, `["x",`...)
		out = __verifierText(out, value.Kind().String())
		out = append(out, ']')
	}
	if typed {
		out = append(out, ']')
	}
	return out
}

var __verifierChannel = __verifier_os.NewFile(3, "channel")

func __verifierRecord(site int, value interface{}) {
	__verifierWrite(site, __verifierPut(nil, __verifier_reflect.ValueOf(value), true, 0))
}

// A value compared with a constant by Go's ==, with what its static type is: of an interface,
// the constant converts to its default type and must have the dynamic type too.
func __verifierRecordCompared[T any](site int, value T) {
	if __verifier_reflect.TypeOf(&value).Elem().Kind() != __verifier_reflect.Interface {
		__verifierRecord(site, value)
		return
	}
	put := __verifierPut(nil, __verifier_reflect.ValueOf(&value).Elem(), true, 0)
	__verifierWrite(site, append(append([]byte(`["y","interface",`), put...), ']'))
}

func __verifierWrite(site int, value []byte) {
	line := append([]byte{'['}, __verifier_strconv.Itoa(site)...)
	line = append(append(append(line, ','), value...), ']', '\n')
	if _, err := __verifierChannel.Write(line); err != nil {
		__verifier_os.Exit(70)
	}
}
"""
