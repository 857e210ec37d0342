package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Parse decodes index.json. Its file table, tens of thousands of entries
// and most of its bytes at real scale, is read by parseFiles when it is
// the last member and in the form encodeFiles writes (the form upgraph
// always writes); encoding/json then decodes the rest. Anything else
// (another writer's spacing, escaped names) goes through encoding/json
// whole, so both give the same Manifest and the same errors.
func Parse(data []byte) (*Manifest, error) {
	var m Manifest
	if !parseFast(data, &m) {
		m = Manifest{}
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, err
		}
	}
	if m.Format != Format {
		return nil, fmt.Errorf("format %d, this upgraph reads format %d", m.Format, Format)
	}
	if m.Files == nil {
		return nil, fmt.Errorf("no files listed")
	}
	return &m, nil
}

// parseFast decodes data into m when its file table is in encodeFiles'
// form, and reports whether it could.
func parseFast(data []byte, m *Manifest) bool {
	key, table, ok := filesMember(data)
	if !ok {
		return false
	}
	files, rest, ok := parseFiles(data[table:])
	if !ok || len(bytes.TrimRight(rest, " \t\r\n")) != 1 || rest[0] != '}' {
		return false
	}
	// The members before the table, closed: {…,"files":{…}} → {…}.
	head := bytes.TrimRight(data[:key], " \t\r\n")
	if c, ok := bytes.CutSuffix(head, []byte(",")); ok {
		head = c
	} else if !bytes.Equal(bytes.TrimSpace(head), []byte("{")) {
		return false
	}
	head = append(head[:len(head):len(head)], '}')
	if json.Unmarshal(head, m) != nil || m.Files != nil {
		return false
	}
	m.Files = files
	return true
}

// filesMember finds the top-level member "files" of the object data:
// the offset of its key and of its value, ok false when there is none,
// more than one, or data is not an object as far as seen. Strings are
// skipped, so a "files" inside one, or in a nested object (counts),
// is not it.
func filesMember(data []byte) (key, value int, ok bool) {
	i := 0
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	if i == len(data) || data[i] != '{' {
		return 0, 0, false
	}
	depth, found := 0, false
	expectKey := false
	for ; i < len(data); i++ {
		switch c := data[i]; c {
		case '{', '[':
			depth++
			expectKey = c == '{' && depth == 1
		case '}', ']':
			depth--
			if depth == 0 {
				return key, value, found
			}
		case ',':
			expectKey = depth == 1
		case '"':
			start := i
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if i >= len(data) {
				return 0, 0, false
			}
			if depth == 1 && expectKey {
				expectKey = false
				if string(data[start:i+1]) != `"files"` {
					continue
				}
				if found {
					return 0, 0, false // twice: encoding/json decides
				}
				j := i + 1
				for j < len(data) && isSpace(data[j]) {
					j++
				}
				if j == len(data) || data[j] != ':' {
					return 0, 0, false
				}
				for j++; j < len(data) && isSpace(data[j]); j++ {
				}
				key, value, found = start, j, true
			}
		}
	}
	return 0, 0, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// parseFiles reads a file table in encodeFiles' exact form,
// {"NAME":{"sha256":"HEX","size":N},…}, with plain strings (printable
// ASCII but '"' and '\'), and returns it and the bytes after it; ok is
// false for anything else.
func parseFiles(b []byte) (files map[string]File, rest []byte, ok bool) {
	if len(b) < 2 || b[0] != '{' {
		return nil, nil, false
	}
	// An entry is at least 70 bytes with a 64-digit digest.
	files = make(map[string]File, len(b)/100)
	b = b[1:]
	if b[0] == '}' {
		return files, b[1:], true
	}
	for {
		name, r, ok := plainString(b)
		if !ok {
			return nil, nil, false
		}
		if r, ok = bytes.CutPrefix(r, []byte(`:{"sha256":`)); !ok {
			return nil, nil, false
		}
		digest, r, ok := plainString(r)
		if !ok {
			return nil, nil, false
		}
		if r, ok = bytes.CutPrefix(r, []byte(`,"size":`)); !ok {
			return nil, nil, false
		}
		size, r, ok := plainSize(r)
		if !ok || len(r) < 2 || r[0] != '}' {
			return nil, nil, false
		}
		files[name] = File{SHA256: digest, Size: size}
		switch r[1] {
		case ',':
			b = r[2:]
		case '}':
			return files, r[2:], true
		default:
			return nil, nil, false
		}
	}
}

// plainString reads a JSON string of printable ASCII without '\'.
func plainString(b []byte) (string, []byte, bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", nil, false
	}
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return string(b[1:i]), b[i+1:], true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return "", nil, false
		}
	}
	return "", nil, false
}

// plainSize reads a non-negative JSON integer of at most 18 digits.
func plainSize(b []byte) (int64, []byte, bool) {
	n, i := int64(0), 0
	for ; i < len(b) && i < 19 && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	if i == 0 || i > 18 || (i > 1 && b[0] == '0') {
		return 0, nil, false
	}
	return n, b[i:], true
}
