package site

import (
	"fmt"
	"testing"
)

func TestCacheBudgetAndSecondChance(t *testing.T) {
	c := newCache(300)
	entry := func(n int) *content { return &content{body: make([]byte, n), etag: `"x"`} }
	key := func(digest string) cacheKey { return cacheKey{digest: digest} }
	for i := range 3 {
		c.add(key(fmt.Sprint(i)), entry(100))
	}
	if c.bytes() != 300 {
		t.Fatalf("used %d, want 300", c.bytes())
	}
	c.get(key("0")) // referenced: survives the next eviction pass
	c.add(key("3"), entry(100))
	if c.bytes() > 300 {
		t.Errorf("used %d over the 300 budget", c.bytes())
	}
	if c.get(key("0")) == nil {
		t.Error("recently used entry evicted")
	}
	if c.get(key("3")) == nil {
		t.Error("new entry missing")
	}
	evicted := 0
	for _, k := range []string{"1", "2"} {
		if c.get(key(k)) == nil {
			evicted++
		}
	}
	if evicted != 1 {
		t.Errorf("%d of the unreferenced entries evicted, want 1", evicted)
	}
	c.add(key("big"), entry(301))
	if c.get(key("big")) != nil {
		t.Error("an entry over the whole budget was kept")
	}
	c.add(key("3"), entry(100)) // already present: no double count
	if c.bytes() > 300 {
		t.Errorf("used %d after re-adding", c.bytes())
	}
}
