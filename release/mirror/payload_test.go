package mirror

import (
	"strings"
	"testing"

	"github.com/upgraph/upgraph/release/graph"
)

func TestPayloadRewrite(t *testing.T) {
	const digest = "@sha256:c5e6fcac0d4fa91794b846d0f3f87600dab240f6490f0865684206954fee6761"
	rules := []string{
		"quay.io/openshift-release-dev=registry.local:5000/ocp",
		"quay.io/openshift-release-dev/ocp-release-nightly=registry.local:5000/nightly",
		"quay.io=registry.local:5000/quay",
		"localhost:5000=mirror.example.com",
	}
	var pms []PayloadMirror
	for _, r := range rules {
		pm, err := ParsePayloadMirror(r)
		if err != nil {
			t.Fatal(err)
		}
		pms = append(pms, pm)
	}
	r, err := NewPayloadRewriter(pms)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"quay.io/openshift-release-dev/ocp-release" + digest, "registry.local:5000/ocp/ocp-release" + digest, true},
		// The longest matching source wins, whatever the order given.
		{"quay.io/openshift-release-dev/ocp-release-nightly" + digest, "registry.local:5000/nightly" + digest, true},
		{"quay.io/other/repo" + digest, "registry.local:5000/quay/other/repo" + digest, true},
		// Whole path components only.
		{"quay.io/openshift-release-devel/x" + digest, "registry.local:5000/quay/openshift-release-devel/x" + digest, true},
		{"quay.iox/a" + digest, "quay.iox/a" + digest, false},
		// Tags are rewritten too (and reported by Apply); a port is not a tag.
		{"quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64", "registry.local:5000/ocp/ocp-release:4.16.0-x86_64", true},
		{"localhost:5000/ocp" + digest, "mirror.example.com/ocp" + digest, true},
		{"localhost:5001/ocp" + digest, "localhost:5001/ocp" + digest, false},
	} {
		got, ok := r.Rewrite(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Rewrite(%s) = %s, %v; want %s, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParsePayloadMirrorRejected(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"quay.io/a", "want SOURCE=MIRROR"},
		{"=registry/a", "empty repository"},
		{"quay.io/a=", "empty repository"},
		{"quay.io/a@sha256:00=r/a", "without digest"},
		{"quay.io/a:tag=r/a", "without tag"},
		{"quay.io/a/=r/a", "empty path component"},
	} {
		if _, err := ParsePayloadMirror(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParsePayloadMirror(%q): %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}

func TestPayloadApply(t *testing.T) {
	g := graph.New()
	for _, n := range []graph.Node{
		{Version: "4.1.0+amd64", Payload: "quay.io/a/r@sha256:01"},
		{Version: "4.1.1+amd64", Payload: "quay.io/a/r:4.1.1"},
		{Version: "4.1.2+amd64", Payload: "example.com/b@sha256:02"},
		{Version: "4.1.3+amd64", Abstract: true},
	} {
		if _, err := g.AddNode(&n); err != nil {
			t.Fatal(err)
		}
	}
	r, err := NewPayloadRewriter([]PayloadMirror{{Source: "quay.io/a", Mirror: "m/a"}})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Apply(g)
	if res.Rewritten != 2 || strings.Join(res.Tagged, ",") != "4.1.1+amd64" || strings.Join(res.Unmatched, ",") != "4.1.2+amd64" {
		t.Errorf("Apply: %+v", res)
	}
	if p := g.Node(0).Payload; p != "m/a/r@sha256:01" {
		t.Errorf("payload %s", p)
	}
	if d := PayloadDigest(g.Node(0).Payload); d != "sha256:01" {
		t.Errorf("PayloadDigest = %q", d)
	}
}
