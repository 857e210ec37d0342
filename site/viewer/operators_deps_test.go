package viewer_test

import (
	"path/filepath"
	"strings"
	"testing"

	catviews "github.com/upgraph/upgraph/catalog/views"
)

// TestOperatorsDependencies: in a tree with a catalog set, next/ files
// resolve OLM v0's dependencies (issue 25) and the operator page shows
// them per hop: rabbitmq-messaging-topology-operator installed at 1.12.1
// from catalog topology, rabbitmq-cluster-operator in catalog rmq
// (priority 10): the hop to 1.15.0 requires it and installs
// rabbitmq-cluster-operator.v2.22.3 from rmq. With the peer holding
// another package instead, OLM v0 is held at 1.14.2, and the page says
// so, naming the dependency.
func TestOperatorsDependencies(t *testing.T) {
	browser := newBrowser(t)
	for _, tc := range []struct {
		name, peer string
		provider   string // name@catalog on some hop, "" for none
		held       bool
	}{
		{"provided", "rabbitmq-cluster-operator", "rabbitmq-cluster-operator.v2.22.3@rmq", false},
		{"held", "kube-green", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo := loadCatalog(t, "topology", filepath.Join(sharedCatalog, "rabbitmq-messaging-topology-operator"))
			rmq := loadCatalog(t, "rmq", filepath.Join(sharedCatalog, tc.peer))
			rmq.Priority = 10
			topo.Peers, rmq.Peers = []*catviews.Catalog{rmq}, []*catviews.Catalog{topo}
			dir := filepath.Join(t.TempDir(), "tree")
			renderCatalogTree(t, dir, false, topo, rmq)
			p := newPage(t, browser, serveTree(t, dir))
			p.open(t, opQuery("catalog", "topology"))
			p.goOps(t, opQuery("catalog", "topology", "package", "rabbitmq-messaging-topology-operator", "channel", "stable",
				"installed", "rabbitmq-messaging-topology-operator.v1.12.1"))
			var got struct {
				Providers []string `json:"providers"`
				Deps      []string `json:"deps"`
				Held      string   `json:"held"`
			}
			p.eval(t, `({
  providers: [...document.querySelectorAll('#op-v0-path li[data-providers]')].map((li) => li.dataset.providers).filter(Boolean),
  deps: [...document.querySelectorAll('#op-v0-path .dependency')].map((li) => li.textContent),
  held: (document.getElementById('op-v0-held') || {}).textContent || '',
})`, &got)
			if tc.provider != "" && !strings.Contains(strings.Join(got.Providers, " "), tc.provider) {
				t.Errorf("the page's hops install %v, want %s on one of them", got.Providers, tc.provider)
			}
			if tc.provider != "" && !strings.Contains(strings.Join(got.Deps, " | "), "rabbitmq-cluster-operator.v2.22.3") {
				t.Errorf("the page's dependency lines %v do not name the pick", got.Deps)
			}
			if tc.held != (got.Held != "") || (tc.held && !strings.Contains(got.Held, "rabbitmq-cluster-operator")) {
				t.Errorf("held %q, want held %v naming rabbitmq-cluster-operator", got.Held, tc.held)
			}
			p.screenshot(t, "viewer-operators-dependencies-"+tc.name+".png")
		})
	}
}
