package source

// decodeMetadataFast decodes the common shape of a release-metadata
// document without encoding/json, which spent more CPU on the 23 MB of a
// real-scale source (5,784 documents, 300k previous entries) than
// assembling the graph from them. It accepts only documents it decodes
// exactly as encoding/json does: one object whose keys are spelled exactly
// as MetadataDocument's tags, none repeated, values of the field's type
// (no nulls), strings of printable ASCII without escapes, and nothing but
// whitespace after the object. For anything else it returns false and the
// caller decodes with encoding/json, which also reports the errors.
func decodeMetadataFast(data []byte, doc *MetadataDocument) bool {
	d := fastDecoder{data: data}
	if !d.consume('{') {
		return false
	}
	if d.consume('}') {
		return d.end()
	}
	// Fields by metadataField's numbering: strings, then lists, then the map.
	strs := [...]*string{&doc.Kind, &doc.Version, &doc.Payload, &doc.Arch, &doc.ManifestRef}
	lists := [...]*[]string{&doc.Previous, &doc.Next}
	var seen [len(strs) + len(lists) + 1]bool
	for {
		key, ok := d.str()
		if !ok || !d.consume(':') {
			return false
		}
		f := metadataField(key)
		if f < 0 || seen[f] {
			return false
		}
		seen[f] = true
		switch {
		case f < len(strs):
			*strs[f], ok = d.str()
		case f < len(strs)+len(lists):
			*lists[f-len(strs)], ok = d.strs()
		default:
			doc.Metadata, ok = d.strMap()
		}
		if !ok {
			return false
		}
		if d.consume('}') {
			return d.end()
		}
		if !d.consume(',') {
			return false
		}
	}
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
	data []byte
	i    int
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
	if !d.consume('"') {
		return "", false
	}
	start := d.i
	for ; d.i < len(d.data); d.i++ {
		c := d.data[d.i]
		if c == '"' {
			s := string(d.data[start:d.i])
			d.i++
			return s, true
		}
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return "", false
		}
	}
	return "", false
}

// strs reads an array of strings.
func (d *fastDecoder) strs() ([]string, bool) {
	if !d.consume('[') {
		return nil, false
	}
	out := []string{}
	if d.consume(']') {
		return out, true
	}
	for {
		s, ok := d.str()
		if !ok {
			return nil, false
		}
		out = append(out, s)
		if d.consume(']') {
			return out, true
		}
		if !d.consume(',') {
			return nil, false
		}
	}
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
