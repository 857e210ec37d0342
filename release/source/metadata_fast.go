package source

import (
	"bytes"

	"github.com/upgraph/upgraph/tree/version"
)

// decodeMetadataFast decodes the common shape of a release-metadata
// document without encoding/json, which spent more CPU on the 23 MB of a
// real-scale source (5,784 documents, 300k previous entries) than
// assembling the graph from them. It accepts only documents it decodes
// exactly as encoding/json does: one object whose keys are spelled exactly
// as MetadataDocument's tags, none repeated, values of the field's type
// (no nulls), strings of printable ASCII without escapes, and nothing but
// whitespace after the object. For anything else it returns false and the
// caller decodes with encoding/json, which also reports the errors.
//
// previous and next are parsed into lists, through versions, instead of
// being set in doc, unless one of their strings does not parse or is not
// its version's text (release then parses doc's and reports the error).
func decodeMetadataFast(data []byte, doc *MetadataDocument, cache *decodeCache) (lists parsedLists, ok bool) {
	d := fastDecoder{data: data, cache: cache}
	if !d.consume('{') {
		return lists, false
	}
	if d.consume('}') {
		return lists, d.end()
	}
	// Fields by metadataField's numbering: strings, then lists, then the map.
	strs := [...]*string{&doc.Kind, &doc.Version, &doc.Payload, &doc.Arch, &doc.ManifestRef}
	strLists := [...]*[]string{&doc.Previous, &doc.Next}
	parsed := [...]*[]version.Version{&lists.previous, &lists.next}
	var seen [len(strs) + len(strLists) + 1]bool
	for {
		key, ok := d.str()
		if !ok || !d.consume(':') {
			return lists, false
		}
		f := metadataField(key)
		if f < 0 || seen[f] {
			return lists, false
		}
		seen[f] = true
		switch {
		case f < len(strs):
			*strs[f], ok = d.str()
		case f < len(strs)+len(strLists):
			*strLists[f-len(strs)], *parsed[f-len(strs)], ok = d.versionList(&cache.last[f-len(strs)])
		default:
			doc.Metadata, ok = d.strMap()
		}
		if !ok {
			return lists, false
		}
		if d.consume('}') {
			return lists, d.end()
		}
		if !d.consume(',') {
			return lists, false
		}
	}
}

// parsedLists are a document's previous and next lists, parsed.
type parsedLists struct{ previous, next []version.Version }

// decodeCache is what decodeMetadataFast remembers from one document to
// the next (one per worker, documents in name order): the versions met,
// and the last previous and next lists parsed, since every architecture
// of a release usually has the same lists, and its documents come one
// after the other.
type decodeCache struct {
	versions versionCache
	last     [2]parsedList // previous, next
}

func newDecodeCache() *decodeCache { return &decodeCache{versions: versionCache{}} }

// parsedList is a list's JSON text, from '[' to ']', and its versions.
type parsedList struct {
	text     []byte
	versions []version.Version
}

// metadataField numbers MetadataDocument's JSON keys as
// decodeMetadataFast's tables do; -1 for any other key.
func metadataField(key string) int {
	for i, k := range [...]string{"kind", "version", "payload", "arch", "manifestref", "previous", "next", "metadata"} {
		if key == k {
			return i
		}
	}
	return -1
}

type fastDecoder struct {
	data  []byte
	i     int
	cache *decodeCache
}

func (d *fastDecoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// consume skips whitespace and c, if c comes next.
func (d *fastDecoder) consume(c byte) bool {
	d.space()
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

// end reports whether only whitespace is left.
func (d *fastDecoder) end() bool {
	d.space()
	return d.i == len(d.data)
}

// str reads a string of printable ASCII without escapes.
func (d *fastDecoder) str() (string, bool) {
	b, ok := d.strBytes()
	return string(b), ok
}

// strBytes is str's text, in data.
func (d *fastDecoder) strBytes() ([]byte, bool) {
	if !d.consume('"') {
		return nil, false
	}
	start := d.i
	for ; d.i < len(d.data); d.i++ {
		c := d.data[d.i]
		if c == '"' {
			d.i++
			return d.data[start : d.i-1], true
		}
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return nil, false
		}
	}
	return nil, false
}

// versionList reads an array of strings and parses them as versions
// through d.cache: the same text as last's costs a comparison, and a
// version met before a map look-up
// (previous lists name the same few thousand versions hundreds of
// thousands of times). It returns either the versions (every string
// parsed, and is its version's text) or, when one does not parse or has
// surrounding space, the strings, for release to parse and report. The
// same text as last's gets last's slice, not a copy (the architectures of
// a release have the same lists: copies were 10 MB a build at real
// scale), so the releases of one source may share lists: they are only
// read.
func (d *fastDecoder) versionList(last *parsedList) (strs []string, parsed []version.Version, ok bool) {
	d.space()
	start := d.i
	if last.text != nil && bytes.HasPrefix(d.data[start:], last.text) {
		d.i += len(last.text)
		return nil, last.versions, true
	}
	if !d.consume('[') {
		return nil, nil, false
	}
	defer func() {
		if ok && parsed != nil {
			*last = parsedList{text: d.data[start:d.i], versions: parsed}
		}
	}()
	parsed = make([]version.Version, 0, d.items())
	if d.consume(']') {
		return nil, parsed, true
	}
	for {
		b, ok := d.strBytes()
		if !ok {
			return nil, nil, false
		}
		v, known := d.cache.versions[string(b)]
		if !known {
			s := string(b)
			var err error
			if v, err = version.Parse(s); err == nil {
				d.cache.versions[s] = v
			}
		}
		if strs == nil && (v.IsZero() || len(v.String()) != len(b)) {
			// From here on, strings: those parsed so far are their text.
			strs = make([]string, len(parsed), cap(parsed))
			for i, pv := range parsed {
				strs[i] = pv.String()
			}
			parsed = nil
		}
		if strs != nil {
			strs = append(strs, string(b))
		} else {
			parsed = append(parsed, v)
		}
		if d.consume(']') {
			return strs, parsed, true
		}
		if !d.consume(',') {
			return nil, nil, false
		}
	}
}

// items estimates the number of strings in the array starting at d.i,
// for capacity: the quotes up to the next ']', halved.
func (d *fastDecoder) items() int {
	rest := d.data[d.i:]
	if end := bytes.IndexByte(rest, ']'); end >= 0 {
		rest = rest[:end]
	}
	return bytes.Count(rest, []byte{'"'}) / 2
}

// strMap reads an object of strings with distinct keys (encoding/json
// merges repeated keys into a map, which is the fallback's business).
func (d *fastDecoder) strMap() (map[string]string, bool) {
	if !d.consume('{') {
		return nil, false
	}
	out := map[string]string{}
	if d.consume('}') {
		return out, true
	}
	for {
		k, ok := d.str()
		if !ok || !d.consume(':') {
			return nil, false
		}
		v, ok := d.str()
		if !ok {
			return nil, false
		}
		if _, dup := out[k]; dup {
			return nil, false
		}
		out[k] = v
		if d.consume('}') {
			return out, true
		}
		if !d.consume(',') {
			return nil, false
		}
	}
}
