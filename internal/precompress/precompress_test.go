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
	// RFC 1952: magic, CM 8, FLG 0 (no name, comment, extra), MTIME 0,
	// XFL 2 (best compression), OS 255.
	want := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255}
	if !bytes.Equal(gz[:10], want) {
		t.Errorf("header % x, want % x", gz[:10], want)
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
		want bool
	}{
		{"graph/amd64/stable-4.16.json", true},
		{"graph/amd64/stable-4.16/4.16.1.json", true},
		{"graph/empty.json", true},
		{"operators/cat/all.jsonl", true},
		{"operators/cat/metas/empty.jsonl", true},
		{"graph/amd64/stable-4.16.json.gz", false},
		{"index.json", false},
		{"viewer/app.js", false},
		{"schema/graph.schema.json", false},
		{"signatures/sha256=ab/signature-1", false},
	} {
		if got := Wanted(tc.name); got != tc.want {
			t.Errorf("Wanted(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
	if p, ok := Plain("graph/empty.json.gz"); !ok || p != "graph/empty.json" {
		t.Errorf("Plain = %q %v", p, ok)
	}
	if _, ok := Plain("index.json.gz"); ok {
		t.Error("index.json.gz is not a copy generate writes")
	}
}
