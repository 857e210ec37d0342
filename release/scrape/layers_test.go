package scrape

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/klauspost/compress/zstd"

	"github.com/upgraph/upgraph/internal/zstdtest"
)

type entry struct {
	name string
	body string
	kind byte
}

func tarBytes(t *testing.T, entries ...entry) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		kind := e.kind
		if kind == 0 {
			kind = tar.TypeReg
		}
		h := &tar.Header{Name: e.name, Typeflag: kind, Mode: 0o644, Size: int64(len(e.body))}
		if kind != tar.TypeReg {
			h.Size, h.Linkname = 0, "elsewhere"
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if kind == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	return buf.Bytes()
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func zst(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := zstd.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func TestFindMetadata(t *testing.T) {
	const good = `{"kind":"cincinnati-metadata-v0","version":"4.1.0","previous":["4.0.0"],"metadata":{"url":"u"}}`
	for _, tc := range []struct {
		name    string
		blob    []byte
		found   bool
		version string
		reason  string
	}{
		{"gzip, after other files", gz(tarBytes(t, entry{name: "release-manifests/image-references", body: "{}"}, entry{name: MetadataPath, body: good})), true, "4.1.0", ""},
		{"zstd", zst(tarBytes(t, entry{name: MetadataPath, body: good})), true, "4.1.0", ""},
		{"uncompressed tar", tarBytes(t, entry{name: MetadataPath, body: good}), true, "4.1.0", ""},
		{"./ prefix", gz(tarBytes(t, entry{name: "./" + MetadataPath, body: good})), true, "4.1.0", ""},
		{"absolute path does not match", gz(tarBytes(t, entry{name: "/" + MetadataPath, body: good})), false, "", "no " + MetadataPath},
		{"symlink is not followed", gz(tarBytes(t, entry{name: MetadataPath, kind: tar.TypeSymlink})), false, "", "no " + MetadataPath},
		{"other directory", gz(tarBytes(t, entry{name: "x/" + MetadataPath, body: good})), false, "", "no " + MetadataPath},
		{"wrong kind", gz(tarBytes(t, entry{name: MetadataPath, body: `{"kind":"v1","version":"1.0.0"}`})), false, "", "kind"},
		{"bad previous", gz(tarBytes(t, entry{name: MetadataPath, body: `{"kind":"cincinnati-metadata-v0","version":"1.0.0","previous":["x"]}`})), false, "", "previous"},
		{"non-string metadata", gz(tarBytes(t, entry{name: MetadataPath, body: `{"kind":"cincinnati-metadata-v0","version":"1.0.0","metadata":{"a":1}}`})), false, "", "not a release-metadata"},
		{"keys are case-sensitive", gz(tarBytes(t, entry{name: MetadataPath, body: `{"kind":"cincinnati-metadata-v0","Version":"1.0.0"}`})), false, "", "version"},
		{"data after the object", gz(tarBytes(t, entry{name: MetadataPath, body: good + `{}`})), false, "", "data after"},
		{"not a tar", []byte("this is JSON, not a layer"), false, "", "not a valid tar"},
		{"gzip of garbage", gz([]byte("garbage")), false, "", "not a valid tar"},
		{"zstd window over the limit", zstdtest.Window(28, tarBytes(t, entry{name: MetadataPath, body: good})), false, "", "zstd frame needs a window of more than 134217728 bytes"},
		{"zstd single segment over the limit", zstdtest.Single(1<<30, tarBytes(t, entry{name: MetadataPath, body: good})), false, "", "zstd frame needs a window of more than 134217728 bytes"},
		{"zstd window at the limit", zstdtest.Window(27, tarBytes(t, entry{name: MetadataPath, body: good})), true, "4.1.0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, found, reason, err := findMetadata(static.NewLayer(tc.blob, types.OCILayer))
			if err != nil {
				t.Fatal(err)
			}
			if found != tc.found || doc.Version != tc.version || !bytes.Contains([]byte(reason), []byte(tc.reason)) {
				t.Errorf("found %v version %q reason %q; want %v %q reason containing %q", found, doc.Version, reason, tc.found, tc.version, tc.reason)
			}
		})
	}
}
