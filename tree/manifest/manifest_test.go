package manifest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/internal/jsonw"
)

func TestGraphPath(t *testing.T) {
	for _, tc := range []struct{ arch, channel, want string }{
		{"amd64", "stable-4.16", "graph/amd64/stable-4.16.json"},
		{"multi", "candidate-4.17", "graph/multi/candidate-4.17.json"},
	} {
		if got := GraphPath(tc.arch, tc.channel); got != tc.want {
			t.Errorf("GraphPath(%q, %q) = %q, want %q", tc.arch, tc.channel, got, tc.want)
		}
	}
}

func sample() *Manifest {
	return &Manifest{
		Format:    Format,
		Generator: "upgraph test <dev>",
		Arches:    []string{"amd64"},
		Channels:  []string{"stable-4.16"},
		Graphs:    []Graph{{Channel: "stable-4.16", Arch: "amd64", Path: GraphPath("amd64", "stable-4.16"), Versions: []string{"4.16.0"}}},
		Files: map[string]File{
			"z.json": {SHA256: "00", Size: 1},
			"a.json": {SHA256: "ff", Size: 2},
		},
	}
}

func TestEncode(t *testing.T) {
	a, err := sample().Encode()
	if err != nil {
		t.Fatal(err)
	}
	b, err := sample().Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("Encode is not deterministic")
	}
	s := string(a)
	if !strings.HasSuffix(s, "}\n") {
		t.Errorf("Encode output does not end in a newline: %q", s[max(0, len(s)-5):])
	}
	if !strings.Contains(s, "upgraph test <dev>") {
		t.Errorf("Encode escaped HTML characters: %s", s)
	}
	if strings.Index(s, `"a.json"`) > strings.Index(s, `"z.json"`) {
		t.Errorf("file keys are not sorted: %s", s)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	data, err := sample().Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Errorf("Read/Encode round trip differs:\n%s\nwant\n%s", again, data)
	}

	for _, tc := range []struct {
		name, content, want string
	}{
		{"other format", `{"format": 2}`, "format 2"},
		{"invalid JSON", `{"format": `, FileName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			if err := os.WriteFile(filepath.Join(d, FileName), []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Read(d); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Read = %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := Read(t.TempDir()); err == nil {
		t.Error("Read of a directory without index.json succeeded")
	}
}

// TestSHA256s: the batch digests are SHA256's, in order, for more files
// than the hasher has lanes.
func TestSHA256s(t *testing.T) {
	var data [][]byte
	for n := range 40 {
		data = append(data, bytes.Repeat([]byte{byte(n)}, 37*n))
	}
	got := SHA256s(data)
	if len(got) != len(data) {
		t.Fatalf("%d digests for %d files", len(got), len(data))
	}
	for i, d := range data {
		if want := SHA256(d); got[i] != want {
			t.Errorf("file %d (%d bytes): %s, want %s", i, len(d), got[i], want)
		}
	}
}

// Encode writes the file table by hand; its bytes are encoding/json's.
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	for _, files := range []map[string]File{
		nil,
		{},
		{"a": {SHA256: "00", Size: 1}},
		{
			"graph/amd64/stable-4.16.json":        {SHA256: SHA256([]byte("x")), Size: 1 << 40},
			"graph/amd64/stable-4.16/4.16.1.json": {SHA256: "ab", Size: 0},
			`odd "quoted" \ name`:                 {Size: -1},
			"<html> & ünïcode\u2028\x01\x7f":      {SHA256: "<>", Size: 7},
			"":                                    {},
		},
	} {
		m := sample()
		m.Files = files
		got, err := m.Encode()
		if err != nil {
			t.Fatal(err)
		}
		want, err := jsonw.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("files %v:\nEncode  %s\njson    %s", files, got, want)
		}
	}
}

// TestEncodeFilesLarge: a file table large enough to be sorted and
// encoded in parts (encodeFiles) is encoding/json's, in any number of
// parts.
func TestEncodeFilesLarge(t *testing.T) {
	files := map[string]File{}
	for i := range 3*parallelFiles + 7 {
		name := fmt.Sprintf("graph/a%d/stable-4.%d/4.%d.%d.json", i%5, i%37, i%37, i)
		if i%1000 == 0 {
			name += ` "odd"`
		}
		files[name] = File{SHA256: SHA256([]byte(name)), Size: int64(i)}
	}
	want, err := jsonw.Marshal(files)
	if err != nil {
		t.Fatal(err)
	}
	want = bytes.TrimSuffix(want, []byte("\n"))
	for _, procs := range []int{1, 2, 3, 8} {
		prev := runtime.GOMAXPROCS(procs)
		got := encodeFiles(files)
		runtime.GOMAXPROCS(prev)
		if !bytes.Equal(got, want) {
			t.Errorf("GOMAXPROCS %d: the file table is not encoding/json's", procs)
		}
	}
}

func BenchmarkEncodeFiles(b *testing.B) {
	files := map[string]File{}
	for i := range 78643 {
		name := fmt.Sprintf("graph/a%d/stable-4.%d/4.%d.%d.json", i%5, i%37, i%37, i)
		files[name] = File{SHA256: SHA256([]byte(name)), Size: int64(i)}
	}
	for b.Loop() {
		encodeFiles(files)
	}
}
