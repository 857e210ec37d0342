package airgap

import (
	"bytes"
	"testing"

	"github.com/upgraph/upgraph/tree/bundle"
	"github.com/upgraph/upgraph/tree/manifest"
)

func TestResultWriteText(t *testing.T) {
	m := &manifest.Manifest{}
	m.Counts.Files, m.Counts.Graphs = 12, 4
	cat := CatalogResult{Name: "ops", Packages: 2, Channels: 3, Bundles: 1, Images: 5}
	for _, tc := range []struct {
		name string
		r    Result
		want string
	}{
		{"tree", Result{Manifest: m}, "wrote 12 files (4 channel × arch graphs) to out\n"},
		{"tree with a catalog", Result{Manifest: m, Catalogs: []CatalogResult{cat}},
			"wrote 12 files (4 channel × arch graphs; catalog ops: 2 packages, 3 channels, 1 bundle, 5 images rewritten) to out\n"},
		{"bundle", Result{Manifest: m, Bundle: &bundle.Written{Path: "b.tar.gz", Size: 99, SHA256: "abc"}},
			"wrote b.tar.gz: 99 bytes, sha256 abc (12 files, 4 channel × arch graphs)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.r.WriteText(&b, "out"); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("WriteText = %q, want %q", b.String(), tc.want)
			}
		})
	}
}
