package plan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/upgrade"
	"github.com/upgraph/upgraph/tools/mirrorset"
)

const sharedCatalog = "../../../shared/catalogs/community-operators-prod-v4.21/configs"

func loadPackageDir(t *testing.T, pkg string) *model.Catalog {
	t.Helper()
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(filepath.Join(sharedCatalog, pkg)))
	if err != nil {
		t.Fatal(err)
	}
	return model.Convert(cfg)
}

// TestComputeDependencies: the topology operator installed at 1.19.3
// (it requires rabbitmq-cluster-operator >2.0.0) from catalog topology,
// with rabbitmq-cluster-operator in catalogs rmq-high (20) and rmq-low
// (5) at 4.20; at 4.21 the set has rmq-low only (the hop passes, the
// provider named from rmq-low), or no catalog with it (OLM v0 cannot
// satisfy the dependency there: the hop is blocked, naming it and the
// catalogs). OLM v1 solves no dependency: nothing is checked.
func TestComputeDependencies(t *testing.T) {
	topo := loadPackageDir(t, "rabbitmq-messaging-topology-operator")
	rmq := loadPackageDir(t, "rabbitmq-cluster-operator")
	empty := model.Convert(&declcfg.DeclarativeConfig{})
	at := func(m Minor, withHigh, withLow bool) []Catalog {
		key := m.Key()
		cats := []Catalog{{Minor: m, Key: key, Name: "topology", Model: topo}}
		high, low := empty, empty
		if withHigh {
			high = rmq
		}
		if withLow {
			low = rmq
		}
		return append(cats, Catalog{Minor: m, Key: key, Name: "rmq-high", Priority: 20, Model: high}, Catalog{Minor: m, Key: key, Name: "rmq-low", Priority: 5, Model: low})
	}
	in := []mirrorset.Install{{Catalog: "topology", Package: "rabbitmq-messaging-topology-operator", Version: "1.19.3"}}
	m420, m421 := Minor{4, 20}, Minor{4, 21}
	for _, tc := range []struct {
		name     string
		olm      upgrade.Runtime
		next     []Catalog
		blocked  bool
		provider string // catalog of the dependency's provider at 4.21
		msgs     []string
	}{
		{"v0: provided by the lower-priority catalog", upgrade.V0, at(m421, false, true), false, "rmq-low", nil},
		{"v0: provided by the higher-priority one first", upgrade.V0, at(m421, true, true), false, "rmq-high", nil},
		{"v0: no catalog provides it", upgrade.V0, at(m421, false, false), true, "", []string{
			"after the hop, OLM v0 cannot satisfy the dependencies of rabbitmq-messaging-topology-operator.v1.19.3 in the v4.21 catalogs: ",
			"rabbitmq-messaging-topology-operator.v1.19.3 requires an operator with package: rabbitmq-cluster-operator and with version in range: >2.0.0: no bundle in catalogs topology, rmq-high, rmq-low provides it"}},
		{"v1: no dependency solving", upgrade.V1, at(m421, false, false), false, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compute(Request{Release: release("4.20.1", "4.21.0"), OLM: tc.olm, Catalogs: append(at(m420, true, true), tc.next...), Operators: in})
			if err != nil {
				t.Fatal(err)
			}
			oh := p.Hops[0].Operators[0]
			if got := oh.State == StateBlocked; got != tc.blocked || p.Blocked != tc.blocked {
				t.Fatalf("blocked %v (plan %v), want %v: %s", got, p.Blocked, tc.blocked, oh.Message)
			}
			for _, m := range tc.msgs {
				if !strings.Contains(oh.Message, m) {
					t.Errorf("message %q, want it to contain %q", oh.Message, m)
				}
			}
			if tc.blocked && (len(p.Blockers) != 1 || !strings.Contains(p.Blockers[0].Message, "rabbitmq-cluster-operator")) {
				t.Errorf("blockers %+v", p.Blockers)
			}
			if tc.provider != "" {
				// olm.gvk.required RabbitmqCluster and olm.package.required
				// rabbitmq-cluster-operator >2.0.0: both its head
				if len(oh.Dependencies) != 2 {
					t.Errorf("dependencies %+v, want two", oh.Dependencies)
				}
				for _, d := range oh.Dependencies {
					if d.Provider == nil || d.Provider.Catalog != tc.provider || d.Provider.Bundle != "rabbitmq-cluster-operator.v2.22.3" {
						t.Errorf("dependency %s: provider %+v, want rabbitmq-cluster-operator.v2.22.3 from %s", d.Text, d.Provider, tc.provider)
					}
				}
			}
			if tc.olm == upgrade.V1 && len(oh.Dependencies) != 0 {
				t.Errorf("OLM v1: dependencies checked: %+v", oh.Dependencies)
			}
		})
	}
}

const conflictFBC = `{"schema":"olm.package","name":"app","defaultChannel":"stable"}
{"schema":"olm.channel","package":"app","name":"stable","entries":[{"name":"app.v1.0.0"}]}
{"schema":"olm.bundle","package":"app","name":"app.v1.0.0","image":"example.com/app:1.0.0","properties":[
 {"type":"olm.package","value":{"packageName":"app","version":"1.0.0"}},
 {"type":"olm.package.required","value":{"packageName":"dep","versionRange":"<2.0.0"}},
 {"type":"olm.package.required","value":{"packageName":"dep","versionRange":">=2.0.0"}}]}
{"schema":"olm.package","name":"dep","defaultChannel":"stable"}
{"schema":"olm.channel","package":"dep","name":"stable","entries":[{"name":"dep.v1.0.0"},{"name":"dep.v2.0.0","replaces":"dep.v1.0.0"}]}
{"schema":"olm.bundle","package":"dep","name":"dep.v1.0.0","image":"example.com/dep:1.0.0","properties":[{"type":"olm.package","value":{"packageName":"dep","version":"1.0.0"}}]}
{"schema":"olm.bundle","package":"dep","name":"dep.v2.0.0","image":"example.com/dep:2.0.0","properties":[{"type":"olm.package","value":{"packageName":"dep","version":"2.0.0"}}]}
`

// TestComputeDependenciesConflict: app.v1.0.0 requires package dep <2.0.0
// and dep >=2.0.0; the catalog has both, but OLM v0 installs one bundle
// per package, so its resolution fails although each dependency has a
// provider: the hop is blocked on the conflict (an existence check per
// dependency would pass it).
func TestComputeDependenciesConflict(t *testing.T) {
	cfg, err := declcfg.LoadFS(context.Background(), fstest.MapFS{"catalog.json": {Data: []byte(conflictFBC)}})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Convert(cfg)
	cats := []Catalog{{Minor: Minor{4, 20}, Key: "v4.20", Model: m}, {Minor: Minor{4, 21}, Key: "v4.21", Model: m}}
	p, err := Compute(Request{Release: release("4.20.1", "4.21.0"), OLM: upgrade.V0, Catalogs: cats, Operators: []mirrorset.Install{{Package: "app", Version: "1.0.0"}}})
	if err != nil {
		t.Fatal(err)
	}
	oh := p.Hops[0].Operators[0]
	if oh.State != StateBlocked || !p.Blocked {
		t.Fatalf("state %s, want blocked: %s", oh.State, oh.Message)
	}
	for _, want := range []string{
		"after the hop, OLM v0 cannot satisfy the dependencies of app.v1.0.0 in the v4.21 catalogs: ",
		"app.v1.0.0 requires an operator with package: dep and with version in range: <2.0.0: its 1 providers (v4.21/stable/dep.v1.0.0) cannot be installed with the rest of the resolution",
	} {
		if !strings.Contains(oh.Message, want) {
			t.Errorf("message %q, want it to contain %q", oh.Message, want)
		}
	}
	if len(oh.Dependencies) != 2 {
		t.Fatalf("dependencies %+v, want two", oh.Dependencies)
	}
	for _, d := range oh.Dependencies {
		if d.Provider != nil || d.Message == "" {
			t.Errorf("dependency %s: provider %+v, message %q: want no pick and why", d.Text, d.Provider, d.Message)
		}
	}
}
