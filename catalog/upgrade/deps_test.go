package upgrade

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/model"
)

// TestFindV0InSet: OLM v0 with dependencies (issue 25) over a catalog
// set: a hop lists its dependency's pick from another catalog and the
// provider it installs; without a provider the install is held
// (unsatisfied-dependency, naming the catalogs); a dependency OLM v0
// cannot read is invalid-dependency; the JSON carries the same.
func TestFindV0InSet(t *testing.T) {
	refused := load(t, filepath.Join(fixtures, "refused"))
	certs := load(t, filepath.Join(fixtures, "certs"))
	withCerts := model.NewV0Set([]model.V0CatalogMember{{Name: "a", Catalog: refused}, {Name: "certs", Priority: -5, Catalog: certs}})
	alone := model.NewV0Set([]model.V0CatalogMember{{Name: "a", Catalog: refused}})

	r, err := FindV0InSet(withCerts, "a", Query{Package: "needy", From: "1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Found || len(r.Hops) != 2 || r.Semantics != model.SemanticsV0Set || r.Catalog != "a" {
		t.Fatalf("%+v", r)
	}
	h := r.Hops[1]
	want := model.V0Pick{Catalog: "certs", Package: "cert-manager", Channel: "stable", Bundle: "cert-manager.v1.1.0", Version: "1.1.0"}
	if len(h.Dependencies) != 1 || h.Dependencies[0].Pick == nil || *h.Dependencies[0].Pick != want || len(h.Providers) != 1 || h.Providers[0].RequiredBy != "needy.v2.0.0" {
		t.Errorf("hop 2: %+v", h)
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hops []struct {
			Dependencies []struct {
				Pick struct{ Catalog, Bundle string }
			}
			Providers []struct{ Bundle, RequiredBy string }
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || len(doc.Hops) != 2 || len(doc.Hops[1].Dependencies) != 1 ||
		doc.Hops[1].Dependencies[0].Pick.Catalog != "certs" || doc.Hops[1].Providers[0].RequiredBy != "needy.v2.0.0" || len(doc.Hops[0].Dependencies) != 0 {
		t.Errorf("JSON %v: %s", err, buf.String())
	}
	buf.Reset()
	if err := r.WriteText(&buf); err != nil || !strings.Contains(buf.String(), "installed from catalog a, dependencies resolved across the catalog set") ||
		!strings.Contains(buf.String(), "installs cert-manager.v1.1.0 (1.1.0) from catalog certs, channel stable, for needy.v2.0.0") {
		t.Errorf("text %v:\n%s", err, buf.String())
	}

	r, err = FindV0InSet(alone, "a", Query{Package: "needy", From: "1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Found || r.Reason == nil || r.Reason.Code != ReasonUnsatisfiedDependency || r.StopsAt == nil || r.StopsAt.Name != "needy.v1.1.0" ||
		!strings.Contains(r.Reason.Message, "no bundle in catalogs a provides an operator with package: cert-manager") ||
		strings.Join(r.Reason.Bundles, " ") != "needy.v1.1.0 needy.v2.0.0" {
		t.Errorf("held: %+v reason %+v", r, r.Reason)
	}
	buf.Reset()
	if err := r.WriteText(&buf); err != nil || strings.Contains(buf.String(), "catalog set") {
		t.Errorf("a one-catalog set is not worded as a set: %v\n%s", err, buf.String())
	}

	if _, err := FindV0InSet(alone, "b", Query{Package: "needy", From: "1.0.0"}); err == nil || !strings.Contains(err.Error(), `the catalog set has no catalog "b" (it has a)`) {
		t.Errorf("unknown catalog: %v", err)
	}
	if _, err := FindV0InSet(alone, "a", Query{Package: "nope", From: "1.0.0"}); err == nil || !strings.Contains(err.Error(), `catalog a has no package "nope"`) {
		t.Errorf("unknown package: %v", err)
	}
}

// TestFindV0InSetInvalidDependency: a bundle on the way whose dependency
// OLM v0 cannot read stops the path with invalid-dependency, naming the
// bundle and the property.
func TestFindV0InSetInvalidDependency(t *testing.T) {
	// The refused fixture with needy.v2.0.0's range made unreadable.
	data, err := os.ReadFile(filepath.Join(fixtures, "refused", "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	text := strings.Replace(string(data), "versionRange: '>=1.0.0'", "versionRange: 'not-a-range'", 1)
	if err := os.WriteFile(filepath.Join(dir, "catalog.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := load(t, dir)
	r, err := FindV0InSet(model.NewV0Set([]model.V0CatalogMember{{Name: "a", Catalog: bad}}), "a", Query{Package: "needy", From: "1.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Found || r.Reason == nil || r.Reason.Code != ReasonInvalidDependency ||
		!strings.Contains(r.Reason.Message, `bundle needy.v2.0.0: property[1] of type "olm.package.required": OLM v0 cannot resolve it: Could not get version from string: "not-a-range"`) {
		t.Errorf("%+v %+v", r, r.Reason)
	}
}
