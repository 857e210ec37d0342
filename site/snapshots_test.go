package site_test

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
