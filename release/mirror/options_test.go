package mirror

import (
	"strings"
	"testing"
)

func TestRequestURL(t *testing.T) {
	for _, tc := range []struct{ base, want string }{
		{"https://api.openshift.com/api/upgrades_info/v1/graph", "https://api.openshift.com/api/upgrades_info/v1/graph?channel=stable-4.16&arch=multi"},
		// The endpoint's own parameters are kept as written, ours win.
		{"http://127.0.0.1:8080/graph?x=a%20b&channel=old", "http://127.0.0.1:8080/graph?x=a%20b&channel=old&channel=stable-4.16&arch=multi"},
		{"http://h/graph?", "http://h/graph?channel=stable-4.16&arch=multi"},
	} {
		if got := requestURL(tc.base, "stable-4.16", "multi"); got != tc.want {
			t.Errorf("requestURL(%s) = %s, want %s", tc.base, got, tc.want)
		}
	}
}

func TestOptionsRejected(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{URL: "ftp://h/graph", Channels: []string{"a"}}, "want http:// or https://"},
		{Options{URL: "/graph", Channels: []string{"a"}}, "want http:// or https://"},
		{Options{URL: "http://h/graph"}, "no channels"},
		{Options{URL: "http://h/graph", Channels: []string{"Stable-4.16"}}, `channel "Stable-4.16" does not match`},
		{Options{URL: "http://h/graph", Channels: []string{"a"}, Arches: []string{"x86_64"}}, `arch "x86_64" does not match`},
	} {
		_, err := Fetch(t.Context(), tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Fetch(%+v): %v, want an error containing %q", tc.opts, err, tc.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	o, err := Options{URL: "http://h/graph#frag", Channels: []string{"a", "a"}}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.Arches, ",") != "amd64,arm64,multi,ppc64le,s390x" || len(o.Channels) != 1 ||
		o.Workers != 4 || o.Attempts != 3 || o.URL != "http://h/graph" {
		t.Errorf("defaults: %+v", o)
	}
}
