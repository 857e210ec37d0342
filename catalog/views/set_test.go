package views

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/source"
	"github.com/upgraph/upgraph/schema"
)

// setCatalog is a catalog of package "op", channel "stable" with
// 1.0.0 and the given later versions replacing each other; extra
// properties per version.
func setCatalog(t *testing.T, name string, priority int32, versions []string, props map[string]string) *Catalog {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"schema":"olm.package","name":"op","defaultChannel":"stable"}` + "\n")
	entries, prev := []string{}, ""
	for _, v := range versions {
		e := fmt.Sprintf(`{"name":"op.v%s"`, v)
		if prev != "" {
			e += fmt.Sprintf(`,"replaces":"op.v%s"`, prev)
		}
		entries = append(entries, e+"}")
		prev = v
	}
	fmt.Fprintf(&b, `{"schema":"olm.channel","package":"op","name":"stable","entries":[%s]}`+"\n", strings.Join(entries, ","))
	for _, v := range versions {
		extra := ""
		if p := props[v]; p != "" {
			extra = "," + p
		}
		fmt.Fprintf(&b, `{"schema":"olm.bundle","package":"op","name":"op.v%s","image":"registry.example.com/op/bundle:v%s","properties":[{"type":"olm.package","value":{"packageName":"op","version":"%s"}}%s]}`+"\n", v, v, v, extra)
	}
	cfg, err := declcfg.LoadReader(context.Background(), strings.NewReader(b.String()), name+".json")
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

// TestRenderSet: a package in several catalogs of the tree gets OLM v1's
// answer across them in its next/ files (the winner named, one line per
// catalog), a refused pick its refusal; catalog.json records the
// priority; every file is valid against its schema.
func TestRenderSet(t *testing.T) {
	const dep = `{"type":"olm.package.required","value":{"packageName":"cert-manager","versionRange":">=1.0.0"}}`
	for _, tc := range []struct {
		name                  string
		a, b                  *Catalog
		wantCatalog, wantPick string
		wantRefused, wantErr  string
	}{
		{"the higher priority wins though its version is lower",
			setCatalog(t, "a", 10, []string{"1.0.0", "1.1.0"}, nil), setCatalog(t, "b", 0, []string{"1.0.0", "2.0.0"}, nil),
			"a", "op.v1.1.0", "", ""},
		{"a tie is an error naming the catalogs",
			setCatalog(t, "a", 0, []string{"1.0.0", "1.1.0"}, nil), setCatalog(t, "b", 0, []string{"1.0.0", "2.0.0"}, nil),
			"", "", "", `error upgrading from currently installed version "1.0.0": found bundles for package "op" in channels [stable] in multiple catalogs with the same priority [a b]`},
		{"the winner declares a dependency: refused, no fallback",
			setCatalog(t, "a", 0, []string{"1.0.0", "1.1.0"}, nil), setCatalog(t, "b", 5, []string{"1.0.0", "2.0.0"}, map[string]string{"2.0.0": dep}),
			"b", "", "op.v2.0.0", `validating bundle "op.v2.0.0": bundle "op.v2.0.0" has a dependency declared via property "olm.package.required" which is currently not supported`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.a.Peers, tc.b.Peers = []*Catalog{tc.b}, []*Catalog{tc.a}
			files := render(t, tc.a, 2)
			for p, data := range files {
				if k := kindOf("a", p); k != "" {
					if ps, err := schema.Validate(k, data); err != nil || len(ps) > 0 {
						t.Errorf("%s: %v %v", p, err, ps)
					}
				}
			}
			var sum Summary
			if err := json.Unmarshal(files["operators/a/catalog.json"], &sum); err != nil || sum.Priority != tc.a.Priority {
				t.Errorf("catalog.json priority %d (%v), want %d", sum.Priority, err, tc.a.Priority)
			}
			var v model.InstalledView
			if err := json.Unmarshal(files["operators/a/"+NextPath("op", "stable", "op.v1.0.0")], &v); err != nil {
				t.Fatal(err)
			}
			pick, refused := "", ""
			if v.OLMV1.Pick != nil {
				pick = v.OLMV1.Pick.Name
			}
			if v.OLMV1.Refusal != nil {
				refused = v.OLMV1.Refusal.Bundle
			}
			if v.OLMV1Catalog != tc.wantCatalog || pick != tc.wantPick || refused != tc.wantRefused || (tc.wantErr != "" && v.OLMV1.Error != tc.wantErr) {
				t.Errorf("olmV1 from %q: pick %q refused %q error %q; want from %q pick %q refused %q error %q",
					v.OLMV1Catalog, pick, refused, v.OLMV1.Error, tc.wantCatalog, tc.wantPick, tc.wantRefused, tc.wantErr)
			}
			if len(v.OLMV1PerCatalog) != 2 || v.OLMV1PerCatalog[0].Catalog != "a" || v.OLMV1PerCatalog[1].Catalog != "b" || v.OLMV1.Semantics != model.SemanticsV1Set {
				t.Errorf("per catalog %+v, semantics %q", v.OLMV1PerCatalog, v.OLMV1.Semantics)
			}
			// OLM v0 stays in the Subscription's catalog.
			if v.OLMV0.Next == nil || v.OLMV0.Next.Name != "op.v1.1.0" {
				t.Errorf("olmV0 next %+v", v.OLMV0.Next)
			}
		})
	}
}
