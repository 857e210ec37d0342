package mirrorset

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/upgrade"
)

const (
	topologyPkg = "rabbitmq-messaging-topology-operator"
	clusterPkg  = "rabbitmq-cluster-operator"
)

// TestDependencyClosureAcrossCatalogs: the topology operator in one
// CatalogSource, rabbitmq-cluster-operator in two others of priorities
// 20 and 5 (as the oracle's rmq-prio set, where the real resolver picks
// rmq-high's every time): the mirror set keeps the provider from the
// higher-priority catalog only, nothing of the lower one, and names it
// in the ImageSetConfiguration and images; without any catalog holding
// the dependency, the install has no path, and the reason names the
// missing dependency.
func TestDependencyClosureAcrossCatalogs(t *testing.T) {
	topo := loadCatalog(t, "topology", filepath.Join(sharedCatalog, topologyPkg))
	high := loadCatalog(t, "rmq-high", filepath.Join(sharedCatalog, clusterPkg))
	high.Priority = 20
	low := loadCatalog(t, "rmq-low", filepath.Join(sharedCatalog, clusterPkg))
	low.Priority = 5
	in := Install{Catalog: "topology", Package: topologyPkg, Version: "1.12.1"}
	plan, err := Compute([]*Catalog{topo, high, low}, []Install{in}, upgrade.V0)
	if err != nil {
		t.Fatal(err)
	}
	ip := plan.Installs[0]
	if !ip.Found || len(ip.Path) != 11 {
		t.Fatalf("install: found %v, path %v, reason %+v", ip.Found, ip.Path, ip.Reason)
	}
	if len(ip.Dependencies) != 1 {
		t.Fatalf("dependencies %+v, want one provider", ip.Dependencies)
	}
	d := ip.Dependencies[0]
	if d.Catalog != "rmq-high" || d.Bundle != "rabbitmq-cluster-operator.v2.22.3" || d.At != "rabbitmq-messaging-topology-operator.v1.14.2" {
		t.Errorf("provider %+v, want rabbitmq-cluster-operator.v2.22.3 from rmq-high installed at 1.14.2", d)
	}
	kept := map[string]int{}
	for _, cs := range plan.Catalogs {
		kept[cs.Name] = cs.Counts.Bundles
	}
	if kept["topology"] != 11 || kept["rmq-high"] != 1 || kept["rmq-low"] != 0 {
		t.Errorf("kept per catalog %v, want topology 11, rmq-high 1, rmq-low 0", kept)
	}
	isc := string(ImageSetConfiguration(plan, nil))
	if !strings.Contains(isc, `- name: "rabbitmq-cluster-operator"`) || !strings.Contains(isc, "a dependency: OLM v0 installs it for rabbitmq-messaging-topology-operator.v1.15.0") {
		t.Errorf("the ImageSetConfiguration lacks the dependency package:\n%s", isc)
	}
	if imgs := string(Images(plan, nil)); !strings.Contains(imgs, "quay.io/rabbitmqoperator/cluster-operator:2.22.3") {
		t.Errorf("images.txt lacks the provider's related image:\n%s", imgs)
	}

	// No catalog has rabbitmq-cluster-operator: OLM v0 stays at 1.14.2
	// (its successors need it), and the mirror set says so.
	alone, err := Compute([]*Catalog{topo}, []Install{in}, upgrade.V0)
	if err != nil {
		t.Fatal(err)
	}
	ip = alone.Installs[0]
	if ip.Found || ip.Reason == nil || ip.Reason.Code != ReasonDependencies || !strings.Contains(ip.Reason.Message, "rabbitmq-cluster-operator") {
		t.Errorf("without a provider: found %v, reason %+v", ip.Found, ip.Reason)
	}
	if alone.Counts.Bundles != 0 {
		t.Errorf("without a provider the set keeps %d bundles, want none", alone.Counts.Bundles)
	}
}
