package declcfg

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// This file decodes the blobs of the four known schemas into their types
// with encoding/json's (v1) rules, as operator-registry's fbcBuilder does
// with json.Unmarshal, but without reflection or a second validity scan:
// the input is always a canonical blob (canon.go), so it is valid, compact
// JSON whose strings carry only the escapes canon.go writes.
//
// The rules reproduced: object keys match field names case-insensitively
// (bytes.EqualFold), unknown keys are ignored, later keys overwrite
// earlier ones; null leaves strings and structs unchanged, sets slices
// and pointers to nil and RawMessage to "null"; an empty array gives an
// empty, non-nil slice; decoding into a slice that already holds elements
// (a key repeated in another case) reuses them; []byte is base64 (standard
// encoding); a value of the wrong JSON type is an error. RawMessage
// values (Property.Value) alias Meta.Blob instead of copying it.

// typeError is a JSON value of the wrong type for its Go field.
type typeError struct {
	kind, field string
}

func (e *typeError) Error() string {
	return fmt.Sprintf("json: cannot unmarshal %s into Go struct field %s", e.kind, e.field)
}

// creader reads a canonical blob.
type creader struct {
	b   []byte
	i   int
	err error
}

func (r *creader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// kind names the JSON type of the value at r.i as encoding/json does.
func (r *creader) kind() string {
	switch r.b[r.i] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// skip moves past the value at r.i.
func (r *creader) skip() {
	b := r.b
	depth := 0
	for r.i < len(b) {
		switch c := b[r.i]; c {
		case '"':
			r.i = endOfString(b, r.i)
			if depth == 0 {
				return
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				r.i++
				return
			}
		case ',', ':':
			if depth == 0 {
				return
			}
		default:
			if depth == 0 {
				// A number or literal: up to the next delimiter.
				for r.i < len(b) && b[r.i] != ',' && b[r.i] != '}' && b[r.i] != ']' {
					r.i++
				}
				return
			}
		}
		r.i++
	}
}

// endOfString returns the offset after the string starting at b[i].
func endOfString(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		// Count the backslashes before the quote.
		k := i - 1
		for k >= 0 && b[k] == '\\' {
			k--
		}
		if (i-k-1)%2 == 0 {
			return i + 1
		}
		i++
	}
}

// rawString returns the encoded content of the string at r.i and moves
// past it.
func (r *creader) rawString() []byte {
	end := endOfString(r.b, r.i)
	s := r.b[r.i+1 : end-1]
	r.i = end
	return s
}

// str decodes the string at r.i.
func (r *creader) str() string {
	s := r.rawString()
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s)
	}
	return decodeEncodedString(s)
}

// object calls member for each key of the object at r.i; member must
// consume the value. The value at r.i must be an object.
func (r *creader) object(member func(key []byte)) {
	r.i++ // {
	if r.b[r.i] == '}' {
		r.i++
		return
	}
	for r.err == nil {
		raw := r.rawString()
		key := raw
		if bytes.IndexByte(raw, '\\') >= 0 {
			key = []byte(decodeEncodedString(raw))
		}
		r.i++ // :
		member(key)
		if r.err != nil {
			return
		}
		if r.b[r.i] == ',' {
			r.i++
			continue
		}
		r.i++ // }
		return
	}
}

// isNull consumes a null.
func (r *creader) isNull() bool {
	if r.b[r.i] == 'n' {
		r.i += 4
		return true
	}
	return false
}

func (r *creader) expect(c byte, field string) bool {
	if r.b[r.i] == c {
		return true
	}
	r.fail(&typeError{r.kind(), field})
	r.skip()
	return false
}

// stringField decodes into a string field.
func (r *creader) stringField(dst *string, field string) {
	if r.isNull() {
		return
	}
	if r.expect('"', field) {
		*dst = r.str()
	}
}

// rawField decodes into a json.RawMessage: the value's bytes, aliased.
func (r *creader) rawField(dst *json.RawMessage) {
	start := r.i
	r.skip()
	*dst = r.b[start:r.i:r.i]
}

// bytesField decodes a base64 string into a []byte field.
func (r *creader) bytesField(dst *[]byte, field string) {
	if r.isNull() {
		*dst = nil
		return
	}
	if !r.expect('"', field) {
		return
	}
	s := r.rawString()
	if bytes.IndexByte(s, '\\') >= 0 {
		s = []byte(decodeEncodedString(s))
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, s)
	if err != nil {
		r.fail(err)
		return
	}
	*dst = b[:n]
}

// sliceField decodes an array into *dst with encoding/json's slice
// rules, elem decoding one element in place.
func sliceField[T any](r *creader, dst *[]T, field string, elem func(*T)) {
	if r.isNull() {
		*dst = nil
		return
	}
	if !r.expect('[', field) {
		return
	}
	r.i++
	s := *dst
	i := 0
	if r.b[r.i] == ']' {
		r.i++
	} else {
		for r.err == nil {
			if i >= cap(s) {
				var zero T
				s = append(s[:cap(s)], zero)
			}
			if i >= len(s) {
				s = s[:i+1]
			}
			elem(&s[i])
			i++
			if r.b[r.i] == ',' {
				r.i++
				continue
			}
			r.i++ // ]
			break
		}
	}
	if i < len(s) {
		s = s[:i]
	}
	if i == 0 {
		s = []T{}
	}
	*dst = s
}

// structField decodes an object into a struct field (null: unchanged).
func (r *creader) structField(field string, member func(key []byte)) {
	if r.isNull() {
		return
	}
	if r.expect('{', field) {
		r.object(member)
	}
}

func is(key []byte, name string) bool {
	if len(key) == len(name) && string(key) == name {
		return true
	}
	// A non-ASCII key can fold to an ASCII name (the Kelvin sign, the long s).
	if len(key) < len(name) || len(key) > len(name)*utf8.UTFMax {
		return false
	}
	return bytes.EqualFold(key, []byte(name))
}

func (r *creader) properties(dst *[]Property, field string) {
	sliceField(r, dst, field, func(p *Property) {
		r.structField(field, func(key []byte) {
			switch {
			case is(key, "type"):
				r.stringField(&p.Type, "Property.type")
			case is(key, "value"):
				r.rawField(&p.Value)
			default:
				r.skip()
			}
		})
	})
}

func decodePackage(blob []byte) (Package, error) {
	var p Package
	r := &creader{b: blob}
	r.object(func(key []byte) {
		switch {
		case is(key, "schema"):
			r.stringField(&p.Schema, "Package.schema")
		case is(key, "name"):
			r.stringField(&p.Name, "Package.name")
		case is(key, "defaultChannel"):
			r.stringField(&p.DefaultChannel, "Package.defaultChannel")
		case is(key, "icon"):
			if r.isNull() {
				p.Icon = nil
				return
			}
			if !r.expect('{', "Package.icon") {
				return
			}
			if p.Icon == nil {
				p.Icon = &Icon{}
			}
			r.object(func(key []byte) {
				switch {
				case is(key, "base64data"):
					r.bytesField(&p.Icon.Data, "Package.icon.base64data")
				case is(key, "mediatype"):
					r.stringField(&p.Icon.MediaType, "Package.icon.mediatype")
				default:
					r.skip()
				}
			})
		case is(key, "description"):
			r.stringField(&p.Description, "Package.description")
		case is(key, "properties"):
			r.properties(&p.Properties, "Package.properties")
		default:
			r.skip()
		}
	})
	return p, r.err
}

func decodeChannel(blob []byte) (Channel, error) {
	var ch Channel
	r := &creader{b: blob}
	r.object(func(key []byte) {
		switch {
		case is(key, "schema"):
			r.stringField(&ch.Schema, "Channel.schema")
		case is(key, "name"):
			r.stringField(&ch.Name, "Channel.name")
		case is(key, "package"):
			r.stringField(&ch.Package, "Channel.package")
		case is(key, "entries"):
			sliceField(r, &ch.Entries, "Channel.entries", func(e *ChannelEntry) {
				r.structField("Channel.entries", func(key []byte) {
					switch {
					case is(key, "name"):
						r.stringField(&e.Name, "Channel.entries.name")
					case is(key, "replaces"):
						r.stringField(&e.Replaces, "Channel.entries.replaces")
					case is(key, "skips"):
						sliceField(r, &e.Skips, "Channel.entries.skips", func(s *string) {
							r.stringField(s, "Channel.entries.skips")
						})
					case is(key, "skipRange"):
						r.stringField(&e.SkipRange, "Channel.entries.skipRange")
					default:
						r.skip()
					}
				})
			})
		case is(key, "properties"):
			r.properties(&ch.Properties, "Channel.properties")
		default:
			r.skip()
		}
	})
	return ch, r.err
}

func decodeBundle(blob []byte) (Bundle, error) {
	var b Bundle
	r := &creader{b: blob}
	r.object(func(key []byte) {
		switch {
		case is(key, "schema"):
			r.stringField(&b.Schema, "Bundle.schema")
		case is(key, "name"):
			r.stringField(&b.Name, "Bundle.name")
		case is(key, "package"):
			r.stringField(&b.Package, "Bundle.package")
		case is(key, "image"):
			r.stringField(&b.Image, "Bundle.image")
		case is(key, "properties"):
			r.properties(&b.Properties, "Bundle.properties")
		case is(key, "relatedImages"):
			sliceField(r, &b.RelatedImages, "Bundle.relatedImages", func(ri *RelatedImage) {
				r.structField("Bundle.relatedImages", func(key []byte) {
					switch {
					case is(key, "name"):
						r.stringField(&ri.Name, "Bundle.relatedImages.name")
					case is(key, "image"):
						r.stringField(&ri.Image, "Bundle.relatedImages.image")
					default:
						r.skip()
					}
				})
			})
		default:
			r.skip()
		}
	})
	return b, r.err
}

func decodeDeprecation(blob []byte) (Deprecation, error) {
	var d Deprecation
	r := &creader{b: blob}
	r.object(func(key []byte) {
		switch {
		case is(key, "schema"):
			r.stringField(&d.Schema, "Deprecation.schema")
		case is(key, "package"):
			r.stringField(&d.Package, "Deprecation.package")
		case is(key, "entries"):
			sliceField(r, &d.Entries, "Deprecation.entries", func(e *DeprecationEntry) {
				r.structField("Deprecation.entries", func(key []byte) {
					switch {
					case is(key, "reference"):
						r.structField("Deprecation.entries.reference", func(key []byte) {
							switch {
							case is(key, "schema"):
								r.stringField(&e.Reference.Schema, "Deprecation.entries.reference.schema")
							case is(key, "name"):
								r.stringField(&e.Reference.Name, "Deprecation.entries.reference.name")
							default:
								r.skip()
							}
						})
					case is(key, "message"):
						r.stringField(&e.Message, "Deprecation.entries.message")
					default:
						r.skip()
					}
				})
			})
		default:
			r.skip()
		}
	})
	return d, r.err
}

// bundleObjectData decodes an olm.bundle.object property value, {"data":
// base64}, as json.Unmarshal into struct{Data []byte} does.
func bundleObjectData(value []byte) ([]byte, error) {
	if len(value) == 0 {
		return nil, errors.New("unexpected end of JSON input")
	}
	var data []byte
	r := &creader{b: value}
	r.structField("BundleObject", func(key []byte) {
		if is(key, "data") {
			r.bytesField(&data, "BundleObject.data")
			return
		}
		r.skip()
	})
	return data, r.err
}
