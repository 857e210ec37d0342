//go:build unix

package site

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/upgraph/upgraph/tree/manifest"
)

// snapshot hard-links every file of the tree at dir into a private
// directory beside it, so the generation stays readable after upgraph
// generate swaps a new tree into dir and deletes the old one (and after a
// broken tree is swapped in). Links cost no data copy. The files are read
// through one descriptor of the tree's directory, so a swap in the middle
// cannot mix two trees. A stale snapshot of a server that died is removed
// the next time any server takes one.
func snapshot(dir string, index []byte, m *manifest.Manifest) (string, func() error, error) {
	dir = filepath.Clean(dir)
	prefix := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".upgraph-serve-")
	removeStaleSnapshots(prefix)

	src, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, err
	}
	defer unix.Close(src)
	snap, remove, err := lockedDir(prefix)
	if err != nil {
		return "", nil, err
	}
	dst, err := unix.Open(snap, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		remove()
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
			remove()
			return "", nil, fmt.Errorf("snapshot of %s: %w", name, err)
		}
	}
	// A signed tree's TUF metadata, which index.json does not list, so
	// that serve --trust verifies the copy served. Linked before
	// index.json: metadata of a newer generation than the index.json
	// linked is a mix the verification refuses.
	if entries, err := os.ReadDir(filepath.Join(dir, manifest.MetadataDir)); err == nil {
		for _, e := range entries {
			name := manifest.MetadataDir + "/" + e.Name()
			if !manifest.IsMetadata(name) || !e.Type().IsRegular() {
				continue
			}
			if err := link(name); err != nil && !errors.Is(err, unix.ENOENT) {
				remove()
				return "", nil, fmt.Errorf("snapshot of %s: %w", name, err)
			}
		}
	}
	if err := link(manifest.FileName); err != nil {
		remove()
		return "", nil, err
	}
	// The index linked must be the one parsed: otherwise the tree changed
	// between reading it and linking, and the caller tries again later.
	if linked, err := os.ReadFile(filepath.Join(snap, manifest.FileName)); err != nil || string(linked) != string(index) {
		remove()
		return "", nil, errors.New("the tree changed while it was being loaded")
	}
	return snap, remove, nil
}

// lockedDir makes a new directory named prefix plus a random suffix,
// holding an exclusive lock on its .lock file for as long as the process
// lives or until remove is called, which deletes it. Another server's
// removeStaleSnapshots may delete the directory in the instant between
// its creation and the lock (it cannot tell it from one a crash left
// there); the lock file cannot be created then, and a new name is tried.
func lockedDir(prefix string) (dir string, remove func() error, err error) {
	for range 3 {
		var rnd [6]byte
		_, _ = rand.Read(rnd[:])
		dir = prefix + hex.EncodeToString(rnd[:])
		if err = os.Mkdir(dir, 0o755); err != nil {
			return "", nil, err
		}
		var lock *os.File
		lock, err = os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			err = unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		}
		// Removed before the lock goes, so no other server ever finds it
		// unlocked while it still holds files of this one.
		remove = func() error {
			err := os.RemoveAll(dir)
			if lock != nil {
				lock.Close()
			}
			return err
		}
		if err != nil {
			remove()
			return "", nil, err
		}
		return dir, remove, nil
	}
	return "", nil, fmt.Errorf("%s*: the new snapshot kept disappearing: %w", prefix, err)
}

// parents lists d and its ancestors, outermost first ("a/b" → a, a/b).
func parents(d string) []string {
	if d == "." || d == "" {
		return nil
	}
	return append(parents(path.Dir(d)), d)
}

// removeStaleSnapshots deletes the snapshots no live process holds
// locked: those of a server that crashed or was killed (a server that
// stops normally removes its own), also one that died before it could
// create its lock file, which is created here to take the lock.
func removeStaleSnapshots(prefix string) {
	dirs, _ := filepath.Glob(prefix + "*")
	for _, d := range dirs {
		f, err := os.OpenFile(filepath.Join(d, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			continue // removed right now, or not a directory of ours
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
			os.RemoveAll(d)
		}
		f.Close()
	}
}
