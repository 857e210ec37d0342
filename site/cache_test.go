package site

import (
	"fmt"
	"testing"
)

func TestCacheBudgetAndSecondChance(t *testing.T) {
	c := newCache(300)
	entry := func(n int) *content { return &content{body: make([]byte, n), etag: `"x"`} }
	for i := range 3 {
		c.add(fmt.Sprint(i), entry(100))
	}
	if c.bytes() != 300 {
		t.Fatalf("used %d, want 300", c.bytes())
	}
	c.get("0") // referenced: survives the next eviction pass
	c.add("3", entry(100))
	if c.bytes() > 300 {
		t.Errorf("used %d over the 300 budget", c.bytes())
	}
	if c.get("0") == nil {
		t.Error("recently used entry evicted")
	}
	if c.get("3") == nil {
		t.Error("new entry missing")
	}
	evicted := 0
	for _, k := range []string{"1", "2"} {
		if c.get(k) == nil {
			evicted++
		}
	}
	if evicted != 1 {
		t.Errorf("%d of the unreferenced entries evicted, want 1", evicted)
	}
	c.add("big", entry(301))
	if c.get("big") != nil {
		t.Error("an entry over the whole budget was kept")
	}
	c.add("3", entry(100)) // already present: no double count
	if c.bytes() > 300 {
		t.Errorf("used %d after re-adding", c.bytes())
	}
}
