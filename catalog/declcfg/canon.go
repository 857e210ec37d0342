package declcfg

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/cases"
)

// This file re-encodes one JSON value the way operator-registry's
// Meta.UnmarshalJSON does (alpha/declcfg/declcfg.go): json.Unmarshal into
// a map[string]any, then json.Encoder with SetEscapeHTML(false). That
// round trip defines the bytes catalogd stores and serves, so it is
// reproduced exactly, without building the map:
//
//   - objects: keys sorted by Go string order, at every depth; of keys
//     that are equal after decoding, the last one wins (a map assignment);
//   - strings: escapes decoded, invalid UTF-8 replaced by U+FFFD, then
//     encoded as encoding/json does without HTML escaping (", \ and
//     control characters escaped, \b \f \n \r \t by name, U+2028 and
//     U+2029 as \u2028 and \u2029, everything else literal);
//   - numbers: parsed as float64 (a number out of float64's range is an
//     error, as json.Unmarshal's) and printed as encoding/json prints a
//     float64 (1e21 and above, and below 1e-6, in exponent form);
//   - no insignificant whitespace; nesting deeper than 10000 is an error.
//
// The grammar accepted is encoding/json's (RFC 8259). The top-level value
// must be an object (or null, which has no schema); the keys that fold to
// the same string under Unicode full case folding are an error, and the
// values of the keys folding to "schema", "package" and "name" must be
// strings (extractUniqueMetaKeys).

// maxDepth is encoding/json's maxNestingDepth.
const maxDepth = 10000

// jsonError is a syntax or decoding error at an offset of the input.
type jsonError struct {
	off int
	msg string
}

func (e *jsonError) Error() string { return e.msg }

// member is one key:value pair of an object being encoded: the key's
// encoded bytes are out[keyStart:keyEnd] (without quotes) and the whole
// member, `"key":value`, is out[start:end].
type member struct {
	start, keyStart, keyEnd, end int
	// escaped: the encoded key contains escapes, so its decoded form
	// differs from its encoded bytes.
	escaped bool
}

// canonicalizer holds the buffers reused across the blobs of a file.
type canonicalizer struct {
	src     []byte
	out     []byte
	members []member
	tmp     []byte
	depth   int
}

// metaValue is a decoded blob: its canonical bytes (in c.out) and the
// schema, package and name as extractUniqueMetaKeys finds them.
type metaValue struct {
	null              bool
	schema, pkg, name string
	topKeys           []topKey
	canonical         []byte
}

type topKey struct {
	key      string
	valStart int // offset in out of the value
	valEnd   int
	isString bool
}

// decodeMeta parses the JSON value starting at src[off] (after any
// whitespace) and returns its canonical encoding and meta keys. end is
// the offset just after the value. Errors carry the offset they concern.
func (c *canonicalizer) decodeMeta(src []byte, off int) (mv metaValue, end int, err *jsonError) {
	c.src = src
	c.out = c.out[:0]
	c.members = c.members[:0]
	c.depth = 0
	i := skipSpace(src, off)
	start := i
	if i >= len(src) {
		return mv, i, &jsonError{i, "unexpected end of JSON input"}
	}
	switch src[i] {
	case '{':
		var keys []topKey
		end, keys, err = c.object(i, true)
		if err != nil {
			return mv, end, err
		}
		mv.topKeys = keys
	case 'n':
		end, err = c.value(i)
		if err != nil {
			return mv, end, err
		}
		mv.null = true
		mv.canonical = c.out
		return mv, end, nil
	default:
		// A valid value of another type is a decoding error (it cannot
		// be unmarshalled into a map), reported after the syntax check
		// as encoding/json does.
		if end, err = c.value(i); err != nil {
			return mv, end, err
		}
		return mv, end, &jsonError{start, fmt.Sprintf("json: cannot unmarshal %s into an object: a catalog blob must be a JSON object", kindOf(src[start]))}
	}
	mv.canonical = c.out
	if err := c.metaKeys(&mv, start); err != nil {
		return mv, end, err
	}
	return mv, end, nil
}

func kindOf(b byte) string {
	switch b {
	case '"':
		return "string"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	default:
		return "number"
	}
}

// metaKeys checks the top-level keys for duplicates under case folding and
// extracts schema, package and name.
func (c *canonicalizer) metaKeys(mv *metaValue, start int) *jsonError {
	keys := mv.topKeys
	folded := make([]string, len(keys))
	for i, k := range keys {
		folded[i] = foldKey(k.key)
	}
	// Keys are distinct and sorted; folded duplicates are found by sorting
	// the folded forms.
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(folded[a], folded[b]) })
	var dups []string
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && folded[idx[j]] == folded[idx[i]] {
			j++
		}
		if j-i > 1 {
			var names []string
			for _, x := range idx[i:j] {
				names = append(names, keys[x].key)
			}
			slices.Sort(names)
			dups = append(dups, fmt.Sprintf("duplicate keys for key %q: %q", folded[idx[i]], names))
		}
		i = j
	}
	if len(dups) > 0 {
		return &jsonError{start, strings.Join(dups, "; ")}
	}
	for i, k := range keys {
		var dst *string
		switch folded[i] {
		case "schema":
			dst = &mv.schema
		case "package":
			dst = &mv.pkg
		case "name":
			dst = &mv.name
		default:
			continue
		}
		if !k.isString {
			return &jsonError{start, fmt.Sprintf("expected value for key %q to be a string, got %s", k.key, c.out[k.valStart:k.valEnd])}
		}
		*dst = decodeEncodedString(c.out[k.valStart:k.valEnd])
	}
	return nil
}

var folder = cases.Fold()

// foldKey is operator-registry's key folding (cases.Fold), with a fast
// path for ASCII.
func foldKey(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return folder.String(s)
		}
	}
	return strings.ToLower(s)
}

func skipSpace(src []byte, i int) int {
	for i < len(src) {
		switch src[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (c *canonicalizer) syntax(i int, context string) *jsonError {
	if i >= len(c.src) {
		return &jsonError{i, "unexpected end of JSON input"}
	}
	return &jsonError{i, fmt.Sprintf("invalid character %s %s", quoteChar(c.src[i]), context)}
}

func quoteChar(b byte) string {
	if b == '\'' {
		return `'\''`
	}
	if b == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(b)))
	if b >= utf8.RuneSelf {
		s = fmt.Sprintf(`"\x%02x"`, b)
	}
	return "'" + s[1:len(s)-1] + "'"
}

// value encodes the value at src[i] (no leading whitespace) and returns
// the offset after it.
func (c *canonicalizer) value(i int) (int, *jsonError) {
	src := c.src
	if i >= len(src) {
		return i, c.syntax(i, "looking for beginning of value")
	}
	switch b := src[i]; {
	case b == '{':
		end, _, err := c.object(i, false)
		return end, err
	case b == '[':
		return c.array(i)
	case b == '"':
		end, _, err := c.str(i)
		return end, err
	case b == '-' || b >= '0' && b <= '9':
		return c.number(i)
	case b == 't':
		return c.literal(i, "true")
	case b == 'f':
		return c.literal(i, "false")
	case b == 'n':
		return c.literal(i, "null")
	default:
		return i, c.syntax(i, "looking for beginning of value")
	}
}

func (c *canonicalizer) literal(i int, lit string) (int, *jsonError) {
	for k := 1; k < len(lit); k++ {
		if i+k >= len(c.src) {
			return i + k, c.syntax(i+k, "")
		}
		if c.src[i+k] != lit[k] {
			return i + k, c.syntax(i+k, fmt.Sprintf("in literal %s (expecting %s)", lit, quoteChar(lit[k])))
		}
	}
	c.out = append(c.out, lit...)
	return i + len(lit), nil
}

func (c *canonicalizer) push(i int) *jsonError {
	c.depth++
	if c.depth > maxDepth {
		return &jsonError{i, "exceeded max depth"}
	}
	return nil
}

func (c *canonicalizer) array(i int) (int, *jsonError) {
	if err := c.push(i); err != nil {
		return i, err
	}
	c.out = append(c.out, '[')
	i = skipSpace(c.src, i+1)
	if i < len(c.src) && c.src[i] == ']' {
		c.out = append(c.out, ']')
		c.depth--
		return i + 1, nil
	}
	for {
		var err *jsonError
		if i, err = c.value(i); err != nil {
			return i, err
		}
		i = skipSpace(c.src, i)
		if i >= len(c.src) {
			return i, c.syntax(i, "")
		}
		switch c.src[i] {
		case ',':
			c.out = append(c.out, ',')
			i = skipSpace(c.src, i+1)
		case ']':
			c.out = append(c.out, ']')
			c.depth--
			return i + 1, nil
		default:
			return i, c.syntax(i, "after array element")
		}
	}
}

// object encodes an object with its members sorted by decoded key and
// duplicates removed (the last wins). top asks for the top-level keys.
func (c *canonicalizer) object(i int, top bool) (int, []topKey, *jsonError) {
	if err := c.push(i); err != nil {
		return i, nil, err
	}
	objStart := len(c.out)
	c.out = append(c.out, '{')
	base := len(c.members)
	i = skipSpace(c.src, i+1)
	if i < len(c.src) && c.src[i] == '}' {
		c.out = append(c.out, '}')
		c.depth--
		return i + 1, []topKey{}, nil
	}
	sorted := true
	for {
		if i >= len(c.src) || c.src[i] != '"' {
			return i, nil, c.syntax(i, "looking for beginning of object key string")
		}
		m := member{start: len(c.out)}
		if len(c.members) > base {
			m.start++ // after the comma
			c.out = append(c.out, ',')
		}
		m.keyStart = len(c.out) + 1
		var err *jsonError
		if i, m.escaped, err = c.str(i); err != nil {
			return i, nil, err
		}
		m.keyEnd = len(c.out) - 1
		i = skipSpace(c.src, i)
		if i >= len(c.src) || c.src[i] != ':' {
			return i, nil, c.syntax(i, "after object key")
		}
		c.out = append(c.out, ':')
		i = skipSpace(c.src, i+1)
		if i, err = c.value(i); err != nil {
			return i, nil, err
		}
		m.end = len(c.out)
		if n := len(c.members); n > base && sorted {
			prev := c.members[n-1]
			if prev.escaped || m.escaped || bytes.Compare(c.out[prev.keyStart:prev.keyEnd], c.out[m.keyStart:m.keyEnd]) >= 0 {
				sorted = false
			}
		}
		c.members = append(c.members, m)
		i = skipSpace(c.src, i)
		if i >= len(c.src) {
			return i, nil, c.syntax(i, "")
		}
		if c.src[i] == ',' {
			i = skipSpace(c.src, i+1)
			continue
		}
		if c.src[i] != '}' {
			return i, nil, c.syntax(i, "after object key:value pair")
		}
		i++
		break
	}
	members := c.members[base:]
	if !sorted {
		c.sortMembers(objStart, members)
		members = c.members[base:]
	} else {
		c.out = append(c.out, '}')
	}
	var keys []topKey
	if top {
		keys = make([]topKey, len(members))
		for k, m := range members {
			keys[k] = topKey{
				key:      c.decodedKey(m),
				valStart: m.keyEnd + 2,
				valEnd:   m.end,
				isString: c.out[m.keyEnd+2] == '"',
			}
		}
	}
	c.members = c.members[:base]
	c.depth--
	return i, keys, nil
}

func (c *canonicalizer) decodedKey(m member) string {
	if !m.escaped {
		return string(c.out[m.keyStart:m.keyEnd])
	}
	return decodeEncodedString(c.out[m.keyStart-1 : m.keyEnd+1])
}

// sortMembers rewrites the object at out[objStart:] with its members in
// key order, keeping the last of equal keys, and closes it.
func (c *canonicalizer) sortMembers(objStart int, members []member) {
	type keyed struct {
		key string
		pos int
		m   member
	}
	ks := make([]keyed, len(members))
	for k, m := range members {
		ks[k] = keyed{c.decodedKey(m), k, m}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if r := strings.Compare(a.key, b.key); r != 0 {
			return r
		}
		return a.pos - b.pos
	})
	// Keep the last of each run of equal keys.
	kept := ks[:0]
	for k := range ks {
		if k+1 < len(ks) && ks[k+1].key == ks[k].key {
			continue
		}
		kept = append(kept, ks[k])
	}
	c.tmp = append(c.tmp[:0], c.out[objStart:]...)
	c.out = append(c.out[:objStart], '{')
	for k, e := range kept {
		if k > 0 {
			c.out = append(c.out, ',')
		}
		shift := len(c.out) - e.m.start
		c.out = append(c.out, c.tmp[e.m.start-objStart:e.m.end-objStart]...)
		members[k] = member{start: e.m.start + shift, keyStart: e.m.keyStart + shift, keyEnd: e.m.keyEnd + shift, end: e.m.end + shift, escaped: e.m.escaped}
	}
	c.out = append(c.out, '}')
	c.members = c.members[:len(c.members)-len(members)+len(kept)]
}

const hexDigits = "0123456789abcdef"

// safe[b] is true for the ASCII bytes encoding/json writes literally
// without HTML escaping.
var safe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// str decodes the string literal at src[i] and appends its encoding.
// escaped reports whether the encoding contains a backslash.
func (c *canonicalizer) str(i int) (end int, escaped bool, err *jsonError) {
	src := c.src
	j := i + 1
	// Fast path: printable ASCII without escapes is copied as it is.
	j = safePrefix(src, j)
	for j < len(src) && src[j] < utf8.RuneSelf && safe[src[j]] {
		j++
	}
	if j < len(src) && src[j] == '"' {
		c.out = append(c.out, src[i:j+1]...)
		return j + 1, false, nil
	}
	c.out = append(c.out, src[i:j]...)
	for {
		if j >= len(src) {
			return j, escaped, c.syntax(j, "")
		}
		b := src[j]
		switch {
		case b == '"':
			c.out = append(c.out, '"')
			return j + 1, escaped, nil
		case b < 0x20:
			return j, escaped, c.syntax(j, "in string literal")
		case b < utf8.RuneSelf && b != '\\':
			c.out = append(c.out, b)
			j++
		case b == '\\':
			if j+1 >= len(src) {
				return j + 1, escaped, c.syntax(j+1, "")
			}
			var r rune
			switch e := src[j+1]; e {
			case '"', '\\', '/':
				r = rune(e)
				j += 2
			case 'b':
				r, j = '\b', j+2
			case 'f':
				r, j = '\f', j+2
			case 'n':
				r, j = '\n', j+2
			case 'r':
				r, j = '\r', j+2
			case 't':
				r, j = '\t', j+2
			case 'u':
				var bad int
				if r, bad = hex4(src, j+2); bad >= 0 {
					return bad, escaped, c.syntax(bad, `in \u hexadecimal character escape`)
				}
				j += 6
				if utf16.IsSurrogate(r) {
					// A valid pair is one rune; anything else is U+FFFD
					// and the next escape is read on its own.
					dec := utf8.RuneError
					if j+1 < len(src) && src[j] == '\\' && src[j+1] == 'u' {
						if r2, bad := hex4(src, j+2); bad < 0 {
							if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
								dec, j = d, j+6
							}
						}
					}
					r = dec
				}
			default:
				return j + 1, escaped, c.syntax(j+1, "in string escape code")
			}
			if c.appendRune(r) {
				escaped = true
			}
		default:
			r, size := utf8.DecodeRune(src[j:])
			if r == utf8.RuneError && size == 1 {
				c.out = append(c.out, "\uFFFD"...)
				j++
				continue
			}
			if r == '\u2028' || r == '\u2029' {
				c.out = append(c.out, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
				escaped = true
			} else {
				c.out = append(c.out, src[j:j+size]...)
			}
			j += size
		}
	}
}

// hex4 decodes four hex digits at src[i:]; bad is the offset of the first
// invalid one, or -1.
func hex4(src []byte, i int) (r rune, bad int) {
	for k := 0; k < 4; k++ {
		if i+k >= len(src) {
			return 0, i + k
		}
		b := src[i+k]
		switch {
		case b >= '0' && b <= '9':
			b -= '0'
		case b >= 'a' && b <= 'f':
			b = b - 'a' + 10
		case b >= 'A' && b <= 'F':
			b = b - 'A' + 10
		default:
			return 0, i + k
		}
		r = r<<4 | rune(b)
	}
	return r, -1
}

// appendRune appends the encoding of a decoded rune; it reports whether
// it wrote an escape.
func (c *canonicalizer) appendRune(r rune) bool {
	if r < utf8.RuneSelf {
		b := byte(r)
		if safe[b] {
			c.out = append(c.out, b)
			return false
		}
		switch b {
		case '"', '\\':
			c.out = append(c.out, '\\', b)
		case '\b':
			c.out = append(c.out, '\\', 'b')
		case '\f':
			c.out = append(c.out, '\\', 'f')
		case '\n':
			c.out = append(c.out, '\\', 'n')
		case '\r':
			c.out = append(c.out, '\\', 'r')
		case '\t':
			c.out = append(c.out, '\\', 't')
		default:
			c.out = append(c.out, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
		}
		return true
	}
	if r == '\u2028' || r == '\u2029' {
		c.out = append(c.out, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		return true
	}
	c.out = utf8.AppendRune(c.out, r)
	return false
}

// number validates a JSON number and appends it as encoding/json prints
// the float64 it parses to.
func (c *canonicalizer) number(i int) (int, *jsonError) {
	src := c.src
	start := i
	if src[i] == '-' {
		i++
	}
	if i >= len(src) {
		return i, c.syntax(i, "in numeric literal")
	}
	switch {
	case src[i] == '0':
		i++
	case src[i] >= '1' && src[i] <= '9':
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
	default:
		return i, c.syntax(i, "in numeric literal")
	}
	integer := true
	if i < len(src) && src[i] == '.' {
		integer = false
		i++
		if i >= len(src) || src[i] < '0' || src[i] > '9' {
			return i, c.syntax(i, "after decimal point in numeric literal")
		}
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		integer = false
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i >= len(src) || src[i] < '0' || src[i] > '9' {
			return i, c.syntax(i, "in exponent of numeric literal")
		}
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
	}
	lit := src[start:i]
	digits := len(lit)
	if lit[0] == '-' {
		digits--
	}
	// Integers of up to 15 digits are exact in a float64 and print as
	// they are written.
	if integer && digits <= 15 {
		c.out = append(c.out, lit...)
		return i, nil
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return start, &jsonError{start, fmt.Sprintf("json: cannot unmarshal number %s into Go value of type float64", lit)}
	}
	c.out = appendFloat(c.out, f)
	return i, nil
}

// appendFloat prints a float64 as encoding/json does (ES6 number to
// string: exponent form below 1e-6 and from 1e21, exponents unpadded).
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// decodeEncodedString decodes a string literal written by this encoder
// (quotes included), whose only escapes are the ones appendRune writes.
func decodeEncodedString(q []byte) string {
	if len(q) >= 2 && q[0] == '"' {
		q = q[1 : len(q)-1]
	}
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q)
	}
	out := make([]byte, 0, len(q))
	for k := 0; k < len(q); k++ {
		if q[k] != '\\' {
			out = append(out, q[k])
			continue
		}
		k++
		switch q[k] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, _ := hex4(q, k+1)
			out = utf8.AppendRune(out, r)
			k += 4
		default:
			out = append(out, q[k])
		}
	}
	return string(out)
}
