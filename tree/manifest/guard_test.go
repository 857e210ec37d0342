package manifest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/internal/cputime"
)

// TestCheckShrinkLinear: comparing the channels of two generations costs
// time linear in them. Before, each old channel was looked for in the
// whole new list: two index.json files of 50,000 different channels each
// took about 2.5 billion string comparisons.
func TestCheckShrinkLinear(t *testing.T) {
	const n = 50000
	old, next := &Manifest{Arches: []string{"amd64"}}, &Manifest{Arches: []string{"amd64"}}
	for i := range n {
		old.Channels = append(old.Channels, fmt.Sprintf("stable-4.%d", i))
		next.Channels = append(next.Channels, fmt.Sprintf("fast-4.%d", i))
	}
	next.Channels = append(next.Channels, old.Channels[:n/2]...) // half kept
	cpu := cputime.Process()
	err := CheckShrink(old, next, DefaultShrinkThreshold)
	used := cputime.Process() - cpu
	t.Logf("%v of CPU", used)
	if want := fmt.Sprintf("channels %d → %d, %d dropped (50%%): stable-4.25000, stable-4.25001", n, n+n/2, n/2); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
	if limit := time.Second; used > limit {
		t.Errorf("%v of CPU, more than %v: quadratic in the channels?", used, limit)
	}
}
