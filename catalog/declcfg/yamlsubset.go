package declcfg

import (
	"bytes"
	"encoding/binary"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// This file converts the YAML that opm writes to JSON without a YAML
// parser: go.yaml.in/yaml/v2 spent most of a catalog's load time
// scanning it (a profile of the shared catalog put 82 % of Load in
// yaml/v2.Unmarshal). appendSubsetYAML understands a subset of YAML:
//
//   - one block mapping at column 0 (after an optional "---" line), whose
//     values are block mappings, block sequences (indented or not), "- "
//     entries holding a compact mapping, and scalars;
//   - plain keys on one line; plain, single- and double-quoted scalars,
//     over several lines too (folded as yaml/v2 folds them); literal
//     block scalars ("|", "|-", "|+", with an optional indentation
//     indicator); the empty flow collections "{}" and "[]";
//   - blank lines and comments.
//
// Anything else -- anchors, aliases, tags, flow collections with content,
// folded block scalars, explicit, quoted or merge ("<<") keys, tabs,
// carriage returns, control or non-printable characters, line breaks
// other than "\n", directives, "..." -- makes it answer ok false, and the
// caller converts the document with yaml/v2 (yamlDirect, then
// sigs.k8s.io/yaml). Within the subset, the JSON it writes is byte for
// byte what appendYAML writes for the yaml.MapSlice that yaml/v2 decodes
// from the document: the scanner rules followed here are those of
// go.yaml.in/yaml/v2 v2.4.3 (scannerc.go: yaml_parser_fetch_next_token
// for what may start a plain scalar, yaml_parser_scan_plain_scalar,
// yaml_parser_scan_flow_scalar, yaml_parser_scan_block_scalar and
// yaml_parser_scan_block_scalar_breaks) and plain scalars resolve as
// resolve.go resolves them into an interface{} (YAML 1.1 booleans, ints
// in bases 2, 8, 10 and 16, floats, null, timestamps kept as strings by
// decode.go). TestSubsetYAMLSharedCatalog (every document of the shared
// catalog) and FuzzSubsetYAML check it against yaml/v2.

// appendSubsetYAML appends the JSON of doc (a YAML document ending in a
// newline) to b.
func appendSubsetYAML(b, doc []byte) ([]byte, bool) {
	if len(doc) == 0 || doc[len(doc)-1] != '\n' || !subsetChars(doc) {
		return b, false
	}
	p := subsetParser{doc: doc, out: b}
	// An optional document start marker, alone on the first line (the
	// stream reader allows only blanks or a comment after it).
	if bytes.HasPrefix(doc, []byte("---")) {
		end := p.lineEnd(0)
		rest := bytes.TrimLeft(doc[3:end], " ")
		if len(rest) > 0 && (rest[0] != '#' || end > 3 && doc[3] != ' ') {
			return b, false
		}
		p.pos = min(end+1, len(doc))
	}
	ls, ind := p.peek()
	if ls < 0 || ind != 0 || p.isEntry(ls) {
		return b, false
	}
	if !p.mapping(0, -1) {
		return b, false
	}
	if ls, _ := p.peek(); ls >= 0 {
		return b, false
	}
	return p.out, true
}

// subsetChars reports whether doc holds only characters the subset
// accepts: printable ASCII, "\n", and valid UTF-8 that yaml/v2 accepts and
// does not read as a line break or byte order mark.
func subsetChars(doc []byte) bool {
	i := 0
	for {
		// Eight bytes at a time while they are printable ASCII or "\n"
		// (each "\n" turned into "*" first).
		for ; i+8 <= len(doc); i += 8 {
			w := binary.LittleEndian.Uint64(doc[i:])
			if w&hiBits != 0 {
				break
			}
			w |= zeroBytes(w^(loBits*'\n')) >> 2
			if hasLess(w, 0x20) || hasByte(w, 0x7F) {
				break
			}
		}
		if i >= len(doc) {
			return true
		}
		c := doc[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' || c == 0x7F {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(doc[i:])
		switch {
		case r == utf8.RuneError && size == 1,
			r < 0xA0, r == 0x2028, r == 0x2029, r == 0xFEFF,
			r > 0xFFFD && r < 0x10000:
			return false
		}
		i += size
	}
}

// Bit tricks on eight bytes at once (a uint64): hasLess reports whether
// a byte is below n (n <= 0x80), hasByte whether a byte equals b.
const (
	loBits = 0x0101010101010101
	hiBits = 0x8080808080808080
)

func hasLess(w uint64, n byte) bool { return (w-loBits*uint64(n))&^w&hiBits != 0 }

func hasByte(w uint64, b byte) bool { return hasLess(w^(loBits*uint64(b)), 1) }

// zeroBytes has the high bit of exactly the bytes of w that are zero.
func zeroBytes(w uint64) uint64 {
	const low7 = 0x7F7F7F7F7F7F7F7F
	return ^((w&low7 + low7) | w | low7)
}

// safePrefix returns the offset, from i, of the first eight bytes of s
// that are not all printable ASCII other than '"' and '\\' (the bytes
// JSON strings hold as they are); the bytes before it are.
func safePrefix(s []byte, i int) int {
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(s[i:])
		if w&hiBits != 0 || hasLess(w, 0x20) || hasByte(w, '"') || hasByte(w, '\\') {
			break
		}
	}
	return i
}

// appendJSONBytes is appendJSONString, skipping eight bytes at a time
// over what needs no escaping.
func appendJSONBytes(b, s []byte) []byte {
	i := safePrefix(s, 0)
	b = append(b, '"')
	b = append(b, s[:i]...)
	b = appendJSONBody(b, s[i:])
	return append(b, '"')
}

type subsetParser struct {
	doc   []byte
	pos   int // start of the next line to read
	out   []byte
	depth int
	// scratch holds a scalar being unfolded or unescaped.
	scratch []byte
}

// lineEnd returns the offset of the "\n" ending the line at off (or
// len(doc)).
func (p *subsetParser) lineEnd(off int) int {
	if i := bytes.IndexByte(p.doc[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(p.doc)
}

// peek skips blank and comment lines from p.pos and returns the start and
// indentation of the next line with content (ls -1 at the end). A line
// the subset does not read (a document marker, a directive) is an end
// too, with ind -2, which no caller accepts.
func (p *subsetParser) peek() (ls, ind int) {
	doc := p.doc
	for p.pos < len(doc) {
		ls := p.pos
		i := ls
		for i < len(doc) && doc[i] == ' ' {
			i++
		}
		if i == len(doc) {
			p.pos = i
			break
		}
		if doc[i] == '\n' || doc[i] == '#' {
			p.pos = min(p.lineEnd(i)+1, len(doc))
			continue
		}
		if i == ls && (doc[i] == '%' || bytes.HasPrefix(doc[i:], []byte("---")) || bytes.HasPrefix(doc[i:], []byte("..."))) {
			return ls, -2
		}
		return ls, i - ls
	}
	return -1, -1
}

// isEntry reports whether the content at off is a block sequence entry
// ("-" followed by a space or the end of the line).
func (p *subsetParser) isEntry(off int) bool {
	for off < len(p.doc) && p.doc[off] == ' ' {
		off++
	}
	return off+1 < len(p.doc) && p.doc[off] == '-' && (p.doc[off+1] == ' ' || p.doc[off+1] == '\n')
}

// mapping reads a block mapping whose keys are at column indent. first,
// if not -1, is the offset of its first key within the current line (a
// compact mapping after "- "); otherwise the mapping starts at the next
// content line.
func (p *subsetParser) mapping(indent, first int) bool {
	if p.depth++; p.depth > maxYAMLDepth {
		return false
	}
	p.out = append(p.out, '{')
	for n := 0; ; n++ {
		keyOff := first
		if n > 0 || first < 0 {
			ls, ind := p.peek()
			if ls < 0 || ind >= 0 && ind < indent {
				break
			}
			if ind != indent || p.isEntry(ls) {
				return false
			}
			keyOff = ls + ind
		}
		if n > 0 {
			p.out = append(p.out, ',')
		}
		colon, ok := p.key(keyOff)
		if !ok {
			return false
		}
		p.out = append(p.out, ':')
		if !p.value(colon+1, indent, true) {
			return false
		}
	}
	p.depth--
	p.out = append(p.out, '}')
	return true
}

// sequence reads a block sequence whose "-" are at column indent; the
// first entry is on the next content line.
func (p *subsetParser) sequence(indent int) bool {
	if p.depth++; p.depth > maxYAMLDepth {
		return false
	}
	p.out = append(p.out, '[')
	for n := 0; ; n++ {
		ls, ind := p.peek()
		if ls < 0 || ind >= 0 && ind < indent {
			break
		}
		if ind != indent {
			return false
		}
		if !p.isEntry(ls) {
			if n == 0 {
				return false
			}
			break // the next key of the mapping holding an indentless sequence
		}
		if n > 0 {
			p.out = append(p.out, ',')
		}
		// A compact mapping ("- key: value") has its keys at the column
		// after the dash and spaces.
		off := ls + ind + 1
		for off < len(p.doc) && p.doc[off] == ' ' {
			off++
		}
		if _, isKey := p.plainKeyEnd(off); isKey {
			if !p.mapping(off-ls, off) {
				return false
			}
			continue
		}
		if !p.value(ls+ind+1, indent, false) {
			return false
		}
	}
	p.depth--
	p.out = append(p.out, ']')
	return true
}

// key reads the plain key at off and writes it as a JSON string; colon is
// the offset of the ":" after it.
func (p *subsetParser) key(off int) (colon int, ok bool) {
	end, isKey := p.plainKeyEnd(off)
	if !isKey {
		return 0, false
	}
	k := bytes.TrimRight(p.doc[off:end], " ")
	if string(k) == "<<" {
		return 0, false // a merge key
	}
	v, isString := resolveBytes(k)
	if isString {
		p.out = appendJSONBytes(p.out, k)
		return end, true
	}
	s, ok := yamlKey(v)
	if !ok {
		return 0, false
	}
	p.out = appendJSONString(p.out, s)
	return end, true
}

// maxSubsetKey bounds a key's length, well below yaml/v2's limit of 1024
// characters for a simple key.
const maxSubsetKey = 512

// plainKeyEnd returns the offset of the ":" ending the plain scalar at
// off, if that scalar is a mapping key: a plain scalar on one line
// followed by ": " or ":" at the end of the line, with no comment before.
func (p *subsetParser) plainKeyEnd(off int) (colon int, ok bool) {
	doc := p.doc
	if off >= len(doc) || !plainStart(doc, off) {
		return 0, false
	}
	end := p.lineEnd(off)
	for i := off + 1; i < end && i-off < maxSubsetKey; i++ {
		switch doc[i] {
		case ':':
			if doc[i+1] == ' ' || doc[i+1] == '\n' {
				return i, true
			}
		case '#':
			if doc[i-1] == ' ' {
				return 0, false
			}
		}
	}
	return 0, false
}

// plainStart reports whether a plain scalar may start at off in block
// context (yaml_parser_fetch_next_token's rule).
func plainStart(doc []byte, off int) bool {
	c := doc[off]
	switch c {
	case '-', '?', ':':
		return off+1 < len(doc) && doc[off+1] != ' ' && doc[off+1] != '\n'
	case ' ', '\n', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	}
	return true
}

// value reads the value that starts at off, in the line after a key (or
// a "-"), and moves to the next line. owner is the column of the key (or
// of the "-"); inMapping tells which.
func (p *subsetParser) value(off, owner int, inMapping bool) bool {
	doc := p.doc
	end := p.lineEnd(off)
	for off < end && doc[off] == ' ' {
		off++
	}
	if off == end || doc[off] == '#' {
		// The value is on the next lines: a deeper block node, an
		// indentless sequence after a key, or nothing (null).
		p.pos = min(end+1, len(doc))
		ls, ind := p.peek()
		switch {
		case ls < 0 || ind < owner:
			p.out = append(p.out, "null"...)
			return ind != -2
		case ind > owner:
			if p.isEntry(ls) {
				return p.sequence(ind)
			}
			return p.mapping(ind, -1)
		case inMapping && p.isEntry(ls):
			return p.sequence(ind)
		}
		p.out = append(p.out, "null"...)
		return true
	}
	switch c := doc[off]; c {
	case '|':
		return p.literal(off, owner)
	case '"', '\'':
		return p.quoted(off, c == '\'')
	case '{', '[':
		if off+1 < end && doc[off+1] == c+2 && p.restBlank(off+2, end) {
			p.out = append(p.out, c, c+2)
			p.pos = min(end+1, len(doc))
			return true
		}
		return false
	}
	if !plainStart(doc, off) {
		return false
	}
	return p.plain(off, owner+1)
}

// plain reads the plain scalar at off, continued on the next lines that
// are indented at least minCol (yaml_parser_scan_plain_scalar's
// parser.indent+1), and moves to the line after it. A line break folds
// into a space, n blank lines into n line breaks; spaces around them go.
// The scalar ends at a comment (" #" or a line starting with "#"), and
// ": " or a final ":" would end it where yaml/v2 then fails or reads a
// key: those are not in the subset.
func (p *subsetParser) plain(off, minCol int) bool {
	doc := p.doc
	var folded []byte // the scalar, when it spans lines
	var first []byte
	defer func() { p.scratch = folded[:0] }()
	for line := 0; ; line++ {
		end := p.lineEnd(off)
		stop, comment := end, false
		for i := off; i < end; i++ {
			switch doc[i] {
			case ':':
				if doc[i+1] == ' ' || doc[i+1] == '\n' {
					return false
				}
			case '#':
				if i > off && doc[i-1] == ' ' {
					stop, comment = i, true
					i = end
				}
			}
		}
		text := bytes.TrimRight(doc[off:stop], " ")
		if line == 0 {
			first = text
		} else {
			if folded == nil {
				folded = append(p.scratch[:0], first...)
			}
			folded = append(folded, text...)
		}
		p.pos = min(end+1, len(doc))
		if comment {
			break
		}
		// Blank lines, then a continuation line or the end.
		breaks := 0
		next := p.pos
		col := 0
		for next < len(doc) {
			col = 0
			for next+col < len(doc) && doc[next+col] == ' ' {
				col++
			}
			if next+col < len(doc) && doc[next+col] == '\n' {
				next += col + 1
				breaks++
				continue
			}
			break
		}
		if next >= len(doc) || col < minCol || doc[next+col] == '#' {
			break
		}
		if folded == nil {
			folded = append(p.scratch[:0], first...)
		}
		if breaks == 0 {
			folded = append(folded, ' ')
		}
		for ; breaks > 0; breaks-- {
			folded = append(folded, '\n')
		}
		off = next + col
	}
	s := first
	if folded != nil {
		s = folded
	}
	v, isString := resolveBytes(s)
	if isString {
		p.out = appendJSONBytes(p.out, s)
		return true
	}
	var ok bool
	p.out, ok = appendYAML(p.out, v, 0)
	return ok
}

// restBlank reports whether doc[off:end] is spaces and an optional
// comment after at least one space.
func (p *subsetParser) restBlank(off, end int) bool {
	i := off
	for i < end && p.doc[i] == ' ' {
		i++
	}
	return i == end || p.doc[i] == '#' && i > off
}

// quoted reads a single- or double-quoted scalar starting at off, over
// as many lines as it takes (yaml_parser_scan_flow_scalar): within a line
// characters and spaces are kept, the spaces around a line break go, a
// break folds into a space and n blank lines into n line breaks, and in
// double quotes a "\\" ending a line joins it to the next without a
// space. The rest of its last line must be blank or a comment.
func (p *subsetParser) quoted(off int, single bool) bool {
	doc := p.doc
	q := doc[off]
	s := p.scratch[:0]
	defer func() { p.scratch = s[:0] }()
	i := off + 1
	for {
		if i >= len(doc) || doc[i-1] == '\n' && (bytes.HasPrefix(doc[i:], []byte("---")) || bytes.HasPrefix(doc[i:], []byte("..."))) {
			return false // unterminated, or a document marker
		}
		escapedBreak := false
		for i < len(doc) && doc[i] != ' ' && doc[i] != '\n' {
			c := doc[i]
			if c == q {
				if single && i+1 < len(doc) && doc[i+1] == '\'' {
					s = append(s, '\'')
					i += 2
					continue
				}
				break
			}
			if c == '\\' && !single {
				if i+1 >= len(doc) {
					return false
				}
				if doc[i+1] == '\n' {
					i += 2
					escapedBreak = true
					break
				}
				var ok bool
				if s, i, ok = appendEscape(s, doc, i+1, len(doc)); !ok {
					return false
				}
				i++
				continue
			}
			s = append(s, c)
			i++
		}
		if i < len(doc) && doc[i] == q {
			i++
			break
		}
		spaces, breaks := 0, 0
		for i < len(doc) && (doc[i] == ' ' || doc[i] == '\n') {
			if doc[i] == '\n' {
				breaks++
			} else if breaks == 0 && !escapedBreak {
				spaces++
			}
			i++
		}
		switch {
		case escapedBreak:
			s = append(s, bytes.Repeat([]byte{'\n'}, breaks)...)
		case breaks == 1:
			s = append(s, ' ')
		case breaks > 1:
			s = append(s, bytes.Repeat([]byte{'\n'}, breaks-1)...)
		default:
			s = append(s, bytes.Repeat([]byte{' '}, spaces)...)
		}
	}
	end := p.lineEnd(i - 1)
	if !p.restBlank(i, end) {
		return false
	}
	p.out = appendJSONBytes(p.out, s)
	p.pos = min(end+1, len(doc))
	return true
}

// appendEscape appends the character that the double-quoted escape whose
// letter is at doc[i] stands for, as yaml/v2 decodes it, and returns the
// offset of the escape's last byte.
func appendEscape(s, doc []byte, i, end int) ([]byte, int, bool) {
	n := 0
	switch doc[i] {
	case '0':
		return append(s, 0), i, true
	case 'a':
		return append(s, 7), i, true
	case 'b':
		return append(s, 8), i, true
	case 't':
		return append(s, 9), i, true
	case 'n':
		return append(s, 10), i, true
	case 'v':
		return append(s, 11), i, true
	case 'f':
		return append(s, 12), i, true
	case 'r':
		return append(s, 13), i, true
	case 'e':
		return append(s, 27), i, true
	case ' ', '"', '\'', '\\':
		return append(s, doc[i]), i, true
	case 'N':
		return utf8.AppendRune(s, 0x85), i, true
	case '_':
		return utf8.AppendRune(s, 0xA0), i, true
	case 'L':
		return utf8.AppendRune(s, 0x2028), i, true
	case 'P':
		return utf8.AppendRune(s, 0x2029), i, true
	case 'x':
		n = 2
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return s, i, false
	}
	if i+n >= end {
		return s, i, false
	}
	v, err := strconv.ParseUint(string(doc[i+1:i+1+n]), 16, 32)
	if err != nil || v >= 0xD800 && v <= 0xDFFF || v > 0x10FFFF {
		return s, i, false
	}
	return utf8.AppendRune(s, rune(v)), i + n, true
}

// literal reads a literal block scalar whose indicator is at off; owner
// is the column of its key or "-" (yaml/v2's parser.indent there).
func (p *subsetParser) literal(off, owner int) bool {
	doc := p.doc
	end := p.lineEnd(off)
	// The header: chomping and indentation indicators in either order,
	// then spaces and an optional comment.
	chomp, increment := 0, 0
	i := off + 1
	for k := 0; k < 2 && i < end; k++ {
		switch c := doc[i]; {
		case (c == '-' || c == '+') && chomp == 0:
			chomp = map[byte]int{'-': -1, '+': 1}[c]
			i++
		case c >= '1' && c <= '9' && increment == 0:
			increment = int(c - '0')
			i++
		}
	}
	if i < end && doc[i] != ' ' || !p.restBlank(i, end) {
		return false
	}
	pos := min(end+1, len(doc))
	indent := 0
	if increment > 0 {
		indent = owner + increment
	}
	// breaks reads the blank lines from pos, as
	// yaml_parser_scan_block_scalar_breaks: spaces up to the indentation
	// (all of them while it is unknown), then a line break or content.
	breaks := 0
	maxIndent := 0
	col := 0
	readBreaks := func() {
		for {
			col = 0
			for pos < len(doc) && doc[pos] == ' ' && (indent == 0 || col < indent) {
				pos++
				col++
			}
			maxIndent = max(maxIndent, col)
			if pos >= len(doc) || doc[pos] != '\n' {
				break
			}
			pos++
			breaks++
		}
		if indent == 0 {
			indent = max(maxIndent, owner+1, 1)
		}
	}
	readBreaks()
	s := p.scratch[:0]
	defer func() { p.scratch = s[:0] }()
	leadingBreak := false
	for col == indent && pos < len(doc) {
		if leadingBreak {
			s = append(s, '\n')
		}
		for ; breaks > 0; breaks-- {
			s = append(s, '\n')
		}
		e := p.lineEnd(pos)
		s = append(s, doc[pos:e]...)
		pos = e
		leadingBreak = false
		if pos < len(doc) {
			pos++
			leadingBreak = true
		}
		readBreaks()
	}
	if chomp != -1 && leadingBreak {
		s = append(s, '\n')
	}
	if chomp == 1 {
		for ; breaks > 0; breaks-- {
			s = append(s, '\n')
		}
	}
	p.out = appendJSONBytes(p.out, s)
	// The next line to read is the one that ended the scalar (its spaces
	// were only looked at).
	for pos > 0 && doc[pos-1] != '\n' {
		pos--
	}
	p.pos = pos
	return true
}

// resolveTable is yaml/v2's first-character hint: 0 for a plain scalar
// that can only be a string.
var resolveTable = func() (t [256]byte) {
	t['+'], t['-'] = 'S', 'S'
	for c := '0'; c <= '9'; c++ {
		t[c] = 'D'
	}
	for _, c := range "yYnNtTfFoO~" {
		t[c] = 'M'
	}
	t['.'] = '.'
	return t
}()

// resolveWords are the plain scalars yaml/v2 resolves by name.
var resolveWords = func() map[string]any {
	m := map[string]any{}
	for v, words := range map[any]string{
		true:  "y Y yes Yes YES true True TRUE on On ON",
		false: "n N no No NO false False FALSE off Off OFF",
	} {
		for _, w := range strings.Fields(words) {
			m[w] = v
		}
	}
	for _, w := range []string{"~", "null", "Null", "NULL"} {
		m[w] = nil
	}
	for _, w := range []string{".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"} {
		m[w] = math.Inf(1)
	}
	for _, w := range []string{"-.inf", "-.Inf", "-.INF"} {
		m[w] = math.Inf(-1)
	}
	return m
}()

var yamlFloatSyntax = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// resolveBytes is resolvePlain without allocating for the scalars that
// can only be strings (isString true, v nil): those whose first character
// starts no other value, and words longer than any yaml/v2 resolves by
// name.
func resolveBytes(s []byte) (v any, isString bool) {
	switch resolveTable[s[0]] {
	case 0:
		return nil, true
	case 'M':
		if len(s) > 5 {
			return nil, true
		}
		if v, ok := resolveWords[string(s)]; ok {
			return v, false
		}
		return nil, true
	}
	v = resolvePlain(string(s))
	_, isString = v.(string)
	return v, isString
}

// resolvePlain is the value yaml/v2 decodes a plain scalar s into an
// interface{} as (resolve.go's resolve with no tag, and decode.go's
// scalar keeping timestamps as strings): string, bool, nil, int, int64,
// uint64 or float64. "<<" is not asked for (merge keys are refused
// before).
func resolvePlain(s string) any {
	hint := resolveTable[s[0]]
	if hint == 0 {
		return s
	}
	if v, ok := resolveWords[s]; ok {
		return v
	}
	if s == ".nan" || s == ".NaN" || s == ".NAN" {
		return math.NaN()
	}
	switch hint {
	case '.':
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	case 'D', 'S':
		if isTimestamp(s) {
			return s
		}
		plain := strings.ReplaceAll(s, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return intValue(i)
		}
		if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return u
		}
		if yamlFloatSyntax.MatchString(plain) {
			if f, err := strconv.ParseFloat(plain, 64); err == nil {
				return f
			}
		}
		if rest, ok := strings.CutPrefix(plain, "0b"); ok {
			if i, err := strconv.ParseInt(rest, 2, 64); err == nil {
				return intValue(i)
			}
			if u, err := strconv.ParseUint(rest, 2, 64); err == nil {
				return u
			}
		} else if rest, ok := strings.CutPrefix(plain, "-0b"); ok {
			if i, err := strconv.ParseInt("-"+rest, 2, 64); err == nil {
				return int(i)
			}
		}
	}
	return s
}

func intValue(i int64) any {
	if i == int64(int(i)) {
		return int(i)
	}
	return i
}

// timestampLayouts are the layouts yaml/v2 tries on a plain scalar that
// starts with four digits and "-".
var timestampLayouts = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

func isTimestamp(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, layout := range timestampLayouts {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}
