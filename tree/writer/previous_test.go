//go:build linux

package writer

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestLinkPrevious checks what an incremental generation may take over
// from the previous tree without reading it: a regular file of the size
// given, not modified after the time given, beneath the tree; nothing is
// linked otherwise.
func TestLinkPrevious(t *testing.T) {
	// Directories are reached through their handles (by name, three
	// system calls a file) or, once the handle budget is spent, by a
	// path from the tree's root (through a descriptor of the file).
	for _, byPath := range []bool{false, true} {
		t.Run(map[bool]string{false: "handles", true: "paths"}[byPath], func(t *testing.T) { testLinkPrevious(t, byPath) })
	}
}

func testLinkPrevious(t *testing.T, byPath bool) {
	dir := filepath.Join(t.TempDir(), "out")
	s := DirStore{Dir: dir}
	commit(t, s, map[string]string{
		"index.json":        `{"generator":"upgraph"}`,
		"graph/a/kept.json": "kept bytes",
		"graph/a/late.json": "late bytes",
		"graph/a/link.json": "link bytes",
		"graph/b/x.json":    "in a directory",
		"graph/c/d/y.json":  "deeper",
	})
	past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, name := range []string{"index.json", "graph/a/kept.json", "graph/a/link.json", "graph/b/x.json"} {
		if err := os.Chtimes(filepath.Join(dir, name), past, past); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("link bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "graph/a/link.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "graph/a/link.json")); err != nil {
		t.Fatal(err)
	}

	st, err := s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Abort()
	if byPath {
		st.(*dirStaging).previous.handles.left.Store(0)
	}
	pl := st.(PreviousLinker)
	indexTime, ok, err := pl.PreviousModTime(context.Background(), "index.json")
	if err != nil || !ok || !indexTime.Equal(past) {
		t.Fatalf("PreviousModTime(index.json) = %v, %v, %v; want %v", indexTime, ok, err, past)
	}
	for _, tc := range []struct {
		name string
		size int64
		want bool
	}{
		{"graph/a/kept.json", 10, true},
		{"graph/b/x.json", 14, true},
		{"graph/a/late.json", 10, false},   // modified after index.json
		{"graph/a/link.json", 10, false},   // a symbolic link out of the tree
		{"graph/a/missing.json", 1, false}, // not in the previous tree
		{"graph/c/d", 4096, false},         // a directory
	} {
		t.Run(tc.name, func(t *testing.T) {
			size := tc.size
			got, err := pl.LinkPrevious(context.Background(), tc.name, size, indexTime)
			if err != nil || got != tc.want {
				t.Fatalf("LinkPrevious = %v, %v; want %v", got, err, tc.want)
			}
			staged := filepath.Join(st.(*dirStaging).tmp, tc.name)
			if _, err := os.Lstat(staged); (err == nil) != tc.want {
				t.Errorf("staged %s: %v", tc.name, err)
			}
			if tc.want {
				if !os.SameFile(inode(t, staged), inode(t, filepath.Join(dir, tc.name))) {
					t.Error("not the previous tree's file")
				}
				// The wrong size: nothing linked.
				if again, _ := pl.LinkPrevious(context.Background(), tc.name+".other", size, indexTime); again {
					t.Error("linked a name the previous tree lacks")
				}
			}
		})
	}
	if got, _ := pl.LinkPrevious(context.Background(), "graph/a/kept.json", 11, indexTime); got {
		t.Error("linked a file of another size")
	}
}

// BenchmarkLinkPrevious measures taking files over from the previous tree
// (LinkPrevious), as an incremental generation does for every file of an
// unchanged graph: 4,000 files in 20 directories per op.
func BenchmarkLinkPrevious(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "out")
	s := DirStore{Dir: dir}
	files := map[string]string{"index.json": `{"generator":"upgraph"}`}
	var names []string
	for d := range 20 {
		for f := range 200 {
			name := filepath.Join("graph", "amd64", "c"+strconv.Itoa(d), strconv.Itoa(f)+".json")
			files[name] = "some bytes"
			names = append(names, name)
		}
	}
	commit(b, s, files)
	notAfter := time.Now().Add(time.Hour)
	var cpu int64 // nanoseconds, the linking alone
	defer func() { b.ReportMetric(float64(cpu)/1e3/float64(b.N*len(names)), "cpu-µs/file") }()
	for b.Loop() {
		cpu -= cpuNanos()
		st, err := s.Begin(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		pl := st.(PreviousLinker)
		for _, name := range names {
			if ok, err := pl.LinkPrevious(context.Background(), name, 10, notAfter); !ok || err != nil {
				b.Fatal(name, ok, err)
			}
		}
		cpu += cpuNanos()
		b.StopTimer()
		st.Abort()
		b.StartTimer()
	}
}

// cpuNanos is the process's user and system CPU time so far.
func cpuNanos() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
