package metas

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
)

// Filter returns the lines of data (a file of Files) whose blob is named
// name, as catalogd's ?name= selects them: the value of the blob's
// top-level key that folds to "name" (operator-registry's case-insensitive
// match) equals name exactly. The result shares no bytes with data when
// several lines match; a single match is a subslice.
func Filter(data []byte, name string) []byte {
	// The name as the canonical encoding writes it: a line that lacks it
	// cannot match, and most lines are skipped by this search alone.
	quoted := quote(name)
	var out []byte
	var single []byte
	matches := 0
	for len(data) > 0 {
		i := bytes.Index(data, quoted)
		if i < 0 {
			break
		}
		start := bytes.LastIndexByte(data[:i], '\n') + 1
		end := bytes.IndexByte(data[i:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += i + 1
		}
		line := data[start:end]
		if got, ok := BlobName(line); ok && got == name {
			matches++
			switch matches {
			case 1:
				single = line
			case 2:
				out = append(append(out, single...), line...)
			default:
				out = append(out, line...)
			}
		}
		data = data[end:]
	}
	if matches == 1 {
		return single[:len(single):len(single)]
	}
	if out == nil {
		return []byte{}
	}
	return out
}

// quote is name as encoding/json writes it without HTML escaping.
func quote(name string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(name) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// BlobName returns the name catalogd indexes a blob line under: the string
// value of its top-level key that folds to "name", if any. The line is
// one JSON object (a trailing newline is allowed).
func BlobName(line []byte) (string, bool) {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return "", false
	}
	i++
	for {
		i = skipSpace(line, i)
		if i >= len(line) || line[i] != '"' {
			return "", false // '}' (no more keys) or not JSON
		}
		kEnd := stringEnd(line, i)
		if kEnd < 0 {
			return "", false
		}
		key := line[i:kEnd]
		i = skipSpace(line, kEnd)
		if i >= len(line) || line[i] != ':' {
			return "", false
		}
		i = skipSpace(line, i+1)
		if isName(key) {
			if i >= len(line) || line[i] != '"' {
				return "", false
			}
			vEnd := stringEnd(line, i)
			if vEnd < 0 {
				return "", false
			}
			return unquote(line[i:vEnd])
		}
		if i = skipValue(line, i); i < 0 {
			return "", false
		}
		i = skipSpace(line, i)
		if i >= len(line) || line[i] != ',' {
			return "", false
		}
		i++
	}
}

// isName reports whether a quoted key folds to "name", as
// operator-registry's cases.Fold comparison does.
func isName(quoted []byte) bool {
	k := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(k, '\\') < 0 {
		ascii := true
		for _, c := range k {
			if c >= utf8.RuneSelf {
				ascii = false
				break
			}
		}
		if ascii {
			return len(k) == 4 && strings.EqualFold(string(k), "name")
		}
	}
	s, ok := unquote(quoted)
	return ok && folder.String(s) == "name"
}

var folder = cases.Fold()

func unquote(quoted []byte) (string, bool) {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1]), true
	}
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return "", false
	}
	return s, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the offset just after the string starting at b[i]
// ('"'), or -1.
func stringEnd(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexAny(b[i:], `"\`)
		if j < 0 {
			return -1
		}
		i += j
		if b[i] == '"' {
			return i + 1
		}
		i += 2 // an escape: skip the backslash and the character it escapes
		if i > len(b) {
			return -1
		}
	}
}

// skipValue returns the offset just after the JSON value at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = stringEnd(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	default: // a number or a literal
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\n' {
			i++
		}
		return i
	}
}
