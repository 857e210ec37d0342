package site

import (
	"bytes"
	"compress/gzip"
	"container/list"
	"sync"
)

// content is a served file, with what its responses need precomputed.
type content struct {
	body []byte
	etag string

	gzipOnce sync.Once
	gz       []byte
	gzEtag   string
}

// gzipped compresses the body once; later requests reuse the result.
func (c *content) gzipped() ([]byte, string) {
	c.gzipOnce.Do(func() {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write(c.body)
		zw.Close()
		c.gz = b.Bytes()
		c.gzEtag = c.etag[:len(c.etag)-1] + `-gz"`
	})
	return c.gz, c.gzEtag
}

// cache holds file contents by digest, so hard-linked duplicates and
// unchanged files across generations share one entry, within a byte budget
// (least recently used entries go first).
type cache struct {
	mu     sync.Mutex
	budget int64
	used   int64
	lru    *list.List // of *cacheEntry, front = most recent
	byKey  map[string]*list.Element
}

type cacheEntry struct {
	key string
	c   *content
}

func newCache(budget int64) *cache {
	return &cache{budget: budget, lru: list.New(), byKey: map[string]*list.Element{}}
}

func (c *cache) get(key string) *content {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		c.lru.MoveToFront(e)
		return e.Value.(*cacheEntry).c
	}
	return nil
}

// add stores v under key, evicting old entries beyond the budget; a
// content larger than the whole budget is served but not kept.
func (c *cache) add(key string, v *content) {
	size := int64(len(v.body))
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok || size > c.budget {
		return
	}
	c.byKey[key] = c.lru.PushFront(&cacheEntry{key, v})
	c.used += size
	for c.used > c.budget {
		e := c.lru.Back()
		ce := e.Value.(*cacheEntry)
		c.lru.Remove(e)
		delete(c.byKey, ce.key)
		c.used -= int64(len(ce.c.body))
	}
}

func (c *cache) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}
