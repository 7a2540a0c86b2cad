package cardsig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"unicode/utf16"
)

// Canonicalize returns the RFC 8785 (JSON Canonicalization Scheme) form of one JSON value: no insignificant
// whitespace, object members sorted by the UTF-16 code units of their names, numbers as ECMAScript prints an IEEE
// 754 double, strings with only the escapes the RFC requires. Duplicate member names and numbers outside the double
// range are errors, as the RFC says.
func Canonicalize(doc []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(doc[dec.InputOffset():])) > 0 {
		return nil, errors.New("jcs: data after the JSON value")
	}
	var b bytes.Buffer
	if err := writeCanonical(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// member is one object member, kept in arrival order until written.
type member struct {
	name  string
	value any
}

// decodeValue reads one value keeping objects as member lists, so that duplicate names are seen.
func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("jcs: %w", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var obj []member
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("jcs: %w", err)
				}
				name := kt.(string)
				if seen[name] {
					return nil, fmt.Errorf("jcs: duplicate member %q", name)
				}
				seen[name] = true
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, member{name, v})
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("jcs: %w", err)
			}
			if obj == nil {
				obj = []member{}
			}
			return obj, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("jcs: %w", err)
			}
			return arr, nil
		}
		return nil, fmt.Errorf("jcs: unexpected %v", t)
	default:
		return tok, nil // string, json.Number, bool, nil
	}
}

func writeCanonical(b *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case string:
		writeString(b, t)
	case json.Number:
		s, err := formatNumber(string(t))
		if err != nil {
			return err
		}
		b.WriteString(s)
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeCanonical(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case []member:
		sorted := append([]member(nil), t...)
		sort.Slice(sorted, func(i, j int) bool { return lessUTF16(sorted[i].name, sorted[j].name) })
		b.WriteByte('{')
		for i, m := range sorted {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, m.name)
			b.WriteByte(':')
			if err := writeCanonical(b, m.value); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("jcs: unexpected value %T", v)
	}
	return nil
}

// lessUTF16 orders names by their UTF-16 code units, as RFC 8785 §3.2.3 says (not by UTF-8 bytes: they differ
// above U+FFFF).
func lessUTF16(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

// writeString writes s as RFC 8785 §3.2.2.2 says: ", \ and the control characters escaped (the short forms where
// JSON has one, else \u00xx in lower case), everything else as itself in UTF-8.
func writeString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// formatNumber prints a JSON number as ECMAScript's Number.prototype.toString prints the nearest double (RFC 8785
// §3.2.2.3). Go's shortest round-trip digits are the same digits; only the layout differs.
func formatNumber(lit string) (string, error) {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("jcs: number %s is not an IEEE 754 double", lit)
	}
	return FormatDouble(f), nil
}

// FormatDouble is ECMAScript's Number::toString for a finite double.
func FormatDouble(f float64) string {
	if f == 0 {
		return "0" // -0 too
	}
	neg := f < 0
	if neg {
		f = -f
	}
	// digits and exponent: f = 0.d1d2... × 10^n, the shortest digits that round-trip.
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddddde±xx
	mant, exp, _ := bytes.Cut([]byte(e), []byte("e"))
	digits := string(bytes.ReplaceAll(mant, []byte("."), nil))
	x, _ := strconv.Atoi(string(exp))
	n := x + 1
	k := len(digits)
	var s string
	switch {
	case k <= n && n <= 21:
		s = digits + string(bytes.Repeat([]byte("0"), n-k))
	case 0 < n && n <= 21:
		s = digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		s = "0." + string(bytes.Repeat([]byte("0"), -n)) + digits
	default:
		sign := "+"
		if n-1 < 0 {
			sign = "-"
		}
		ex := n - 1
		if ex < 0 {
			ex = -ex
		}
		s = digits[:1]
		if k > 1 {
			s += "." + digits[1:]
		}
		s += "e" + sign + strconv.Itoa(ex)
	}
	if neg {
		s = "-" + s
	}
	return s
}
