package site

import (
	"time"

	"github.com/upgraph/upgraph/tree/manifest"
)

// Batches for the 16-lane hasher: enough files to keep the lanes busy,
// few enough bytes to stay in cache between reading and hashing.
const (
	verifyBatchFiles = 64
	verifyBatchBytes = 8 << 20
)

// verifyAhead checks the digests of g's files in the background, so that
// requests find them stamped (stamp.go) and stream them. Without it a
// file's first request reads and hashes it (under 200 MB/s per core
// without SHA extensions); at real scale, 1.3 GB of distinct content,
// that keeps a freshly started or swapped server slow for tens of
// seconds under load. A file whose inode is unchanged since the previous
// generation checked it (inheritStamps) costs an open and an fstat. A file that does
// not match is stamped as such and reported; its requests are answered
// from memory or refused. A file written too recently to be stamped
// (racy) is checked again once that has passed. It stops when g is no
// longer served.
func (h *Handler) verifyAhead(g *Generation) {
	start := time.Now()
	todo := g.slots
	g.aheadLeft.Store(int64(len(todo)))
	var files, matched int
	var bytes int64
	for pass := 0; len(todo) > 0 && pass < 8; pass++ {
		if pass > 0 {
			// Doubling: past whole-second timestamps' window by the sixth.
			time.Sleep(racyWindow << (pass - 1))
		}
		var n, m int
		var b int64
		todo, n, m, b = h.verifyPass(g, todo)
		files, matched, bytes = files+n, matched+m, bytes+b
	}
	g.aheadLeft.Store(0) // what is left, its first request checks
	h.log.Debug("verified ahead", "generation", g.ID, "files", files, "matching", matched, "bytes", bytes, "duration", time.Since(start))
}

// verifyPass checks slots and returns those to check again (racy).
func (h *Handler) verifyPass(g *Generation, slots []*contentSlot) (again []*contentSlot, files, matched int, bytes int64) {
	type read struct {
		f      *servedFile
		st     fileState
		readAt time.Time
		stable bool
	}
	var (
		batch []read
		bufs  [][]byte
		size  int
	)
	record := func(r read, good bool) {
		switch {
		case !r.stable || racy(r.st, r.readAt):
			again = append(again, r.f.slot)
			g.aheadLeft.Add(1)
			return
		case good:
			matched++
		default:
			h.fileChanged(r.f, r.st)
		}
		r.f.slot.stamp.Store(&stamp{st: r.st, good: good})
	}
	flush := func() {
		for i, got := range manifest.SHA256s(bufs) {
			record(batch[i], int64(len(bufs[i])) == batch[i].f.info.Size && got == batch[i].f.slot.digest)
		}
		batch, bufs, size = batch[:0], bufs[:0], 0
	}
	for _, slot := range slots {
		if h.gen.Load() != g {
			return nil, files, matched, bytes
		}
		g.aheadLeft.Add(-1)
		file, err := g.open(slot.name)
		if err != nil {
			continue // its first request reports it
		}
		f := &servedFile{name: slot.name, info: g.Manifest.Files[slot.name], slot: slot}
		st, err := statFile(file)
		if s := slot.stamp.Load(); err != nil || s != nil && s.st == st {
			file.Close()
			continue // known in this state already
		}
		readAt := time.Now()
		data, stable, err := readFile(file, st, f.info.Size)
		file.Close()
		switch {
		case err != nil:
			continue
		case data == nil:
			record(read{f, st, readAt, stable}, false)
			continue
		}
		files++
		bytes += int64(len(data))
		batch = append(batch, read{f, st, readAt, stable})
		bufs, size = append(bufs, data), size+len(data)
		if len(bufs) >= verifyBatchFiles || size >= verifyBatchBytes {
			flush()
		}
	}
	flush()
	return again, files, matched, bytes
}
