package views

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/source"
)

// labelOnlyFBC: labelled requires only olm.label.required (no refusal
// warning of OLM v1 names it); plain declares nothing.
const labelOnlyFBC = `{"schema":"olm.package","name":"labelled","defaultChannel":"stable"}
{"schema":"olm.channel","package":"labelled","name":"stable","entries":[{"name":"labelled.v1.0.0"}]}
{"schema":"olm.bundle","package":"labelled","name":"labelled.v1.0.0","image":"example.com/labelled:1.0.0","properties":[
 {"type":"olm.package","value":{"packageName":"labelled","version":"1.0.0"}},
 {"type":"olm.label.required","value":{"label":"example.com/needed"}}]}
{"schema":"olm.package","name":"plain","defaultChannel":"stable"}
{"schema":"olm.channel","package":"plain","name":"stable","entries":[{"name":"plain.v1.0.0"}]}
{"schema":"olm.bundle","package":"plain","name":"plain.v1.0.0","image":"example.com/plain:1.0.0","properties":[{"type":"olm.package","value":{"packageName":"plain","version":"1.0.0"}}]}
`

// TestSummaryDeclaresDependencies: catalog.json marks a package a bundle
// of which declares an OLM v0 dependency in any form — an
// olm.label.required alone included — and only such packages.
func TestSummaryDeclaresDependencies(t *testing.T) {
	cfg, err := declcfg.LoadFS(context.Background(), fstest.MapFS{"catalog.json": {Data: []byte(labelOnlyFBC)}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New("test", "dir:test", source.Info{}, cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"labelled": true, "plain": false}
	sum := c.Summary()
	if len(sum.Packages) != len(want) {
		t.Fatalf("packages %+v", sum.Packages)
	}
	for _, p := range sum.Packages {
		if p.DeclaresDependencies != want[p.Name] {
			t.Errorf("%s: declaresDependencies %v, want %v", p.Name, p.DeclaresDependencies, want[p.Name])
		}
	}
}
