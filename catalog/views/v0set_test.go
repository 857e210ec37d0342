package views

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/source"
	"github.com/upgraph/upgraph/schema"
)

// rawCatalog is a catalog read from JSON blobs.
func rawCatalog(t *testing.T, name string, priority int32, blobs ...string) *Catalog {
	t.Helper()
	cfg, err := declcfg.LoadReader(context.Background(), strings.NewReader(strings.Join(blobs, "\n")), name+".json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(name, "file:"+name+".json", source.Info{Kind: source.KindFile, Reference: name + ".json"}, cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	c.Priority = priority
	return c
}

// TestRenderSetV0Dependencies (issue 25): in a tree with a catalog set,
// the next/ files answer OLM v0 with dependencies over the set: a hop
// lists each dependency with the bundle OLM v0 picks for it (another
// catalog's, the default channel first) and the providers it installs; a
// candidate whose dependency nothing provides is passed over and the
// Subscription is held. Every file is valid against its schema.
func TestRenderSetV0Dependencies(t *testing.T) {
	apps := rawCatalog(t, "apps", 0,
		`{"schema":"olm.package","name":"op","defaultChannel":"stable"}`,
		`{"schema":"olm.channel","package":"op","name":"stable","entries":[{"name":"op.v1.0.0"},{"name":"op.v1.1.0","replaces":"op.v1.0.0"},{"name":"op.v1.2.0","replaces":"op.v1.1.0"}]}`,
		`{"schema":"olm.bundle","package":"op","name":"op.v1.0.0","image":"r.example.com/op:1.0.0","properties":[{"type":"olm.package","value":{"packageName":"op","version":"1.0.0"}}]}`,
		`{"schema":"olm.bundle","package":"op","name":"op.v1.1.0","image":"r.example.com/op:1.1.0","properties":[{"type":"olm.package","value":{"packageName":"op","version":"1.1.0"}},{"type":"olm.package.required","value":{"packageName":"cert-manager","versionRange":">=1.0.0"}}]}`,
		`{"schema":"olm.bundle","package":"op","name":"op.v1.2.0","image":"r.example.com/op:1.2.0","properties":[{"type":"olm.package","value":{"packageName":"op","version":"1.2.0"}},{"type":"olm.gvk.required","value":{"group":"x.io","version":"v1","kind":"Missing"}}]}`,
	)
	certs := rawCatalog(t, "certs", -5,
		`{"schema":"olm.package","name":"cert-manager","defaultChannel":"stable"}`,
		`{"schema":"olm.channel","package":"cert-manager","name":"stable","entries":[{"name":"cert-manager.v1.0.0"},{"name":"cert-manager.v1.1.0","replaces":"cert-manager.v1.0.0"}]}`,
		`{"schema":"olm.channel","package":"cert-manager","name":"candidate","entries":[{"name":"cert-manager.v1.2.0"}]}`,
		`{"schema":"olm.bundle","package":"cert-manager","name":"cert-manager.v1.0.0","image":"r.example.com/cm:1.0.0","properties":[{"type":"olm.package","value":{"packageName":"cert-manager","version":"1.0.0"}}]}`,
		`{"schema":"olm.bundle","package":"cert-manager","name":"cert-manager.v1.1.0","image":"r.example.com/cm:1.1.0","properties":[{"type":"olm.package","value":{"packageName":"cert-manager","version":"1.1.0"}}]}`,
		`{"schema":"olm.bundle","package":"cert-manager","name":"cert-manager.v1.2.0","image":"r.example.com/cm:1.2.0","properties":[{"type":"olm.package","value":{"packageName":"cert-manager","version":"1.2.0"}}]}`,
	)
	apps.Peers, certs.Peers = []*Catalog{certs}, []*Catalog{apps}
	files := render(t, apps, 2)
	for p, data := range files {
		if k := kindOf("apps", p); k != "" {
			if ps, err := schema.Validate(k, data); err != nil || len(ps) > 0 {
				t.Errorf("%s: %v %v", p, err, ps)
			}
		}
	}
	var v model.InstalledView
	if err := json.Unmarshal(files["operators/apps/"+NextPath("op", "stable", "op.v1.0.0")], &v); err != nil {
		t.Fatal(err)
	}
	r := v.OLMV0
	if r.Semantics != model.SemanticsV0Set || len(r.PathToHead) != 1 || r.Next == nil || r.Next.Name != "op.v1.1.0" || r.ReachesHead {
		t.Fatalf("olmV0: %+v", r)
	}
	h := r.PathToHead[0]
	want := &model.V0Pick{Catalog: "certs", Package: "cert-manager", Channel: "stable", Bundle: "cert-manager.v1.1.0", Version: "1.1.0"}
	if len(h.Dependencies) != 1 || h.Dependencies[0].Pick == nil || *h.Dependencies[0].Pick != *want ||
		h.Dependencies[0].Text != "with package: cert-manager and with version in range: >=1.0.0" || h.Dependencies[0].Property != 1 {
		t.Errorf("hop dependencies %+v, want one picking %+v", h.Dependencies, want)
	}
	if len(h.Providers) != 1 || h.Providers[0].V0Pick != *want || h.Providers[0].RequiredBy != "op.v1.1.0" {
		t.Errorf("hop providers %+v", h.Providers)
	}
	held := r.Held
	if held == nil || held.At != "op.v1.1.0" || held.Reason != model.ReasonUnsatisfiedDependency || len(held.PassedOver) != 1 {
		t.Fatalf("held %+v", held)
	}
	po := held.PassedOver[0]
	if po.Bundle != "op.v1.2.0" || len(po.Dependencies) != 1 || po.Dependencies[0].Reason != model.ReasonNoProvider ||
		po.Dependencies[0].Message != "no bundle in catalogs apps, certs provides an operator providing an API with group: x.io, version: v1, kind: Missing" {
		t.Errorf("passed over %+v", po)
	}
	// A package without dependencies keeps the graph-only answer under
	// the new label.
	var cv model.InstalledView
	certsFiles := render(t, certs, 1)
	if err := json.Unmarshal(certsFiles["operators/certs/"+NextPath("cert-manager", "stable", "cert-manager.v1.0.0")], &cv); err != nil {
		t.Fatal(err)
	}
	if cv.OLMV0.Semantics != model.SemanticsV0Set || cv.OLMV0.Next == nil || cv.OLMV0.Next.Name != "cert-manager.v1.1.0" {
		t.Errorf("cert-manager olmV0 %+v", cv.OLMV0)
	}
}
