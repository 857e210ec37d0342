package site

import (
	"io/fs"
	"maps"
	"slices"
	"time"

	"github.com/upgraph/upgraph/generator/manifest"
)

// Batches for the 16-lane hasher: enough files to keep the lanes busy,
// few enough bytes to stay in cache between reading and hashing.
const (
	verifyBatchFiles = 64
	verifyBatchBytes = 8 << 20
)

// verifyAhead checks the digests of g's files in the background, so that
// requests find them verified and stream them. Without it a file's first
// request reads and hashes it (under 200 MB/s per core without SHA
// extensions); at real scale, 1.3 GB of distinct content, that keeps a
// freshly started or swapped server slow for tens of seconds under load.
// A file that does not match is left unverified: its first request fails
// as it would have. It stops when g is no longer served.
func (h *Handler) verifyAhead(g *Generation) {
	start := time.Now()
	// One file per digest not verified yet (hard links share one).
	var todo []string
	seen := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(g.Manifest.Files)) {
		d := g.Manifest.Files[name].SHA256
		if _, done := h.verified.Load(d); !done && !seen[d] {
			seen[d] = true
			todo = append(todo, name)
		}
	}
	g.aheadLeft.Store(int64(len(todo)))
	var (
		names          []string
		bufs           [][]byte
		size           int
		files, matched int
		bytes          int64
	)
	flush := func() {
		for i, got := range manifest.SHA256s(bufs) {
			if d := g.Manifest.Files[names[i]].SHA256; got == d {
				h.verified.Store(d, true)
				matched++
			}
		}
		names, bufs, size = names[:0], bufs[:0], 0
	}
	for _, name := range todo {
		if h.gen.Load() != g {
			return
		}
		data, err := fs.ReadFile(g.root.FS(), name)
		g.aheadLeft.Add(-1)
		if err != nil {
			continue // its first request reports it
		}
		files++
		bytes += int64(len(data))
		names, bufs, size = append(names, name), append(bufs, data), size+len(data)
		if len(bufs) >= verifyBatchFiles || size >= verifyBatchBytes {
			flush()
		}
	}
	flush()
	h.log.Debug("verified ahead", "generation", g.ID, "files", files, "matching", matched, "bytes", bytes, "duration", time.Since(start))
}
