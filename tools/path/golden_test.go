package path

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/upgraph/upgraph/release/mirror"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// goldenCases run `upgraph path` queries on real data: the largest
// conformance fixture and the real graph-data snapshot (synthesised
// releases), each golden in text and JSON.
var goldenCases = []struct {
	name string
	real bool // the real graph-data tree, else the conformance one
	req  Request
	// onlyConditional: the target is reachable, but not through
	// unconditional edges alone.
	onlyConditional bool
}{
	{name: "conformance-conditional-one-hop", req: Request{From: "4.6.15", To: "4.7.4", Channel: "stable-4.7"}, onlyConditional: true},
	{name: "conformance-only-conditional", req: Request{From: "4.6.1", To: "4.7.4", Channel: "stable-4.7"}, onlyConditional: true},
	{name: "conformance-multi-minor", req: Request{From: "4.7.0", To: "4.8.20", Channel: "stable-4.8"}},
	{name: "conformance-multi-minor-via-eus", req: Request{From: "4.6.20", To: "4.8.20", Channel: "stable-4.8", ViaEUS: true}},
	{name: "conformance-no-path", req: Request{From: "4.6.15", To: "4.7.5", Channel: "stable-4.7"}},
	{name: "real-multi-minor", real: true, req: Request{From: "4.14.10", To: "4.16.54", Channel: "stable-4.16"}},
	{name: "real-only-conditional", real: true, req: Request{From: "4.14.10", To: "4.16.3", Channel: "stable-4.16"}, onlyConditional: true},
	{name: "real-via-eus", real: true, req: Request{From: "4.14.1", To: "4.16.3", Channel: "stable-4.16", ViaEUS: true}},
	{name: "real-no-path", real: true, req: Request{From: "4.16.3", To: "4.16.1", Channel: "stable-4.16"}},
	{name: "real-already-there", real: true, req: Request{From: "4.16.3", To: "4.16.3", Channel: "stable-4.16"}},
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			var dir string
			if tc.real {
				if testing.Short() {
					t.Skip("the real graph-data tree takes seconds to generate")
				}
				dir = realTreeDir(t)
			} else {
				dir = conformanceTreeDir(t)
			}
			s, err := mirror.OpenSource(t.Context(), dir, mirror.SourceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			req := tc.req
			req.Arch = "amd64"
			r, err := Find(t.Context(), s, req)
			if err != nil {
				t.Fatal(err)
			}
			var text, js bytes.Buffer
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if err := r.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+".text.golden", text.Bytes())
			golden(t, tc.name+".json.golden", js.Bytes())

			if tc.onlyConditional {
				req.UnconditionalOnly = true
				r, err := Find(t.Context(), s, req)
				if err != nil || r.Found || r.ConditionalHops != 0 {
					t.Errorf("unconditional only: found %v, err %v; want no path", r != nil && r.Found, err)
				}
			}
		})
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s is missing: run go test -update", file)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it); got:\n%s", file, got)
	}
}
