package schema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// trie holds the pointers whose lines are wanted, and their ancestors, so
// the scanner only builds pointer strings where it has to.
type trie struct {
	want     bool
	children map[string]*trie // by escaped token
}

func (t *trie) add(ptr string) {
	t.want = true // ancestors too: the fallback for a missing value
	if ptr == "" {
		return
	}
	tok, rest, more := strings.Cut(ptr[1:], "/")
	if t.children == nil {
		t.children = map[string]*trie{}
	}
	c := t.children[tok]
	if c == nil {
		c = &trie{}
		t.children[tok] = c
	}
	if more {
		c.add("/" + rest)
	} else {
		c.want = true
	}
}

func (t *trie) child(tok string) *trie {
	if t == nil {
		return nil
	}
	return t.children[tok]
}

// located is what scanJSON learns about a valid JSON document: where the
// wanted values start, and the keys that repeat within an object (JSON
// Schema sees only the last of them, as encoding/json keeps it).
type located struct {
	data       []byte
	offsets    map[string]int
	duplicates []Problem
}

// line is the line where the value at ptr starts, or where its nearest
// existing ancestor starts (for a missing property, its object).
func (l *located) line(ptr string) int {
	for {
		if off, ok := l.offsets[ptr]; ok {
			line, _ := lineCol(l.data, int64(off))
			return line
		}
		if ptr == "" {
			return 0
		}
		ptr = ptr[:strings.LastIndexByte(ptr, '/')]
	}
}

type pathElem struct {
	key   string // escaped
	index int
	isKey bool
}

type scanner struct {
	data []byte
	i    int
	path []pathElem
	loc  *located
}

// scanJSON walks data, which must be valid JSON, once.
func scanJSON(data []byte, ps []Problem) *located {
	var root *trie
	if len(ps) > 0 {
		root = &trie{}
		for _, p := range ps {
			root.add(p.Pointer)
		}
	}
	s := &scanner{data: data, loc: &located{data: data, offsets: map[string]int{}}}
	s.value(root)
	return s.loc
}

func (s *scanner) ptr() string {
	var b strings.Builder
	for _, e := range s.path {
		b.WriteByte('/')
		if e.isKey {
			b.WriteString(e.key)
		} else {
			b.WriteString(strconv.Itoa(e.index))
		}
	}
	return b.String()
}

func (s *scanner) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) value(t *trie) {
	s.ws()
	if s.i >= len(s.data) {
		return
	}
	if t != nil && t.want {
		s.loc.offsets[s.ptr()] = s.i
	}
	switch s.data[s.i] {
	case '{':
		s.object(t)
	case '[':
		s.array(t)
	case '"':
		s.str()
	default:
		for s.i < len(s.data) {
			switch s.data[s.i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return
			}
			s.i++
		}
	}
}

// str skips a string and returns its raw text, quotes included.
func (s *scanner) str() []byte {
	start := s.i
	s.i++
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case '\\':
			s.i += 2
			continue
		case '"':
			s.i++
			return s.data[start:s.i]
		}
		s.i++
	}
	return s.data[start:]
}

func (s *scanner) object(t *trie) {
	s.i++ // {
	var keys []string
	var keySet map[string]bool
	for {
		s.ws()
		if s.i >= len(s.data) || s.data[s.i] == '}' {
			s.i++
			return
		}
		keyStart := s.i
		raw := s.str()
		key := string(raw[1 : len(raw)-1])
		if strings.IndexByte(key, '\\') >= 0 {
			_ = json.Unmarshal(raw, &key)
		}
		dup := false
		if keySet != nil {
			dup = keySet[key]
			keySet[key] = true
		} else {
			for _, k := range keys {
				if k == key {
					dup = true
					break
				}
			}
			keys = append(keys, key)
			if len(keys) > 16 {
				keySet = map[string]bool{}
				for _, k := range keys {
					keySet[k] = true
				}
			}
		}
		tok := escapeToken(key)
		s.path = append(s.path, pathElem{key: tok, isKey: true})
		if dup {
			line, _ := lineCol(s.data, int64(keyStart))
			s.loc.duplicates = append(s.loc.duplicates, Problem{Pointer: s.ptr(), Line: line,
				Message: fmt.Sprintf("duplicate key %q: readers keep only one of the values", key)})
		}
		s.ws()
		s.i++ // :
		s.value(t.child(tok))
		s.path = s.path[:len(s.path)-1]
		s.ws()
		if s.i < len(s.data) && s.data[s.i] == ',' {
			s.i++
		}
	}
}

func (s *scanner) array(t *trie) {
	s.i++ // [
	for n := 0; ; n++ {
		s.ws()
		if s.i >= len(s.data) || s.data[s.i] == ']' {
			s.i++
			return
		}
		var c *trie
		if t != nil && t.children != nil {
			c = t.children[strconv.Itoa(n)]
		}
		s.path = append(s.path, pathElem{index: n})
		s.value(c)
		s.path = s.path[:len(s.path)-1]
		s.ws()
		if s.i < len(s.data) && s.data[s.i] == ',' {
			s.i++
		}
	}
}
