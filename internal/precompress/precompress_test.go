package precompress

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"
)

func TestGzipDeterministicHeader(t *testing.T) {
	data := []byte(strings.Repeat(`{"version":"4.16.0","payload":"quay.io/x"},`, 200))
	gz := Gzip(data)
	if !bytes.Equal(gz, Gzip(data)) {
		t.Fatal("two compressions of the same bytes differ")
	}
	// RFC 1952: magic, CM 8, FLG FCOMMENT (no name, no extra), MTIME 0,
	// XFL 2 (best compression), OS 255, the comment.
	want := append([]byte{0x1f, 0x8b, 8, 0x10, 0, 0, 0, 0, 2, 255}, "upgraph compress/gzip go"...)
	if !bytes.HasPrefix(gz, want) {
		t.Errorf("header %q, want %q", gz[:40], want)
	}
	if !Matches(gz, data) {
		t.Error("Matches: a copy does not match its file")
	}
	other := bytes.Replace(data, []byte("4.16.0"), []byte("4.16.1"), 1)
	if Matches(gz, other) || Matches(gz, data[1:]) || Matches(gz[:20], data) {
		t.Error("Matches: a copy matches another file")
	}
	foreign := bytes.Clone(gz)
	foreign[10+len("upgraph compress/gzip go")] ^= 1 // another Go version
	if Matches(foreign, data) {
		t.Error("Matches: a copy of another compressor matches")
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("round trip: %v, %d bytes of %d", err, len(got), len(data))
	}
	if len(gz) >= len(data)/4 {
		t.Errorf("%d bytes compressed to %d", len(data), len(gz))
	}
	empty := Gzip(nil)
	if zr, err := gzip.NewReader(bytes.NewReader(empty)); err != nil {
		t.Fatal(err)
	} else if b, err := io.ReadAll(zr); err != nil || len(b) != 0 {
		t.Fatalf("empty: %v %q", err, b)
	}
}

func TestWanted(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
		want bool
	}{
		{"graph/amd64/stable-4.16.json", 100000, true},
		{"graph/amd64/stable-4.16/4.16.1.json", 3000, true},
		{"graph/empty.json", 58, true},
		{"operators/cat/all.jsonl", 1 << 20, true},
		{"operators/cat/metas/p.jsonl", 1024, true},
		{"operators/cat/metas/q.jsonl", 1023, false},
		{"operators/cat/metas/empty.jsonl", 0, false},
		{"graph/amd64/stable-4.16.json.gz", 5000, false},
		{"index.json", 1 << 20, false},
		{"viewer/app.js", 50000, false},
		{"schema/graph.schema.json", 5000, false},
		{"signatures/sha256=ab/signature-1", 5000, false},
	} {
		if got := Wanted(tc.name, tc.size); got != tc.want {
			t.Errorf("Wanted(%q, %d) = %v, want %v", tc.name, tc.size, got, tc.want)
		}
	}
}
