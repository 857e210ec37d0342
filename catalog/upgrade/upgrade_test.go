package upgrade

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/fbctest"
	"github.com/upgraph/upgraph/catalog/model"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

const (
	sharedCatalog = "../../../shared/catalogs/community-operators-prod-v4.21/configs"
	fixtures      = "testdata/catalogs"
)

// load converts the FBC directory dir (once per test binary).
func load(t testing.TB, dir string) *model.Catalog {
	t.Helper()
	_, c := fbctest.Load(t, dir)
	return c
}

// goldenCases are the path questions whose answers testdata/golden pins:
// the upstream cases of spec/olm-behaviour.md §3 B reproduced in
// testdata/catalogs (README.md there cites each), and cases of the shared
// real catalog.
var goldenCases = []struct {
	name, dir string
	q         Query
}{
	// Stranded after a skip (operator-registry#1744, the shape of the
	// real clusterpulse fast-v0): OLM v0 drops 1.1.0, the only successor
	// of 1.0.0; OLM v1 takes it.
	{"stranded-after-skip-v0", "stranded-after-skip", Query{Package: "skipper", From: "1.0.0", OLM: V0}},
	{"stranded-after-skip-v1", "stranded-after-skip", Query{Package: "skipper", From: "1.0.0", OLM: V1}},
	{"stranded-after-skip-v0-from-skipped", "stranded-after-skip", Query{Package: "skipper", From: "skipper.v1.1.0", OLM: V0}},
	// Multiple heads through a skipRange-only entry (operator-registry#822).
	{"skiprange-heads-v0", "skiprange-heads", Query{Package: "ranger", From: "1.0.0", OLM: V0}},
	{"skiprange-heads-v1", "skiprange-heads", Query{Package: "ranger", From: "1.0.0", OLM: V1}},
	{"skiprange-heads-v1-to-version", "skiprange-heads", Query{Package: "ranger", From: "1.0.0", To: "1.2.0", OLM: V1}},
	// Skips across channels (operator-registry#1022).
	{"cross-channel-v0", "cross-channel", Query{Package: "mq", Channel: "v2.0", From: "1.0.1", OLM: V0}},
	{"cross-channel-v0-default-channel", "cross-channel", Query{Package: "mq", From: "mq.v2.0.0", OLM: V0}},
	{"cross-channel-v0-stranded", "cross-channel", Query{Package: "mq", Channel: "v2.0", From: "1.0.0", OLM: V0}},
	{"cross-channel-v1-stranded", "cross-channel", Query{Package: "mq", Channel: "v2.0", From: "1.0.0", OLM: V1}},
	{"cross-channel-v0-v1.1", "cross-channel", Query{Package: "mq", Channel: "v1.1", From: "1.0.1", To: "1.1.1", OLM: V0}},
	{"cross-channel-v0-not-in-channel", "cross-channel", Query{Package: "mq", Channel: "v1.1", From: "1.0.1", To: "2.0.1", OLM: V0}},
	{"cross-channel-v0-older", "cross-channel", Query{Package: "mq", Channel: "v1.1", From: "1.1.0", To: "1.0.1", OLM: V0}},
	// OLM v0 and v1 take different paths: v1 lands on the entry v0 skips.
	{"divergence-v0", "divergence", Query{Package: "div", From: "1.0.0", OLM: V0}},
	{"divergence-v1", "divergence", Query{Package: "div", From: "1.0.0", OLM: V1}},
	{"divergence-v0-to-skipped", "divergence", Query{Package: "div", From: "1.0.0", To: "1.2.0", OLM: V0}},
	{"divergence-v1-to-skipped", "divergence", Query{Package: "div", From: "1.0.0", To: "1.2.0", OLM: V1}},
	{"divergence-v1-passes", "divergence", Query{Package: "div", From: "1.0.0", To: "1.1.0", OLM: V1}},
	{"divergence-legacy-channel", "divergence", Query{Package: "div", Channel: "legacy", From: "1.0.0", OLM: V0}},
	{"v1-skipper-v0", "v1-skipper", Query{Package: "hop", From: "1.0.0", OLM: V0}},
	{"v1-skipper-v1", "v1-skipper", Query{Package: "hop", From: "1.0.0", OLM: V1}},
	// A missing intermediate bundle (elastic/cloud-on-k8s#9414).
	{"partial-mirror-v0", "partial-mirror", Query{Package: "es", From: "2.0.0", OLM: V0}},
	{"partial-mirror-v1", "partial-mirror", Query{Package: "es", From: "2.0.0", OLM: V1}},
	// The runtimes' own refusals (issue 24).
	{"prohibited-v0", "prohibited", Query{Package: "legacy", From: "1.0.0", OLM: V0}},
	{"prohibited-v0-past", "prohibited", Query{Package: "legacy", From: "2.0.0", OLM: V0}},
	{"prohibited-v1", "prohibited", Query{Package: "legacy", From: "1.0.0", OLM: V1}},
	{"refused-v1", "refused", Query{Package: "needy", From: "1.0.0", OLM: V1}},
	{"refused-v1-to-allowed", "refused", Query{Package: "needy", From: "1.0.0", To: "1.1.0", OLM: V1}},
	{"refused-v0", "refused", Query{Package: "needy", From: "1.0.0", OLM: V0}},
	// The shared real catalog.
	{"real-clusterpulse-v0", sharedCatalog, Query{Package: "clusterpulse", Channel: "fast-v0", From: "0.2.0", OLM: V0}},
	{"real-clusterpulse-v1", sharedCatalog, Query{Package: "clusterpulse", Channel: "fast-v0", From: "0.2.0", OLM: V1}},
	{"real-slurm-v0", sharedCatalog, Query{Package: "slurm-operator", From: "1.0.1", OLM: V0}},
	{"real-slurm-v1", sharedCatalog, Query{Package: "slurm-operator", From: "1.0.1", OLM: V1}},
	{"real-slurm-v1-from-1.0.0", sharedCatalog, Query{Package: "slurm-operator", From: "1.0.0", OLM: V1}},
	{"real-aws-neuron-v0", sharedCatalog, Query{Package: "aws-neuron-operator", Channel: "Stable", From: "0.1.2", OLM: V0}},
	{"real-infinispan-v0", sharedCatalog, Query{Package: "infinispan", Channel: "2.3.x", From: "2.3.0", OLM: V0}},
	{"real-infinispan-v0-to-skipped", sharedCatalog, Query{Package: "infinispan", Channel: "2.3.x", From: "2.3.0", To: "2.3.2", OLM: V0}},
	{"real-kube-green-v0", sharedCatalog, Query{Package: "kube-green", From: "0.5.0", OLM: V0}},
	{"real-kube-green-v1", sharedCatalog, Query{Package: "kube-green", From: "0.5.0", OLM: V1}},
	// Issue 24: 1.15.0 and later declare olm.gvk.required and
	// olm.package.required: OLM v1 stops at 1.14.2, refused.
	{"real-rabbitmq-topology-v1", sharedCatalog, Query{Package: "rabbitmq-messaging-topology-operator", From: "1.12.1", OLM: V1}},
}

// TestGolden pins the text and JSON answers of goldenCases
// (testdata/golden/NAME.golden; go test -run TestGolden -update rewrites
// them, to be reviewed by hand).
func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir
			if dir != sharedCatalog {
				dir = filepath.Join(fixtures, dir)
			}
			r, err := Find(load(t, dir), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			r.Catalog = filepath.Base(tc.dir)
			var got bytes.Buffer
			if err := r.WriteText(&got); err != nil {
				t.Fatal(err)
			}
			got.WriteString("----\n")
			if err := r.WriteJSON(&got); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "golden", tc.name+".golden"), got.Bytes())
		})
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it; review the difference):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestHopsAreTheRuntimesChoices: on every channel entry of the shared
// real catalog, the OLM v0 hops to the head are V0Next applied again and
// again from the installed bundle (and Found is ResolveV0's reachesHead,
// what next/P/CH/B.json publishes), and the OLM v1 hops are ResolveV1's
// pick applied again and again until it picks the installed bundle.
func TestHopsAreTheRuntimesChoices(t *testing.T) {
	c := load(t, sharedCatalog)
	n := 0
	for _, p := range c.Packages {
		for _, ch := range p.Channels {
			for _, e := range ch.Entries {
				n++
				b := e.Bundle
				// OLM v0.
				r, err := FindInPackage(p, Query{Channel: ch.Name, From: b.Name, OLM: V0})
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				cur := b.InstalledV0()
				for range len(p.Bundles) {
					next, err := p.V0Next(model.V0Query{Channel: ch.Name, Installed: &cur})
					if err != nil {
						t.Fatal(err)
					}
					if next == nil || slices.Contains(want, next.Name) {
						break
					}
					want = append(want, next.Name)
					cur = p.Bundle(next.Name).InstalledV0()
				}
				got := hopNames(r)
				view := e.InstalledView()
				if !r.Found {
					got = hopNames(r) // every hop taken before it stops
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s/%s from %s: OLM v0 hops %v, V0Next again and again %v", p.Name, ch.Name, b.Name, got, want)
				}
				if r.Found != (view.OLMV0.ReachesHead || b.Name == view.OLMV0.Head) {
					t.Errorf("%s/%s from %s: found %v, next/ file reachesHead %v", p.Name, ch.Name, b.Name, r.Found, view.OLMV0.ReachesHead)
				}
				if !r.Found && r.Reason == nil {
					t.Errorf("%s/%s from %s: no path and no reason", p.Name, ch.Name, b.Name)
				}
				// OLM v1.
				r, err = FindInPackage(p, Query{Channel: ch.Name, From: b.Name, OLM: V1})
				if err != nil {
					t.Fatal(err)
				}
				want = nil
				cb := b
				for range len(p.Bundles) {
					inst, err := cb.InstalledV1(false)
					if err != nil {
						t.Fatal(err)
					}
					res := p.ResolveV1(model.V1Query{Installed: &inst, Channels: []string{ch.Name}})
					if res.Pick == nil || res.Pick.Installed {
						break
					}
					want = append(want, res.Pick.Name)
					cb = p.Bundle(res.Pick.Name)
				}
				if got := hopNames(r); !slices.Equal(got, want) {
					t.Errorf("%s/%s from %s: OLM v1 hops %v, picks again and again %v", p.Name, ch.Name, b.Name, got, want)
				}
				if !r.Found && r.Reason == nil {
					t.Errorf("%s/%s from %s: OLM v1: no path and no reason", p.Name, ch.Name, b.Name)
				}
			}
		}
	}
	t.Logf("%d installs checked", n)
}

func hopNames(r *Report) []string {
	var out []string
	for _, h := range r.Hops {
		out = append(out, h.To.Name)
	}
	return out
}

// TestFixturesCited: testdata/catalogs/README.md cites every fixture.
func TestFixturesCited(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(fixtures, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() && !bytes.Contains(readme, []byte("`"+e.Name()+"`")) {
			t.Errorf("testdata/catalogs/README.md does not cite %s", e.Name())
		}
	}
}

// TestFindErrors: questions naming what the catalog lacks are errors,
// not "no path".
func TestFindErrors(t *testing.T) {
	c := load(t, filepath.Join(fixtures, "cross-channel"))
	for _, tc := range []struct {
		q    Query
		want string
	}{
		{Query{Package: "nope", From: "1.0.0", OLM: V0}, `no package "nope"`},
		{Query{Package: "mq", From: "9.9.9", OLM: V0}, `no bundle named or versioned "9.9.9"`},
		{Query{Package: "mq", From: "1.0.0", To: "mq.v9", OLM: V0}, `no bundle named or versioned "mq.v9"`},
		{Query{Package: "mq", Channel: "v3", From: "1.0.0", OLM: V0}, `no channel "v3" (it has v1.0, v1.1, v2.0)`},
		{Query{Package: "mq", From: "1.0.0", OLM: "v2"}, "want v0"},
	} {
		_, err := Find(c, tc.q)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want an *Error containing %q", tc.q, err, tc.want)
		}
	}
	// A bundle only in one channel, not the default: that channel.
	r, err := Find(c, Query{Package: "mq", From: "1.0.0", OLM: V0})
	if err != nil || r.Channel != "v1.0" || !r.Found {
		t.Errorf("from mq.v1.0.0 without a channel: %+v, %v; want channel v1.0 and a path", r, err)
	}
	// A bundle in the default channel and another: the default.
	r, err = Find(load(t, filepath.Join(fixtures, "divergence")), Query{Package: "div", From: "1.0.0", OLM: V0})
	if err != nil || r.Channel != "stable" {
		t.Errorf("from div.v1.0.0 without a channel: %+v, %v; want the default channel stable", r, err)
	}
}
