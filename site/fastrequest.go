package site

import (
	"bytes"
	"strings"
	"unsafe"
)

// fastRequest is a request the fast path takes: what answering a graph
// request reads of it, nothing more. Its strings are views of the head it
// was parsed from (the connection's read buffer), not copies: they are
// valid until the next read on the connection, which comes after the
// answer is written, and nothing keeps them (the answer is built from the
// generation's own strings). Copying them cost three or four allocations
// per request, the fast path's only ones, and so most of the garbage
// collector's work under load.
type fastRequest struct {
	head           bool
	path, rawQuery string
	accept         string // every Accept line, joined with ", " as net/http's Header would be
	acceptPresent  bool
	acceptEncoding string // the first line of each, as Header.Get returns
	ifNoneMatch    string
	origin         string
}

// parseFastRequest parses a request head (request line and header lines,
// each ending in CRLF, without the final empty line). ok is false for
// anything the fast path leaves to net/http: an unusual method, version,
// target or header, a body, or a connection option. It never rejects a
// request itself, so it need not reproduce net/http's error answers.
func parseFastRequest(head []byte) (r fastRequest, ok bool) {
	line, rest, _ := bytes.Cut(head, crlf)
	method, line, _ := bytes.Cut(line, space)
	switch string(method) {
	case "GET":
	case "HEAD":
		r.head = true
	default:
		return r, false
	}
	target, proto, _ := bytes.Cut(line, space)
	if string(proto) != "HTTP/1.1" || len(target) == 0 || target[0] != '/' {
		return r, false
	}
	for _, c := range target {
		// ';' in the query makes net/http log a warning.
		if c <= ' ' || c >= 0x7f || c == '#' || c == ';' {
			return r, false
		}
	}
	path, query, _ := bytes.Cut(target, question)
	// A percent escape would make net/http's URL.Path differ from the raw
	// path.
	if bytes.IndexByte(path, '%') >= 0 {
		return r, false
	}
	r.path, r.rawQuery = view(path), view(query)

	hosts := 0
	var seen [3]bool
	for len(rest) > 0 {
		line, rest, _ = bytes.Cut(rest, crlf)
		name, value, found := bytes.Cut(line, colon)
		if !found || !validFieldName(name) {
			return r, false
		}
		value = bytes.Trim(value, " \t")
		if !validFieldValue(value) {
			return r, false
		}
		switch {
		case fieldIs(name, "Host"):
			hosts++
			if !validHost(value) {
				return r, false
			}
		case fieldIs(name, "Accept"):
			if r.acceptPresent {
				r.accept += ", " + string(value)
			} else {
				r.accept, r.acceptPresent = view(value), true
			}
		case fieldIs(name, "Accept-Encoding"):
			first(&r.acceptEncoding, &seen[0], value)
		case fieldIs(name, "If-None-Match"):
			first(&r.ifNoneMatch, &seen[1], value)
		case fieldIs(name, "Origin"):
			first(&r.origin, &seen[2], value)
		case fieldIs(name, "Content-Length"), fieldIs(name, "Transfer-Encoding"),
			fieldIs(name, "Connection"), fieldIs(name, "Proxy-Connection"), fieldIs(name, "Keep-Alive"),
			fieldIs(name, "Expect"), fieldIs(name, "Upgrade"), fieldIs(name, "Te"), fieldIs(name, "Trailer"):
			return r, false
		}
	}
	return r, hosts == 1
}

var (
	crlf     = []byte("\r\n")
	space    = []byte(" ")
	question = []byte("?")
	colon    = []byte(":")
)

// first keeps the first value of a repeated header, as Header.Get does,
// even an empty one.
func first(dst *string, seen *bool, value []byte) {
	if !*seen {
		*dst, *seen = view(value), true
	}
}

// view is b as a string without copying it; b must not change while the
// string is used (see fastRequest).
func view(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func fieldIs(name []byte, canonical string) bool {
	return len(name) == len(canonical) && strings.EqualFold(string(name), canonical)
}

// validFieldName accepts an RFC 9110 token.
func validFieldName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c >= 0x80 || !tokenChar[c] {
			return false
		}
	}
	return true
}

var tokenChar = func() (t [128]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

// validFieldValue rejects control characters but tab, as net/http does;
// bytes from 0x80 are obs-text, which it allows.
func validFieldValue(b []byte) bool {
	for _, c := range b {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// validHost is stricter than net/http: a plain host name, IPv4 or
// bracketed IPv6 address, with an optional port.
func validHost(b []byte) bool {
	for _, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == ':' || c == '[' || c == ']' || c == '_') {
			return false
		}
	}
	return true
}

// headEnd finds the end of a request head in b: the index just past the
// empty line, and the length of the head without it. end is -1 when b
// does not hold a whole head yet; lax is true when a line ends in a bare
// LF, which net/http accepts and the fast path leaves to it.
func headEnd(b []byte) (end, headLen int, lax bool) {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1, 0, false
		}
		j += i
		if j == 0 || b[j-1] != '\r' {
			return j + 1, j, true
		}
		if j == i+1 { // an empty line: "\r\n"
			if i == 0 {
				// Empty lines before a request line are skipped by
				// net/http; leave them to it.
				return j + 1, 0, true
			}
			return j + 1, i, false
		}
		i = j + 1
	}
}
