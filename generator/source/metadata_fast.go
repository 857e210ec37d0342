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
	var seen [8]bool
	for {
		key, ok := d.str()
		if !ok || !d.consume(':') {
			return false
		}
		field := metadataField(key)
		if field < 0 || seen[field] {
			return false
		}
		seen[field] = true
		switch field {
		case 0:
			doc.Kind, ok = d.str()
		case 1:
			doc.Version, ok = d.str()
		case 2:
			doc.Previous, ok = d.strs()
		case 3:
			doc.Next, ok = d.strs()
		case 4:
			doc.Metadata, ok = d.strMap()
		case 5:
			doc.Payload, ok = d.str()
		case 6:
			doc.Arch, ok = d.str()
		case 7:
			doc.ManifestRef, ok = d.str()
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

// metadataField numbers MetadataDocument's JSON keys; -1 for any other.
func metadataField(key string) int {
	switch key {
	case "kind":
		return 0
	case "version":
		return 1
	case "previous":
		return 2
	case "next":
		return 3
	case "metadata":
		return 4
	case "payload":
		return 5
	case "arch":
		return 6
	case "manifestref":
		return 7
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
