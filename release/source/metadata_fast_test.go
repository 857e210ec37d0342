package source

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// decodeStd is what parseMetadataDocument did before the fast path, and
// still does when it declines.
func decodeStd(data []byte) (MetadataDocument, error) {
	var doc MetadataDocument
	err := json.NewDecoder(bytes.NewReader(data)).Decode(&doc)
	return doc, err
}

func TestDecodeMetadataFast(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  string
		fast bool // whether the fast path takes it
	}{
		{"typical", `{"kind": "cincinnati-metadata-v0", "version": "4.1.0",
  "previous": ["4.1.0-rc.0", "4.1.0-rc.3"], "next": [],
  "metadata": {"description": "", "url": "https://access.redhat.com/errata/RHBA-2020:37663"},
  "payload": "quay.io/openshift-release-dev/ocp-release@sha256:54", "arch": "amd64", "manifestref": "sha256:54"}` + "\n", true},
		{"empty object", `{}`, true},
		{"empty lists and map", "\t{\r\n\"previous\":[ ],\"next\" : [] , \"metadata\":{ } }  ", true},
		{"escaped string", `{"version":"4.1.\u0030"}`, false},
		{"non-ASCII string", `{"metadata":{"url":"é"}}`, false},
		{"key in other case", `{"Version":"4.1.0"}`, false},
		{"unknown key", `{"version":"4.1.0","extra":1}`, false},
		{"repeated key", `{"version":"4.1.0","version":"4.1.1"}`, false},
		{"repeated metadata key", `{"metadata":{"a":"1","a":"2"}}`, false},
		{"null list", `{"previous":null}`, false},
		{"number", `{"version":4}`, false},
		{"trailing comma", `{"version":"4.1.0",}`, false},
		{"trailing comma in list", `{"previous":["4.1.0",]}`, false},
		{"missing comma", `{"version":"4.1.0" "arch":"amd64"}`, false},
		{"trailing data", `{"version":"4.1.0"} {}`, false},
		{"unterminated", `{"version":"4.1.0"`, false},
		{"not an object", `["4.1.0"]`, false},
		{"byte order mark", "\ufeff{}", false},
		{"empty", ``, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc MetadataDocument
			got := decodeMetadataFast([]byte(tc.doc), &doc)
			if got != tc.fast {
				t.Fatalf("fast path took it: %v, want %v", got, tc.fast)
			}
			if !got {
				return
			}
			want, err := decodeStd([]byte(tc.doc))
			if err != nil {
				t.Fatalf("fast path took a document encoding/json rejects: %v", err)
			}
			if !reflect.DeepEqual(doc, want) {
				t.Fatalf("fast path decoded\n%#v\nencoding/json\n%#v", doc, want)
			}
		})
	}
}

// FuzzMetadataFast checks that whatever the fast path takes, encoding/json
// accepts and decodes to the same document.
func FuzzMetadataFast(f *testing.F) {
	f.Add([]byte(`{"kind":"cincinnati-metadata-v0","version":"4.1.0","previous":["4.0.0"],"next":[],"metadata":{"url":"u"},"payload":"p@sha256:1","arch":"amd64"}`))
	f.Add([]byte(`{"metadata":{"a":"1","b":"2"}, "next":["x","y"]}`))
	f.Add([]byte(`{"version":"4.1.0" , "arch" :"s390x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var doc MetadataDocument
		if !decodeMetadataFast(data, &doc) {
			return
		}
		want, err := decodeStd(data)
		if err != nil {
			t.Fatalf("fast path took %q, which encoding/json rejects: %v", data, err)
		}
		if !reflect.DeepEqual(doc, want) {
			t.Fatalf("%q: fast path decoded\n%#v\nencoding/json\n%#v", data, doc, want)
		}
	})
}
