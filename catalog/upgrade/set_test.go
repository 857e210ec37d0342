package upgrade

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
)

// setPackage is package op, channel stable: the versions replacing each
// other, extra YAML property lines per version.
func setPackage(t *testing.T, versions []string, props map[string]string) *model.Package {
	t.Helper()
	var b strings.Builder
	b.WriteString("---\nschema: olm.package\nname: op\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: op\nname: stable\nentries:\n")
	prev := ""
	for _, v := range versions {
		fmt.Fprintf(&b, "- name: op.v%s\n", v)
		if prev != "" {
			fmt.Fprintf(&b, "  replaces: op.v%s\n", prev)
		}
		prev = v
	}
	for _, v := range versions {
		fmt.Fprintf(&b, "---\nschema: olm.bundle\npackage: op\nname: op.v%s\nimage: example.com/op:v%s\nproperties:\n- type: olm.package\n  value: {packageName: op, version: %s}\n%s", v, v, v, props[v])
	}
	cfg, err := declcfg.LoadFS(context.Background(), fstest.MapFS{"c.yaml": {Data: []byte(b.String())}})
	if err != nil {
		t.Fatal(err)
	}
	return model.Convert(cfg).Package("op")
}

// TestFindInSet: OLM v1 walks across the catalogs of a set (priority
// first, each hop naming its catalog; a tie and a refusal stop it), OLM
// v0 stays in the Subscription's catalog.
func TestFindInSet(t *testing.T) {
	const dep = "- type: olm.gvk.required\n  value: {group: example.com, kind: Thing, version: v1}\n"
	home := setPackage(t, []string{"1.0.0", "1.1.0"}, nil)
	for _, tc := range []struct {
		name   string
		set    []SetMember
		olm    Runtime
		hops   string // "catalog/bundle ..."
		reason string
	}{
		// The target is home's head (1.1.0): reached from the other
		// catalog, where the walk would go on to 1.2.0.
		{"v1: the higher-priority catalog's chain is followed",
			[]SetMember{{Name: "home", Package: home}, {Name: "other", Priority: 1, Package: setPackage(t, []string{"1.0.0", "1.1.0", "1.2.0"}, nil)}},
			V1, "other/op.v1.1.0", ""},
		{"v1: the home catalog wins with the higher priority",
			[]SetMember{{Name: "home", Priority: 2, Package: home}, {Name: "other", Priority: 1, Package: setPackage(t, []string{"1.0.0", "1.1.0", "1.2.0"}, nil)}},
			V1, "home/op.v1.1.0", ""},
		{"v1: a tie stops it",
			[]SetMember{{Name: "home", Package: home}, {Name: "other", Package: setPackage(t, []string{"1.0.0", "1.1.0", "1.2.0"}, nil)}},
			V1, "", ReasonCatalogTie},
		{"v1: the winner's refusal stops it (no fallback to home)",
			[]SetMember{{Name: "home", Package: home}, {Name: "other", Priority: 1, Package: setPackage(t, []string{"1.0.0", "1.1.0", "1.2.0"}, map[string]string{"1.1.0": dep})}},
			V1, "", ReasonRefusedByV1},
		{"v0: the Subscription's catalog only",
			[]SetMember{{Name: "home", Package: home}, {Name: "other", Priority: 1, Package: setPackage(t, []string{"1.0.0", "1.1.0", "1.2.0"}, nil)}},
			V0, "/op.v1.1.0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := FindInSet(tc.set, "home", Query{Package: "op", From: "1.0.0", OLM: tc.olm})
			if err != nil {
				t.Fatal(err)
			}
			var hops []string
			for _, h := range r.Hops {
				hops = append(hops, h.Catalog+"/"+h.To.Name)
			}
			reason := ""
			if r.Reason != nil {
				reason = r.Reason.Code
			}
			if got := strings.Join(hops, " "); got != tc.hops || reason != tc.reason {
				t.Errorf("hops %q reason %q (%+v), want %q %q", got, reason, r.Reason, tc.hops, tc.reason)
			}
			if r.Catalog != "home" {
				t.Errorf("catalog %q", r.Catalog)
			}
		})
	}
	if _, err := FindInSet([]SetMember{{Name: "home"}}, "home", Query{Package: "op", From: "1.0.0", OLM: V1}); err == nil || !strings.Contains(err.Error(), `catalog home has no package "op"`) {
		t.Errorf("missing package: %v", err)
	}
}
