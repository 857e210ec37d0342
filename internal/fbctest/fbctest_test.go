package fbctest

import (
	"strings"
	"testing"
)

// TestReplacesChain: one package line, one channel line, n bundle lines;
// each entry but the first replaces the one before, and only the head is
// deprecated when asked.
func TestReplacesChain(t *testing.T) {
	for _, deprecated := range []bool{false, true} {
		lines := strings.Split(strings.TrimSuffix(ReplacesChain(3, deprecated), "\n"), "\n")
		if len(lines) != 5 {
			t.Fatalf("deprecated %v: %d lines, want 5:\n%s", deprecated, len(lines), strings.Join(lines, "\n"))
		}
		if want := `{"name":"p.v1.0.0"},{"name":"p.v1.0.1","replaces":"p.v1.0.0"},{"name":"p.v1.0.2","replaces":"p.v1.0.1"}]}`; !strings.HasSuffix(lines[1], want) {
			t.Errorf("channel %s, want entries %s", lines[1], want)
		}
		for i, l := range lines[2:] {
			if got := strings.Contains(l, "olm.deprecated"); got != (deprecated && i == 2) {
				t.Errorf("deprecated %v: bundle %d: %s", deprecated, i, l)
			}
		}
	}
}

// TestReplacesChainRequiring: package dep (package, channel, bundle) comes
// first, then the chain, every bundle of which requires dep.
func TestReplacesChainRequiring(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(ReplacesChainRequiring(2, "dep"), "\n"), "\n")
	want := []string{
		`{"schema":"olm.package","name":"dep","defaultChannel":"stable"}`,
		`{"schema":"olm.channel","name":"stable","package":"dep","entries":[{"name":"dep.v1.0.0"}]}`,
		`{"schema":"olm.bundle","name":"dep.v1.0.0","package":"dep","image":"quay.io/x/dep:1","properties":[{"type":"olm.package","value":{"packageName":"dep","version":"1.0.0"}}]}`,
		`{"schema":"olm.package","name":"p","defaultChannel":"stable"}`,
		`{"schema":"olm.channel","name":"stable","package":"p","entries":[{"name":"p.v1.0.0"},{"name":"p.v1.0.1","replaces":"p.v1.0.0"}]}`,
		`{"schema":"olm.bundle","name":"p.v1.0.0","package":"p","image":"quay.io/x/p@sha256:0000000000000000000000000000000000000000000000000000000000000000","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}},{"type":"olm.package.required","value":{"packageName":"dep","versionRange":">=1.0.0"}}]}`,
		`{"schema":"olm.bundle","name":"p.v1.0.1","package":"p","image":"quay.io/x/p@sha256:0000000000000000000000000000000000000000000000000000000000000001","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.1"}},{"type":"olm.package.required","value":{"packageName":"dep","versionRange":">=1.0.0"}}]}`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
