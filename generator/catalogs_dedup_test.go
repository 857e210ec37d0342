package generator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/catalog/views/viewstest"
)

// TestRenderCatalogDedup: catalog files of the same bytes are one file
// (hard links), index.json counts contents; a regeneration carries over
// unchanged files with their modification time, and a file whose bytes
// changed to those of an unchanged file gets a new modification time, not
// that file's older one (its Last-Modified must not go back).
func TestRenderCatalogDedup(t *testing.T) {
	const pkg = `{"schema":"olm.package","name":"p","defaultChannel":"stable"}
`
	bundle := func(v string) string {
		return `{"schema":"olm.bundle","package":"p","name":"p.v` + v + `","image":"example.com/p:v` + v +
			`","properties":[{"type":"olm.package","value":{"packageName":"p","version":"` + v + `.0.0"}}]}
`
	}
	two := pkg + `{"schema":"olm.channel","package":"p","name":"stable","entries":[{"name":"p.v1"},{"name":"p.v2","replaces":"p.v1"}]}
` + bundle("1") + bundle("2")
	one := pkg + `{"schema":"olm.channel","package":"p","name":"stable","entries":[{"name":"p.v1"}]}
` + bundle("1")
	src, out := t.TempDir(), filepath.Join(t.TempDir(), "tree")
	write := func(fbc string) {
		if err := os.WriteFile(filepath.Join(src, "catalog.json"), []byte(fbc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat := func(rel string) string { return filepath.Join(out, "operators", "c", filepath.FromSlash(rel)) }
	const (
		unchanged = "metas/name/p.v1.jsonl"                        // p.v1's line, in both
		changed   = "metas/package/p/olm.bundle.jsonl"             // p.v1 and p.v2, then p.v1's line alone
		same      = "metas/package/p/schema/olm.bundle/p.v1.jsonl" // p.v1's line, in both
	)

	write(two)
	m := render(t, nil, out, viewstest.Load(t, "c", "dir:"+src, false))
	a, err := os.Stat(cat(unchanged))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.Stat(cat(same))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(a, b) {
		t.Errorf("%s and %s hold the same bytes and are two files", unchanged, same)
	}
	if m.Counts.DistinctFiles >= m.Counts.Files-1 || m.Counts.DistinctBytes >= m.Counts.Bytes {
		t.Errorf("counts %+v: no content counted once", m.Counts)
	}
	// Every file of the first generation is from long ago.
	past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			err = os.Chtimes(p, past, past)
		}
		return err
	})

	write(one)
	start := time.Now().Add(-2 * time.Second)
	m2 := render(t, nil, out, viewstest.Load(t, "c", "dir:"+src, false))
	for rel, wantOld := range map[string]bool{unchanged: true, same: true, changed: false} {
		st, err := os.Stat(cat(rel))
		if err != nil {
			t.Fatal(err)
		}
		if old := st.ModTime().Equal(past); old != wantOld || !old && st.ModTime().Before(start) {
			t.Errorf("%s: modified %s, want the first generation's: %v", rel, st.ModTime(), wantOld)
		}
	}
	data, err := os.ReadFile(cat(changed))
	if err != nil || strings.Count(string(data), "\n") != 1 || m2.Files["operators/c/"+changed].SHA256 != m2.Files["operators/c/"+unchanged].SHA256 {
		t.Errorf("%s: %q, %v; want p.v1's line alone", changed, data, err)
	}
}
