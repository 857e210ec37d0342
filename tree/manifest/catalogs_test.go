package manifest

import (
	"errors"
	"strings"
	"testing"
)

func catalogsManifest(cats ...Catalog) *Manifest {
	return &Manifest{Format: Format, Catalogs: cats, Files: map[string]File{}, Graphs: []Graph{}, Arches: []string{}, Channels: []string{}}
}

func catalog(name string, bundles int, pkgs ...string) Catalog {
	return Catalog{Name: name, Source: "dir:x", Kind: "dir", Path: "operators/" + name + "/catalog.json",
		Counts: CatalogCounts{Packages: len(pkgs), Bundles: bundles}, Packages: pkgs}
}

// TestCheckShrinkCatalogs: a dropped catalog is refused whatever the
// threshold; packages and bundles of a catalog count like channels and
// releases.
func TestCheckShrinkCatalogs(t *testing.T) {
	many := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	old := catalogsManifest(catalog("community", 100, many...), catalog("certified", 10, "x"))
	for _, tc := range []struct {
		name      string
		next      *Manifest
		threshold float64
		want      []string // nil: accepted
	}{
		{"same", catalogsManifest(catalog("community", 100, many...), catalog("certified", 10, "x")), 0.1, nil},
		{"grows", catalogsManifest(catalog("community", 120, append(many, "k")...), catalog("certified", 10, "x"), catalog("new", 1, "y")), 0.1, nil},
		{"one package of ten", catalogsManifest(catalog("community", 95, many[1:]...), catalog("certified", 10, "x")), 0.1, nil},
		{"catalog dropped", catalogsManifest(catalog("community", 100, many...)), 1,
			[]string{"catalogs dropped: certified (1 packages, 10 bundles)", "no architecture or catalog may go"}},
		{"most packages dropped", catalogsManifest(catalog("community", 100, "a", "b"), catalog("certified", 10, "x")), 0.1,
			[]string{"catalog community: packages 10 → 2, 8 dropped (80%): c, d, e, f, g, h, i, j", "a catalog's packages or bundles"}},
		{"bundles dropped", catalogsManifest(catalog("community", 50, many...), catalog("certified", 10, "x")), 0.1,
			[]string{"catalog community: bundles 100 → 50 (50% fewer)"}},
		{"bundles within a looser threshold", catalogsManifest(catalog("community", 50, many...), catalog("certified", 10, "x")), 0.6, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckShrink(old, tc.next, tc.threshold)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrShrink) {
				t.Fatalf("err = %v, want ErrShrink", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nlacks %q", err, w)
				}
			}
		})
	}
	// Release-only generations keep their message.
	rel := &Manifest{Counts: Counts{Releases: 100}}
	err := CheckShrink(rel, &Manifest{Counts: Counts{Releases: 10}}, 0.1)
	if err == nil || !strings.HasSuffix(err.Error(), "the threshold is 10% of releases, channels or per-version graphs, and no architecture may go") {
		t.Errorf("release shrink: %v", err)
	}
	// Releases dropped from a tree that had both are refused too.
	both := catalogsManifest(catalog("community", 100, many...))
	both.Inputs.Releases.Kind, both.Counts.Releases = "metadata", 100
	if err := CheckShrink(both, catalogsManifest(catalog("community", 100, many...)), 0.1); err == nil || !strings.Contains(err.Error(), "releases 100 → 0") {
		t.Errorf("releases dropped: %v", err)
	}
}

func TestCheckNotEmptyCatalogs(t *testing.T) {
	if err := CheckNotEmpty(catalogsManifest(catalog("community", 1, "a"))); err != nil {
		t.Errorf("catalogs alone: %v", err)
	}
	err := CheckNotEmpty(catalogsManifest(catalog("community", 1, "a"), catalog("empty", 0)))
	if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "no package in catalog empty") || strings.Contains(err.Error(), "no release") {
		t.Errorf("an empty catalog: %v", err)
	}
	// With releases, the releases must be there too.
	m := catalogsManifest(catalog("community", 1, "a"))
	m.Inputs.Releases.Kind = "metadata"
	if err := CheckNotEmpty(m); !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "no release, no channel, no per-version graph") {
		t.Errorf("releases without any: %v", err)
	}
	if err := CheckNotEmpty(&Manifest{}); !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "no release, no channel, no per-version graph") {
		t.Errorf("nothing: %v", err)
	}
}
