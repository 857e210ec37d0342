//go:build unix

package site

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/upgraph/upgraph/generator/manifest"
)

// snapshot hard-links every file of the tree at dir into a private
// directory beside it, so the generation stays readable after upgraph
// generate swaps a new tree into dir and deletes the old one (and after a
// broken tree is swapped in). Links cost no data copy. The files are read
// through one descriptor of the tree's directory, so a swap in the middle
// cannot mix two trees. A stale snapshot of a server that died is removed
// the next time any server takes one.
func snapshot(dir string, index []byte, m *manifest.Manifest) (string, func(), error) {
	dir = filepath.Clean(dir)
	prefix := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".upgraph-serve-")
	removeStaleSnapshots(prefix)

	src, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, err
	}
	defer unix.Close(src)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	snap := prefix + hex.EncodeToString(rnd[:])
	if err := os.Mkdir(snap, 0o755); err != nil {
		return "", nil, err
	}
	lock, err := os.OpenFile(filepath.Join(snap, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err == nil {
		err = unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	}
	release := func() {
		if lock != nil {
			lock.Close()
		}
		os.RemoveAll(snap)
	}
	if err != nil {
		release()
		return "", nil, err
	}
	dst, err := unix.Open(snap, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		release()
		return "", nil, err
	}
	defer unix.Close(dst)
	made := map[string]bool{".": true}
	link := func(name string) error {
		for _, d := range parents(path.Dir(name)) {
			if !made[d] {
				if err := unix.Mkdirat(dst, d, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
					return err
				}
				made[d] = true
			}
		}
		return unix.Linkat(src, name, dst, name, 0)
	}
	for name := range m.Files {
		if err := link(name); err != nil {
			release()
			return "", nil, fmt.Errorf("snapshot of %s: %w", name, err)
		}
	}
	if err := link(manifest.FileName); err != nil {
		release()
		return "", nil, err
	}
	// The index linked must be the one parsed: otherwise the tree changed
	// between reading it and linking, and the caller tries again later.
	if linked, err := os.ReadFile(filepath.Join(snap, manifest.FileName)); err != nil || string(linked) != string(index) {
		release()
		return "", nil, errors.New("the tree changed while it was being loaded")
	}
	return snap, release, nil
}

// parents lists d and its ancestors, outermost first ("a/b" → a, a/b).
func parents(d string) []string {
	if d == "." || d == "" {
		return nil
	}
	return append(parents(path.Dir(d)), d)
}

// removeStaleSnapshots deletes snapshots nobody holds locked.
func removeStaleSnapshots(prefix string) {
	dirs, _ := filepath.Glob(prefix + "*")
	for _, d := range dirs {
		f, err := os.OpenFile(filepath.Join(d, ".lock"), os.O_RDWR, 0)
		if err != nil {
			continue // being created or removed right now
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
			os.RemoveAll(d)
		}
		f.Close()
	}
}
