package declcfg

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"sigs.k8s.io/yaml"
)

// This file splits one catalog file into blobs exactly as
// operator-registry's WalkMetasReader does with apimachinery's
// yaml.NewYAMLOrJSONDecoder(r, 4096) (k8s.io/apimachinery
// pkg/util/yaml/decoder.go):
//
//   - The file is a JSON stream if its first non-space character within
//     the first 4096 bytes is "{" (unicode.IsSpace), otherwise a stream of
//     YAML documents.
//   - A JSON stream is a sequence of JSON values (no separator needed).
//     If a value fails to decode while at most one value has decoded, the
//     rest of the file, from the end of the last good value and after
//     whitespace up to the first newline, is read as YAML documents
//     instead; the JSON error is reported if the first YAML document
//     fails too. After two good values a JSON error is final. (So one JSON
//     object followed by "---" and YAML documents is a valid file.)
//   - YAML documents are split on lines starting with "---"; what follows
//     the marker must be blank or a comment. A marker that ends a
//     non-empty document is dropped; a marker with nothing before it (the
//     first line, or right after another marker) is kept as the first
//     line of the next document. Each document is converted to JSON by
//     sigs.k8s.io/yaml (YAML 1.1: yes/no/on/off/y/n are booleans) and
//     decoded as a JSON blob. A document of only markers, blank lines and
//     comments is an empty blob, which is an error (it has no schema): so
//     are a file that is only "---", two markers in a row, and blank lines
//     after the last marker; a trailing marker alone is fine.

// sniffSize is how far into a file the JSON sniff looks.
const sniffSize = 4096

// looksJSON is apimachinery's GuessJSONStream.
func looksJSON(data []byte) bool {
	b := data[:min(len(data), sniffSize)]
	return bytes.HasPrefix(bytes.TrimLeftFunc(b, unicode.IsSpace), []byte("{"))
}

// fileDecoder decodes the blobs of one file.
type fileDecoder struct {
	file  string
	data  []byte
	c     *canonicalizer
	arena *arena
	// lines counts lines incrementally: line is the 1-based line of
	// offset lineOff.
	lineOff, line int
	// metas are the blobs decoded, offs the offsets where they start.
	metas []Meta
	offs  []int
	// jbuf holds the JSON of the YAML document being converted.
	jbuf []byte
}

// lineAt returns the 1-based line of offset off. Offsets are asked for in
// increasing order in the common case; going back recounts.
func (d *fileDecoder) lineAt(off int) int {
	if off < d.lineOff {
		d.lineOff, d.line = 0, 1
	}
	off = min(off, len(d.data))
	d.line += bytes.Count(d.data[d.lineOff:off], []byte{'\n'})
	d.lineOff = off
	return d.line
}

func (d *fileDecoder) errAt(off int, format string, args ...any) *Error {
	return &Error{Pos: Position{File: d.file, Line: d.lineAt(off)}, Err: fmt.Errorf(format, args...), off: off}
}

// decode collects every blob of the file in order and returns the first
// error, as operator-registry would meet it.
func (d *fileDecoder) decode() *Error {
	d.lineOff, d.line = 0, 1
	if !looksJSON(d.data) {
		return d.yamlStream(0, nil)
	}
	data := d.data
	pos, count := 0, 0
	for {
		p := skipSpace(data, pos)
		if p >= len(data) {
			return nil
		}
		mv, end, jerr := d.c.decodeMeta(data, p)
		if jerr == nil {
			count++
			if err := d.add(mv, p, p); err != nil {
				return err
			}
			pos = end
			continue
		}
		firstErr := d.errAt(jerr.off, "%s", jsonMessage(jerr))
		if count > 1 {
			return firstErr
		}
		skip, ok := consumeWhitespace(data[pos:])
		if !ok {
			return firstErr
		}
		return d.yamlStream(pos+skip, firstErr)
	}
}

func jsonMessage(e *jsonError) string {
	if strings.HasPrefix(e.msg, "invalid character") || e.msg == "unexpected end of JSON input" || e.msg == "exceeded max depth" {
		return "invalid JSON: " + e.msg
	}
	return e.msg
}

// consumeWhitespace is YAMLOrJSONDecoder.consumeWhitespace: it skips
// whitespace runes up to and including the first newline, reading four
// bytes at a time; fewer than four bytes left, or an invalid rune, ends
// the stream (ok false).
func consumeWhitespace(rest []byte) (n int, ok bool) {
	for {
		if len(rest)-n < 4 {
			return 0, false
		}
		r, size := utf8.DecodeRune(rest[n : n+4])
		if r == utf8.RuneError {
			return 0, false
		}
		if !unicode.IsSpace(r) {
			return n, true
		}
		n += size
		if r == '\n' {
			return n, true
		}
	}
}

// add stores one decoded blob; contentOff is where its first key is (for
// its line), off where the value starts.
func (d *fileDecoder) add(mv metaValue, off, contentOff int) *Error {
	if mv.null {
		return d.errAt(contentOff, "blob is empty (null), not an object with a schema")
	}
	if mv.schema == "" {
		return d.errAt(contentOff, "blob has no schema (the %q key is missing or empty)", "schema")
	}
	d.metas = append(d.metas, Meta{
		Schema:  mv.schema,
		Package: mv.pkg,
		Name:    mv.name,
		Blob:    d.arena.copy(mv.canonical),
		Pos:     Position{File: d.file, Line: d.lineAt(contentOff)},
	})
	d.offs = append(d.offs, off)
	return nil
}

// yamlStream decodes YAML documents from offset start. jsonErr, if set, is
// reported instead of the first document's decoding error.
func (d *fileDecoder) yamlStream(start int, jsonErr *Error) *Error {
	r := yamlReader{data: d.data, pos: start}
	for {
		doc, docOff, err := r.next()
		if err == errEOF {
			return nil
		}
		if err != nil {
			if jsonErr != nil {
				return jsonErr
			}
			return d.errAt(err.off, "invalid YAML: %s", err.msg)
		}
		contentOff := firstContentLine(d.data, docOff, doc)
		mv, yerr := d.yamlDoc(doc, docOff, contentOff)
		if yerr != nil {
			if jsonErr != nil {
				return jsonErr
			}
			return yerr
		}
		jsonErr = nil
		if err := d.add(mv, docOff, contentOff); err != nil {
			return err
		}
	}
}

var yamlLineErr = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlDoc converts one document as sigs.k8s.io/yaml.Unmarshal does and
// decodes the result as a JSON blob.
func (d *fileDecoder) yamlDoc(doc []byte, docOff, contentOff int) (metaValue, *Error) {
	if mv, ok := d.yamlDirect(doc); ok {
		return mv, nil
	}
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		msg := err.Error()
		off := contentOff
		if m := yamlLineErr.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			off = lineOffset(d.data, docOff, n)
			msg = msg[len(m[0]):]
		} else if len(msg) > 6 && msg[:6] == "yaml: " {
			msg = msg[6:]
		}
		return metaValue{}, d.errAt(off, "invalid YAML: %s", msg)
	}
	if string(j) == "null" {
		return metaValue{null: true}, nil
	}
	mv, _, jerr := d.c.decodeMeta(j, 0)
	if jerr != nil {
		return metaValue{}, d.errAt(contentOff, "%s", jerr.msg)
	}
	return mv, nil
}

// lineOffset returns the offset of the n-th (1-based) line from off.
func lineOffset(data []byte, off, n int) int {
	for ; n > 1; n-- {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return len(data)
		}
		off += i + 1
	}
	return off
}

// firstContentLine returns the offset of the first line of a document
// that is neither blank, a comment nor a "---" marker (the document's
// start if none).
func firstContentLine(data []byte, off int, doc []byte) int {
	p := off
	for p < len(data) {
		end := bytes.IndexByte(data[p:], '\n')
		line := data[p:]
		if end >= 0 {
			line = data[p : p+end]
		}
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] != '#' && !bytes.HasPrefix(line, []byte("---")) {
			return p
		}
		if end < 0 || p+end+1-off >= len(doc) {
			break
		}
		p += end + 1
	}
	return off
}

var errEOF = &jsonError{msg: "EOF"}

// yamlReader is apimachinery's YAMLReader over a LineReader: lines are
// read with bufio.Reader.ReadLine (a "\r\n" ending becomes "\n", a last
// line without one gets one), documents end at lines starting with "---".
type yamlReader struct {
	data []byte
	pos  int
	buf  []byte
}

// next returns the next non-empty document (a copy only when line endings
// had to be normalised) and the offset of its first line.
func (r *yamlReader) next() (doc []byte, off int, err *jsonError) {
	data := r.data
	start := r.pos
	normalized := false
	r.buf = r.buf[:0]
	docEnd := start // end of the document's lines in data
	for {
		if r.pos >= len(data) {
			// LineReader's last read: "\n" with io.EOF, never written.
			if docEnd > start {
				return r.finish(start, docEnd, normalized), start, nil
			}
			return nil, 0, errEOF
		}
		lineStart := r.pos
		nl := bytes.IndexByte(data[r.pos:], '\n')
		var content []byte // the line without its ending
		if nl < 0 {
			content = data[r.pos:]
			r.pos = len(data)
			normalized = true // a "\n" is added
		} else {
			content = data[r.pos : r.pos+nl]
			r.pos += nl + 1
			if len(content) > 0 && content[len(content)-1] == '\r' {
				content = content[:len(content)-1]
				normalized = true
			}
		}
		if bytes.HasPrefix(content, []byte("---")) {
			trimmed := bytes.TrimSpace(content[3:])
			if len(trimmed) > 0 && trimmed[0] != '#' {
				return nil, 0, &jsonError{lineStart, fmt.Sprintf("invalid Yaml document separator: %s", trimmed)}
			}
			if docEnd > start {
				return r.finish(start, docEnd, normalized), start, nil
			}
			// With nothing read yet, the marker is the document's first
			// line (YAML's own document start).
		}
		docEnd = r.pos
	}
}

// finish returns data[start:end] as the document, rebuilt line by line
// when its line endings need normalising.
func (r *yamlReader) finish(start, end int, normalized bool) []byte {
	if !normalized {
		return r.data[start:end]
	}
	out := make([]byte, 0, end-start+1)
	for p := start; p < end; {
		nl := bytes.IndexByte(r.data[p:end], '\n')
		var line []byte
		if nl < 0 {
			line = r.data[p:end]
			p = end
		} else {
			line = r.data[p : p+nl]
			p += nl + 1
		}
		if nl >= 0 && len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		out = append(out, line...)
		out = append(out, '\n')
	}
	return out
}
