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
