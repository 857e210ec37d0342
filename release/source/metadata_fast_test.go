package source

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/upgraph/upgraph/tree/version"
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
		{"versions", `{"previous":["4.1.0"," 4.1.0","4.1.0 ","4.1.0+amd64","4.1.0"],"next":["4.2.0-rc.1"]}`, true},
		{"a version that does not parse", `{"previous":["4.1.0","4.1","4.1.0"],"next":["x"]}`, true},
		{"versions repeated with spaces", `{"previous":["4.1.0", "4.1.0 ", "4.1.0"]}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc MetadataDocument
			lists, got := decodeMetadataFast([]byte(tc.doc), &doc, newDecodeCache())
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
			doc = withListTexts(t, doc, lists)
			if !reflect.DeepEqual(doc, want) {
				t.Fatalf("fast path decoded\n%#v\nencoding/json\n%#v", doc, want)
			}
		})
	}
}

// withListTexts returns doc with the lists decodeMetadataFast parsed
// instead of setting them, as texts: each must be set one way, and a list
// it parsed only versions that parse, whose text is the string.
func withListTexts(t *testing.T, doc MetadataDocument, lists parsedLists) MetadataDocument {
	t.Helper()
	for _, l := range []struct {
		name   string
		strs   *[]string
		parsed []version.Version
	}{{"previous", &doc.Previous, lists.previous}, {"next", &doc.Next, lists.next}} {
		if l.parsed == nil {
			// Left as strings only for a string that is not a version's text.
			if *l.strs != nil && !slices.ContainsFunc(*l.strs, func(s string) bool {
				v, err := version.Parse(s)
				return err != nil || v.String() != s
			}) {
				t.Errorf("%s: %q not parsed", l.name, *l.strs)
			}
			continue
		}
		if *l.strs != nil {
			t.Fatalf("%s: both parsed %v and set %q", l.name, l.parsed, *l.strs)
		}
		*l.strs = []string{}
		for _, v := range l.parsed {
			*l.strs = append(*l.strs, v.String())
		}
	}
	return doc
}

// FuzzMetadataFast checks that whatever the fast path takes, encoding/json
// accepts and decodes to the same document.
func FuzzMetadataFast(f *testing.F) {
	f.Add([]byte(`{"kind":"cincinnati-metadata-v0","version":"4.1.0","previous":["4.0.0"],"next":[],"metadata":{"url":"u"},"payload":"p@sha256:1","arch":"amd64"}`))
	f.Add([]byte(`{"metadata":{"a":"1","b":"2"}, "next":["x","y"]}`))
	f.Add([]byte(`{"version":"4.1.0" , "arch" :"s390x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var doc MetadataDocument
		cache := newDecodeCache()
		lists, ok := decodeMetadataFast(data, &doc, cache)
		if !ok {
			return
		}
		want, err := decodeStd(data)
		if err != nil {
			t.Fatalf("fast path took %q, which encoding/json rejects: %v", data, err)
		}
		doc = withListTexts(t, doc, lists)
		if !reflect.DeepEqual(doc, want) {
			t.Fatalf("%q: fast path decoded\n%#v\nencoding/json\n%#v", data, doc, want)
		}
		// Again with the cache of the first: the same.
		var again MetadataDocument
		againLists, ok := decodeMetadataFast(data, &again, cache)
		if !ok || !reflect.DeepEqual(withListTexts(t, again, againLists), doc) {
			t.Fatalf("%q: decoded again with the cache: %v\n%#v\nfirst\n%#v", data, ok, again, doc)
		}
	})
}

// TestParseMetadataDocumentFastEqualsSlow: a document the fast path takes
// becomes the release the encoding/json path makes of it (parsed lists
// and the document's own metadata map used, not remade), and so does one
// whose list has a version that does not parse (the same error).
func TestParseMetadataDocumentFastEqualsSlow(t *testing.T) {
	docs := []string{
		`{"kind":"cincinnati-metadata-v0","version":"4.1.0","previous":["4.0.0"," 4.0.1"],"next":["4.1.1"],"metadata":{"url":"u","io.openshift.upgrades.graph.release.arch":"x"},"payload":"p@sha256:1","arch":"amd64"}`,
		`{"kind":"cincinnati-metadata-v0","version":"4.1.0","payload":"p","arch":"arm64","manifestref":"sha256:2"}`,
		`{"kind":"cincinnati-metadata-v0","version":"4.1.0","metadata":{"release.openshift.io/architecture":"multi"},"payload":"p@sha256:3","arch":"amd64"}`,
		`{"kind":"cincinnati-metadata-v0","version":"4.1.0","previous":["4.0.0","4.0"],"payload":"p","arch":"amd64"}`,
		`{"kind":"cincinnati-metadata-v0","version":"4.1.0","next":["4.2.0","x"],"payload":"p","arch":"amd64"}`,
		// The same lists again, after others: the cache's last lists.
		`{"kind":"cincinnati-metadata-v0","version":"4.1.0","previous":["4.0.0"," 4.0.1"],"next":["4.1.1"],"payload":"p","arch":"arm64"}`,
		`{"kind":"cincinnati-metadata-v0","version":"4.1.0","previous":["4.0.0","4.0.2"],"next":["4.1.1"],"payload":"p","arch":"arm64"}`,
		`{"kind":"cincinnati-metadata-v0","version":"4.1.0","previous":["4.0.0","4.0.2"],"next":["4.1.1"],"payload":"p","arch":"s390x"}`,
		`{"kind":"cincinnati-metadata-v0","version":"4.1.0","previous":["4.0.0","4.0.2"],"next":["4.1.1","x"],"payload":"p","arch":"s390x"}`,
		`{"kind":"cincinnati-metadata-v0","version":"4.1.0","previous":["4.0.0","4.0.2"], "next":["4.1.1"],"payload":"p","arch":"s390x"}`,
		`{"kind":"cincinnati-metadata-v0","version":"4.1.0","next":["4.0.0","4.0.2"],"previous":["4.1.1"],"payload":"p","arch":"s390x"}`,
	}
	shared := newDecodeCache() // as a worker's, across documents
	for _, doc := range docs {
		got, gotKeep, gotErr := parseMetadataDocument("d.json", []byte(doc), shared)
		std, err := decodeStd([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		fail := func(field, format string, args ...any) error {
			return fmt.Errorf("d.json:%d: %s: %s", fieldLine([]byte(doc), field), field, fmt.Sprintf(format, args...))
		}
		want, wantKeep, wantErr := std.release("d.json", fail, versionCache{}, releaseInput{})
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%s: error %v, want %v", doc, gotErr, wantErr)
			continue
		}
		if gotErr != nil {
			continue
		}
		if gotKeep != wantKeep || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v %#v, want %v %#v", doc, gotKeep, got, wantKeep, want)
		}
	}
}
