package graphdata

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// parseSimpleYAML parses the block-style subset of YAML that graph-data's
// blocked-edges and channels files are written in, several times faster
// than yaml.v3 (whose scanner took a fifth of a real-scale build's CPU
// time). It returns the top-level mapping node with Kind, Tag, Value,
// Line and Content set as yaml.v3 sets them, which is all this package
// reads, or false for anything outside the subset; the caller then parses
// with yaml.v3, which also reports the errors. The subset, line by line:
//
//   - blank lines and comment lines (first non-space character '#'),
//     and one "---" line before the content;
//   - block mappings: "key: value" or "key:" followed by a more indented
//     node, or by a sequence at the key's indentation; keys are
//     identifiers ([A-Za-z][A-Za-z0-9_-]*);
//   - block sequences: "- value", "- key: value" (a mapping in the item);
//   - values: plain scalars on one line that yaml.v3 resolves to !!str
//     (no ": ", " #", leading indicator, or value read as a number,
//     boolean, null or timestamp), single- or double-quoted scalars on one
//     line (no backslash escapes), and literal block scalars "|" and "|-".
//
// Tabs, carriage returns, other control characters and bytes outside
// ASCII are outside the subset, which keeps YAML's other line breaks
// (NEL, LS, PS) and the byte-order mark away.
func parseSimpleYAML(data []byte) (*yaml.Node, bool) {
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return nil, false // a last line without a newline changes block scalars
	}
	for _, c := range data {
		if (c < 0x20 && c != '\n') || c >= 0x7f {
			return nil, false
		}
	}
	p := &simpleYAML{lines: strings.Split(string(data[:len(data)-1]), "\n")}
	p.skip()
	if p.i < len(p.lines) && p.lines[p.i] == "---" {
		p.i++
		p.skip()
	}
	if p.i == len(p.lines) || indentOf(p.lines[p.i]) != 0 {
		return nil, false
	}
	n, ok := p.mapping(0)
	if !ok {
		return nil, false
	}
	p.skip()
	if p.i != len(p.lines) {
		return nil, false
	}
	return n, true
}

// simpleYAML is parseSimpleYAML's state: the lines and the next one.
type simpleYAML struct {
	lines []string
	i     int
}

// skip passes blank and comment lines.
func (p *simpleYAML) skip() {
	for p.i < len(p.lines) {
		t := strings.TrimLeft(p.lines[p.i], " ")
		if t != "" && t[0] != '#' {
			return
		}
		p.i++
	}
}

func indentOf(line string) int {
	return len(line) - len(strings.TrimLeft(line, " "))
}

// mapping parses a block mapping whose keys are at column ind, starting at
// the current line.
func (p *simpleYAML) mapping(ind int) (*yaml.Node, bool) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: p.i + 1}
	for {
		p.skip()
		if p.i == len(p.lines) {
			return n, true
		}
		line := p.lines[p.i]
		if in := indentOf(line); in < ind {
			return n, true
		} else if in > ind {
			return nil, false
		}
		key, rest, ok := splitKey(line[ind:])
		if !ok {
			return nil, false
		}
		tag, ok := plainTag(key)
		if !ok {
			return nil, false
		}
		k := &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: key, Line: p.i + 1}
		v, ok := p.value(ind, rest)
		if !ok {
			return nil, false
		}
		n.Content = append(n.Content, k, v)
	}
}

// splitKey splits "key: rest" or "key:" into key and rest.
func splitKey(s string) (key, rest string, ok bool) {
	i := 0
	for i < len(s) && (isLetter(s[i]) || i > 0 && (s[i] >= '0' && s[i] <= '9' || s[i] == '_' || s[i] == '-')) {
		i++
	}
	if i == 0 || i == len(s) || s[i] != ':' {
		return "", "", false
	}
	if i+1 == len(s) {
		return s[:i], "", true
	}
	if s[i+1] != ' ' {
		return "", "", false
	}
	return s[:i], strings.Trim(s[i+2:], " "), true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// value parses the value of an entry of a mapping at column ind whose key
// is on the current line, rest being what follows "key:" there; it
// leaves the current line after the value.
func (p *simpleYAML) value(ind int, rest string) (*yaml.Node, bool) {
	line := p.i + 1
	p.i++
	if rest != "" {
		switch rest {
		case "|", "|-":
			return p.literal(ind, line, rest == "|-")
		}
		return scalar(rest, line)
	}
	// A nested node: more indented, or a sequence at the key's column.
	p.skip()
	if p.i == len(p.lines) {
		return nil, false // null
	}
	next := p.lines[p.i]
	in := indentOf(next)
	switch {
	case in > ind && isItem(next[in:]):
		return p.sequence(in)
	case in > ind:
		return p.mapping(in)
	case in == ind && isItem(next[in:]):
		return p.sequence(in)
	}
	return nil, false // null
}

func isItem(s string) bool { return s == "-" || strings.HasPrefix(s, "- ") }

// sequence parses a block sequence whose dashes are at column ind.
func (p *simpleYAML) sequence(ind int) (*yaml.Node, bool) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: p.i + 1}
	for {
		p.skip()
		if p.i == len(p.lines) {
			return n, true
		}
		line := p.lines[p.i]
		in := indentOf(line)
		if in < ind || in == ind && !isItem(line[in:]) {
			return n, true
		}
		if in > ind || len(line) < ind+3 || line[ind+2] == ' ' {
			return nil, false // "-" alone, or the item's indentation is not 2
		}
		item := line[ind+2:]
		if _, _, isMap := splitKey(item); isMap {
			// The item is a mapping at column ind+2: its first line is
			// read as if the dash were a space.
			p.lines[p.i] = strings.Repeat(" ", ind+2) + item
			v, ok := p.mapping(ind + 2)
			if !ok {
				return nil, false
			}
			n.Content = append(n.Content, v)
			continue
		}
		v, ok := scalar(strings.TrimRight(item, " "), p.i+1)
		if !ok {
			return nil, false
		}
		n.Content = append(n.Content, v)
		p.i++
	}
}

// scalar parses a one-line flow scalar (the text after "key: " or "- ",
// without trailing spaces).
func scalar(s string, line int) (*yaml.Node, bool) {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Line: line}
	switch s[0] {
	case '\'':
		end := len(s) - 1
		if end == 0 || s[end] != '\'' {
			return nil, false
		}
		inner := s[1:end]
		// '' is a quote; a lone quote inside would end the scalar early.
		if strings.Count(inner, "'")%2 != 0 || strings.Contains(strings.ReplaceAll(inner, "''", ""), "'") {
			return nil, false
		}
		n.Style, n.Value = yaml.SingleQuotedStyle, strings.ReplaceAll(inner, "''", "'")
		return n, true
	case '"':
		end := len(s) - 1
		if end == 0 || s[end] != '"' {
			return nil, false
		}
		inner := s[1:end]
		if strings.ContainsAny(inner, "\"\\") {
			return nil, false
		}
		n.Style, n.Value = yaml.DoubleQuotedStyle, inner
		return n, true
	}
	if strings.IndexByte("-?:,[]{}#&*!|>%@`", s[0]) >= 0 ||
		strings.Contains(s, ": ") || strings.Contains(s, " #") || s[len(s)-1] == ':' {
		return nil, false
	}
	tag, ok := plainTag(s)
	if !ok {
		return nil, false
	}
	n.Tag, n.Value = tag, s
	return n, true
}

// plainTag is the tag yaml.v3 resolves plain scalar s to when that is
// certainly !!str (see yaml.v3's resolve.go); ok is false when s might be
// a null, boolean, number or timestamp.
func plainTag(s string) (tag string, ok bool) {
	switch c := s[0]; {
	case strings.IndexByte("yYnNtTfFoO~", c) >= 0:
		switch s {
		case "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE":
			return "", false
		}
	case c == '.':
		if _, err := strconv.ParseFloat(s, 64); err == nil || strings.EqualFold(s, ".nan") || strings.EqualFold(s, ".inf") {
			return "", false
		}
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		// Two dots rule out integers and floats; a timestamp starts with
		// four digits and a dash. Versions (4.16.3) are such strings.
		if strings.Count(s, ".") < 2 || len(s) > 4 && s[4] == '-' {
			return "", false
		}
	}
	return "!!str", true
}

// literal parses a literal block scalar ("|" clips the final line breaks
// to one, "|-" strips them) of an entry at column ind whose indicator is
// on line; the current line is the first after the indicator.
func (p *simpleYAML) literal(ind, line int, strip bool) (*yaml.Node, bool) {
	// The content's indentation is that of its first non-blank line; blank
	// lines before it must not be longer.
	start, blanks := p.i, 0
	for p.i < len(p.lines) && strings.TrimLeft(p.lines[p.i], " ") == "" {
		blanks = max(blanks, len(p.lines[p.i]))
		p.i++
	}
	if p.i == len(p.lines) {
		return nil, false
	}
	in := indentOf(p.lines[p.i])
	if in <= ind || blanks > in {
		return nil, false // empty, or an indentation yaml.v3 rejects
	}
	p.i = start
	var b strings.Builder
	pending := 0 // blank lines not yet written: kept only if content follows
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		if strings.TrimLeft(l, " ") == "" {
			if len(l) > in {
				return nil, false // spaces beyond the indentation are content
			}
			pending++
			continue
		}
		if indentOf(l) < in {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		for ; pending > 0; pending-- {
			b.WriteByte('\n')
		}
		b.WriteString(l[in:])
	}
	// Trailing blank lines belong to no node; the comments or entries
	// after them are read by the caller.
	p.i -= pending
	if !strip {
		b.WriteByte('\n')
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.LiteralStyle, Value: b.String(), Line: line}, true
}
