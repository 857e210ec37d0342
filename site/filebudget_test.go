package site_test

import (
	"testing"
	"time"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
)

// TestFileBudget checks that the descriptors kept open for sendfile are
// one budget for every generation a Handler serves: answers past it are
// still given (from a file opened for the request), a retired generation
// returns its share once it closes, and the next one takes it.
func TestFileBudget(t *testing.T) {
	m, err := manifest.Read(treeDir)
	if err != nil {
		t.Fatal(err)
	}
	// Requests for channel graphs of distinct content: one descriptor each.
	var heads [][]byte
	seen := map[string]bool{}
	for _, g := range m.Graphs {
		if sum := m.Files[g.Path].SHA256; !seen[sum] {
			seen[sum] = true
			heads = append(heads, []byte("GET /api/upgrades_info/v1/graph?arch="+g.Arch+"&channel="+g.Channel+" HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n"))
		}
	}
	if len(heads) < 4 {
		t.Fatalf("the demo tree has %d channel graphs of distinct content, want 4", len(heads))
	}
	const budget = 2
	h := site.NewHandler(site.Options{})
	h.SetFileBudget(budget)
	answerAll := func() {
		t.Helper()
		for _, head := range heads {
			if status, ok := h.AnswerFast(head); !ok || status != 200 {
				t.Fatalf("%q: status %d, fast path %v", head, status, ok)
			}
		}
	}
	waitLeft := func(want int64) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); h.FileBudgetLeft() != want; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("descriptors left in the budget: %d, want %d", h.FileBudgetLeft(), want)
			}
		}
	}
	load := func() *site.Generation {
		t.Helper()
		g, err := site.Load(treeDir, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		return g
	}

	h.SetGeneration(load())
	answerAll()
	waitLeft(0) // past the budget, files were opened per answer
	answerAll()
	// The retired generation closes once its last request ends (none is
	// in flight): its descriptors go back, and the new one takes them.
	h.SetGeneration(load())
	waitLeft(budget)
	answerAll()
	waitLeft(0)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	waitLeft(budget)
}
