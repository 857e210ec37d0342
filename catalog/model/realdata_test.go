package model

import (
	"reflect"
	"slices"
	"testing"
)

// TestSharedCatalog runs the model over the shared real catalog
// (community-operators-prod v4.21, README beside it): its counts, opm's
// verdict (the README: all 33 packages convert and validate with
// operator-registry v1.73.0, so no error here either), a head for every
// channel, render-graph's edge counts as the README gives them, and the
// warnings upstream lacks, pinned.
func TestSharedCatalog(t *testing.T) {
	cfg := sharedConfig(t)
	c := Convert(cfg)
	var nch, nb, entries int
	for _, p := range c.Packages {
		nch += len(p.Channels)
		nb += len(p.Bundles)
		for _, ch := range p.Channels {
			entries += len(ch.Entries)
			if h, err := ch.Head(); h == nil || err != nil {
				t.Errorf("%s/%s: no head: %v", p.Name, ch.Name, err)
			}
		}
	}
	if len(c.Packages) != 33 || nch != 78 || nb != 745 || len(cfg.Deprecations) != 0 {
		t.Errorf("packages %d channels %d bundles %d deprecations %d, want 33 78 745 0", len(c.Packages), nch, nb, len(cfg.Deprecations))
	}
	if errs := errorsOf(c); len(errs) > 0 {
		t.Errorf("opm validate accepts the catalog; errors: %q", errs)
	}
	if c.Package("konflux-operator") == nil {
		t.Error("package konflux-operator (folder konflux/) missing")
	}
	// Warnings (none is an opm error): pinned counts. L-v1-refused: the 7
	// bundles of rabbitmq-messaging-topology-operator 1.15.0 … 1.19.3
	// declare olm.gvk.required (and olm.package.required), one channel
	// entry each.
	wantRules := map[string]int{RuleV0Unreachable: 73, RuleV0Stuck: 2, RuleDowngradeEdge: 3, RuleV1Refused: 7}
	if got := c.Problems.CountByRule(); !mapsEqual(got, wantRules) {
		t.Errorf("problems by rule = %v, want %v", got, wantRules)
		for _, p := range c.Problems {
			t.Log(p)
		}
	}
	for _, p := range c.Problems {
		if p.File == "" || p.Line == 0 {
			t.Errorf("problem without position: %v", p)
		}
	}

	// Edges as render-graph draws them (README): 736 replace, 159 skip,
	// 607 skipRange; 88 entries with a skipRange, 1 with only that; 89
	// entries in 18 channels that OLM v0 drops as skipped.
	count := map[EdgeType]int{}
	skipped, skippedChannels, nodes := 0, 0, 0
	for _, g := range c.Graphs() {
		nodes += len(g.Nodes)
		for _, e := range g.AllEdges() {
			count[e.Type]++
		}
		n := 0
		for _, nd := range g.Nodes {
			if nd.SkippedByV0 {
				n++
			}
		}
		skipped += n
		if n > 0 {
			skippedChannels++
		}
		if g.Head == "" {
			t.Errorf("%s/%s: graph without head", g.Package, g.Channel)
		}
	}
	if count[EdgeReplaces] != 736 || count[EdgeSkips] != 159 || count[EdgeSkipRange] != 607 {
		t.Errorf("edges %v, want replaces 736 skips 159 skipRange 607", count)
	}
	if skipped != 89 || skippedChannels != 18 || nodes != entries {
		t.Errorf("v0-skipped %d in %d channels (want 89 in 18); nodes %d entries %d", skipped, skippedChannels, nodes, entries)
	}

	// Every installed bundle gets both answers; OLM v0 reaches the head
	// except from the entries L-v0-stuck names; OLM v1 picks, or refuses
	// a pick that declares a dependency (NoDependencyValidation).
	stuck, refusals := 0, 0
	refused := map[string]bool{}
	for _, p := range c.Packages {
		for _, ch := range p.Channels {
			for _, e := range ch.Entries {
				v := e.InstalledView()
				if ref := v.OLMV1.Refusal; ref != nil {
					refusals++
					refused[ref.Bundle] = true
					if v.OLMV1.Pick != nil || v.OLMV1.Error != ref.Message {
						t.Errorf("%s/%s/%s: refusal %+v with pick %v, error %q", p.Name, ch.Name, e.Name, ref, v.OLMV1.Pick, v.OLMV1.Error)
					}
				} else if v.OLMV1.Error != "" || v.OLMV1.Pick == nil {
					t.Errorf("%s/%s/%s: %+v", p.Name, ch.Name, e.Name, v)
				}
				if v.OLMV0.Error != "" {
					t.Errorf("%s/%s/%s: %+v", p.Name, ch.Name, e.Name, v.OLMV0)
				}
				if !v.OLMV0.ReachesHead {
					stuck++
				}
			}
		}
	}
	// rabbitmq-messaging-topology-operator 1.15.0 and later declare
	// olm.gvk.required (first) and olm.package.required: from 1.14.2 and
	// every later install of stable, the pick is refused.
	if refusals != 8 || len(refused) != 7 || !refused["rabbitmq-messaging-topology-operator.v1.15.0"] {
		t.Errorf("OLM v1 refuses %d installs' picks (%d bundles: %v), want 8 (7 bundles of rabbitmq-messaging-topology-operator)", refusals, len(refused), refused)
	}
	if stuck != 7 {
		t.Errorf("%d installs never reach the head under OLM v0, want 7 (4 clusterpulse fast-v0, 3 kubernaut candidate-v1)", stuck)
	}

	// README: aws-neuron-operator.v0.0.5 replaces v0.1.2: OLM v0 follows
	// the edge down (0.1.2 → 0.0.5), OLM v1 keeps the higher 0.1.2.
	aws := c.Package("aws-neuron-operator").Channel("Fast").Entry("aws-neuron-operator.v0.1.2").InstalledView()
	if aws.OLMV0.Next == nil || aws.OLMV0.Next.Name != "aws-neuron-operator.v0.0.5" {
		t.Errorf("OLM v0 from aws-neuron-operator.v0.1.2: %+v", aws.OLMV0)
	}
	if aws.OLMV1.Pick == nil || aws.OLMV1.Pick.Name != "aws-neuron-operator.v0.1.2" {
		t.Errorf("OLM v1 from aws-neuron-operator.v0.1.2: %+v", aws.OLMV1)
	}
	// infinispan 2.3.x: 8 of 9 entries skipped; from 2.3.0 OLM v0 jumps
	// straight to the head.
	inf := c.Package("infinispan").Channel("2.3.x")
	chain, err := inf.V0Chain()
	if err != nil || len(chain) != 1 || len(inf.Entries) != 9 {
		t.Errorf("infinispan 2.3.x: chain %q (%v) of %d entries", names(chain), err, len(inf.Entries))
	}

	v, skippedPkgs := c.ValidOnly()
	if len(v.Packages) != 33 || len(skippedPkgs) != 0 {
		t.Errorf("ValidOnly: %d packages, %d skipped", len(v.Packages), len(skippedPkgs))
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestSharedCatalogDeterministic: the same input gives the same problems
// and graphs (parallel work merged in a fixed order).
func TestSharedCatalogDeterministic(t *testing.T) {
	cfg := sharedConfig(t)
	a, b := Convert(cfg), Convert(cfg)
	if !slices.Equal(a.Problems, b.Problems) {
		t.Error("problems differ between runs")
	}
	ga, gb := a.Graphs(), b.Graphs()
	for i := range ga {
		if !slices.Equal(ga[i].AllEdges(), gb[i].AllEdges()) || !reflect.DeepEqual(ga[i].Nodes, gb[i].Nodes) {
			t.Errorf("%s/%s differs between runs", ga[i].Package, ga[i].Channel)
		}
	}
}
