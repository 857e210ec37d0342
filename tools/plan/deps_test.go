package plan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
