// Package jsonw writes compact JSON byte-for-byte the way upstream
// Cincinnati (serde_json) does: only '"', '\\' and control characters are
// escaped, so '<', '>', '&' and U+2028/U+2029 pass through. encoding/json
// cannot be told to do that, and graph files are written in bulk, so a
// small append-style writer is both exact and fast.
package jsonw

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"
)

const hex = "0123456789abcdef"

// String appends s as a JSON string literal.
func String(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Key appends a quoted object key followed by ':'.
func Key(b []byte, k string) []byte {
	return append(String(b, k), ':')
}

// Int appends a decimal integer. Graph files hold tens of millions of node
// indices, nearly all under 10,000, which are written from a table.
func Int(b []byte, n int) []byte {
	switch u := uint(n); {
	case u < 10:
		return append(b, byte('0'+u))
	case u < 100:
		return append(b, digitPairs[2*u], digitPairs[2*u+1])
	case u < 1000:
		hi, lo := u/100, 2*(u%100)
		return append(b, byte('0'+hi), digitPairs[lo], digitPairs[lo+1])
	case u < 10000:
		hi, lo := 2*(u/100), 2*(u%100)
		return append(b, digitPairs[hi], digitPairs[hi+1], digitPairs[lo], digitPairs[lo+1])
	}
	return strconv.AppendInt(b, int64(n), 10)
}

const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// StringMap appends m as an object with keys in byte order, which is what
// makes metadata output deterministic.
func StringMap(b []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = Key(b, k)
		b = String(b, m[k])
	}
	return append(b, '}')
}

// Marshal encodes v with encoding/json the way upgraph's other files
// (index.json, the viewer's table) are written: compact, map keys sorted,
// no HTML escaping, one trailing newline.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Indented encodes v as reports for people and scripts are written
// (upgraph path, plan, mirror-set --format json): indented by two
// spaces, no HTML escaping, one trailing newline.
func Indented(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteIndented writes Indented(v) to w, nothing when v does not encode.
func WriteIndented(w io.Writer, v any) error {
	data, err := Indented(v)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}
