package site_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
)

// snapshots lists the serve snapshots beside the tree at dir.
func snapshots(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".upgraph-serve-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// snapshotSampler records the most snapshots seen beside dir at once,
// sampling until stopped.
type snapshotSampler struct {
	most atomic.Int64
	stop chan struct{}
	done sync.WaitGroup
}

func sampleSnapshots(t testing.TB, dir string) *snapshotSampler {
	s := &snapshotSampler{stop: make(chan struct{})}
	s.done.Go(func() {
		for {
			if n := int64(len(snapshots(t, dir))); n > s.most.Load() {
				s.most.Store(n)
			}
			select {
			case <-s.stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	return s
}

func (s *snapshotSampler) Stop() int64 {
	close(s.stop)
	s.done.Wait()
	return s.most.Load()
}

// TestLoadRefusesNamesOutsideBeforeSnapshot: an index.json naming a file
// outside the tree is refused before the snapshot is taken, which would
// otherwise make the directories of such a name beside the tree.
func TestLoadRefusesNamesOutsideBeforeSnapshot(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "tree")
	m := manifest.Manifest{Format: manifest.Format, GeneratedAt: "2024-01-01T00:00:00Z",
		Files: map[string]manifest.File{"../escape/x.json": {Size: 2, SHA256: manifest.SHA256([]byte("{}"))}}}
	index, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), index, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := site.Load(dir, nil); err == nil || !strings.Contains(err.Error(), `index.json names "../escape/x.json", which is not a file of a tree`) {
		t.Errorf("Load: %v, want the name refused", err)
	}
	if _, err := os.Stat(filepath.Join(base, "escape")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load made %s: %v", filepath.Join(base, "escape"), err)
	}
	if s := snapshots(t, dir); len(s) != 0 {
		t.Errorf("left behind: %v", s)
	}
}
