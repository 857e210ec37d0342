package dot

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
)

func loadCatalog(t *testing.T, dir string) *model.Catalog {
	t.Helper()
	cfg, err := declcfg.Load(context.Background(), os.DirFS(dir), ".")
	if err != nil {
		t.Fatal(err)
	}
	return model.Convert(cfg)
}

// TestCatalogGolden draws small packages: every edge type (a skipRange
// with its label, a skip, a replaces from outside the catalog), the head,
// deprecations and bundles OLM v0 skips, per channel and across channels.
// Review testdata/*.dot.golden after -update.
func TestCatalogGolden(t *testing.T) {
	for _, tc := range []struct{ name, fixture, pkg, channel string }{
		{"etcd-stable", "spec-cross-channel-edges", "etcd", "stable"},
		{"etcd", "spec-cross-channel-edges", "etcd", ""},
		{"cockroachdb-stable-5.x", "server-cockroachdb-deprecations", "cockroachdb", "stable-5.x"},
		{"anakin", "render-graph-anakin-boba-fett", "anakin", ""},
		{"skiprange", "model-skiprange", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := loadCatalog(t, filepath.Join("../../catalog/testdata/oracle", tc.fixture))
			p := m.Packages[0]
			if tc.pkg != "" {
				p = m.Package(tc.pkg)
			}
			var b bytes.Buffer
			var err error
			if tc.channel == "" {
				err = WritePackage(&b, p.Graph())
			} else {
				for _, ch := range p.Channels {
					if ch.Name == tc.channel {
						err = WriteChannel(&b, ch.Graph())
					}
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "catalog-"+tc.name+".dot.golden"), b.Bytes())
		})
	}
}

func checkGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update to rewrite):\n%s", golden, got)
	}
}

// TestCatalogDotParses draws every package and channel of the shared
// catalog, and runs Graphviz (when installed) on those small enough to
// lay out quickly.
func TestCatalogDotParses(t *testing.T) {
	const shared = "../../../shared/catalogs/community-operators-prod-v4.21/configs"
	if _, err := os.Stat(shared); err != nil {
		t.Fatalf("shared catalog not available: %v", err)
	}
	m := loadCatalog(t, shared)
	dotBin, err := exec.LookPath("dot")
	n := 0
	for _, p := range m.Packages {
		var all bytes.Buffer
		if err := WritePackage(&all, p.Graph()); err != nil {
			t.Fatal(err)
		}
		for _, ch := range p.Channels {
			if err := WriteChannel(&all, ch.Graph()); err != nil {
				t.Fatal(err)
			}
		}
		edges := strings.Count(all.String(), " -> ")
		n += edges
		if err != nil || edges > 60 {
			continue
		}
		cmd := exec.Command(dotBin, "-Tcanon")
		cmd.Stdin = &all
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: dot: %v\n%s", p.Name, err, out)
		}
	}
	if n == 0 {
		t.Error("no edges drawn")
	}
}
