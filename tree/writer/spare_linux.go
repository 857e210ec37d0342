package writer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// spareTree is the generation before the one a run replaces, kept beside
// the output (the spare) and renamed to be the run's staging tree: every
// file the two generations share is already there, under its name, as
// the same inode as in the served tree, so taking it over costs nothing
// but the check of the served file (LinkPrevious) and no link.
//
// What the spare holds is never trusted for its bytes: a name is kept
// only when it is the very inode the generation would link (the served
// tree's file, checked as any file taken over, or the file put under
// another name), and every other name is removed before anything is
// linked or written under it, so no file of the spare (a hard link
// shared with the served tree and with serve's snapshots) is ever
// written to. Names the generation does not claim are removed at Commit.
type spareTree struct {
	// dev is the device the spare lives on: an inode number means a
	// file only together with it.
	dev  uint64
	dirs map[string]*spareDir // slash-separated relative path ("" or ending in '/') → directory
}

// spareDir is one directory of the spare, as read at Begin.
type spareDir struct {
	path string
	dev  uint64 // the spare's
	// claimed: the generation has a directory of this name (the root
	// always): its unclaimed entries are removed at Commit, rather than
	// the whole directory.
	claimed atomic.Bool
	mu      sync.Mutex
	// files holds the regular files not yet claimed, by name: the inode
	// number the directory entry names (d_ino).
	files map[string]uint64
	// subdirs holds the subdirectories, by name: whether the generation
	// claimed it.
	subdirs map[string]bool
	// inos holds the inode number of each name the generation put in
	// this directory, 0 for a file it created: a duplicate linked to
	// one of them (Link) is kept when the spare already has it as that
	// inode.
	inos map[string]uint64
}

// readSpare reads the spare now at root (the run's staging tree): the
// names, inode numbers and types of its entries, with one getdents pass
// per directory. Anything that is neither a regular file nor a directory
// (a symbolic link, a device, a FIFO) is removed at once, not followed;
// a directory that cannot be read, or is on another device (a mount),
// fails the whole spare, which the caller then trashes.
//
// The inode numbers are those of the directory entries, not of a stat of
// each name (which would cost as much as the links the spare saves): on
// Linux's file systems the d_ino of an entry is the st_ino of the file it
// names, and the spare is the run's own directory, renamed under the
// run's lock, so nothing else changes it while it is read and used. A
// name is matched with a file of the served tree only on the same device
// as the spare's, where the number names one inode, and while the spare's
// entry still links it (so the number cannot have been reused).
func readSpare(root string) (*spareTree, error) {
	rootFd, err := retryEINTR(func() (int, error) {
		return unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return nil, fmt.Errorf("spare %s: %w", root, err)
	}
	defer unix.Close(rootFd)
	var st unix.Stat_t
	if err := unix.Fstat(rootFd, &st); err != nil {
		return nil, fmt.Errorf("spare %s: %w", root, err)
	}
	t := &spareTree{dev: st.Dev, dirs: map[string]*spareDir{}}
	buf := make([]byte, 64<<10)
	queue := []string{""}
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		d, subdirs, err := t.readDir(rootFd, root, rel, buf)
		if err != nil {
			return nil, err
		}
		t.dirs[rel] = d
		queue = append(queue, subdirs...)
	}
	t.dirs[""].claimed.Store(true)
	return t, nil
}

// readDir reads the spare's directory rel, opened beneath the spare
// without following a symbolic link, and returns it with its
// subdirectories' relative paths.
func (t *spareTree) readDir(rootFd int, root, rel string, buf []byte) (*spareDir, []string, error) {
	name := rel
	if name == "" {
		name = "."
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	fd, err := retryEINTR(func() (int, error) {
		return unix.Openat2(rootFd, name, &unix.OpenHow{
			Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: resolveInTree | unix.RESOLVE_NO_XDEV,
		})
	})
	if err != nil {
		return nil, nil, fmt.Errorf("spare %s: %w", p, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Dev != t.dev {
		return nil, nil, fmt.Errorf("spare %s: not on the spare's device (%v)", p, err)
	}
	// Its names are unlinked as the generation goes: a directory that
	// is not this user's to change (made read-only since) would fail
	// the run half-way, rather than the spare now.
	if st.Uid != uint32(os.Getuid()) || st.Mode&0o300 != 0o300 {
		return nil, nil, fmt.Errorf("spare %s: not a directory this user may change (mode %o, owner %d)", p, st.Mode&0o777, st.Uid)
	}
	d := &spareDir{path: p, dev: t.dev, files: map[string]uint64{}, subdirs: map[string]bool{}}
	var subdirs []string
	for {
		n, err := retryEINTR(func() (int, error) { return unix.Getdents(fd, buf) })
		if err != nil {
			return nil, nil, fmt.Errorf("spare %s: %w", p, err)
		}
		if n == 0 {
			break
		}
		for b := buf[:n]; len(b) > 0; {
			ino, typ, entry, reclen, ok := parseDirent(b)
			if !ok {
				return nil, nil, fmt.Errorf("spare %s: malformed directory entry", p)
			}
			b = b[reclen:]
			if entry == "." || entry == ".." {
				continue
			}
			if typ == unix.DT_UNKNOWN {
				// File systems that do not record types in entries.
				var est unix.Stat_t
				if err := fstatat(fd, entry, &est); err != nil {
					return nil, nil, fmt.Errorf("spare %s: %w", filepath.Join(p, entry), err)
				}
				switch est.Mode & unix.S_IFMT {
				case unix.S_IFREG:
					typ = unix.DT_REG
				case unix.S_IFDIR:
					typ = unix.DT_DIR
				}
			}
			switch typ {
			case unix.DT_REG:
				d.files[entry] = ino
			case unix.DT_DIR:
				d.subdirs[entry] = false
				subdirs = append(subdirs, rel+entry+"/")
			default:
				// Never followed nor kept: removed as the link or
				// node it is.
				if err := unix.Unlinkat(fd, entry, 0); err != nil && err != unix.ENOENT {
					return nil, nil, fmt.Errorf("spare %s: removing it: %w", filepath.Join(p, entry), err)
				}
			}
		}
	}
	// The generation puts about the names the spare has: recording them
	// grows no table.
	d.inos = make(map[string]uint64, len(d.files))
	return d, subdirs, nil
}

// parseDirent parses the linux_dirent64 at the start of b.
func parseDirent(b []byte) (ino uint64, typ uint8, name string, reclen int, ok bool) {
	const nameOff = 19 // d_ino (8), d_off (8), d_reclen (2), d_type (1)
	if len(b) < nameOff {
		return 0, 0, "", 0, false
	}
	ino = binary.NativeEndian.Uint64(b[0:8])
	reclen = int(binary.NativeEndian.Uint16(b[16:18]))
	if reclen < nameOff || reclen > len(b) {
		return 0, 0, "", 0, false
	}
	typ = b[18]
	raw := b[nameOff:reclen]
	end := 0
	for end < len(raw) && raw[end] != 0 {
		end++
	}
	if end == 0 || end == len(raw) {
		return 0, 0, "", 0, false
	}
	return ino, typ, string(raw[:end]), reclen, true
}

// claimDir claims the directories of rel in the spare, from the root
// down, removing a file that has the name of one, and returns the spare's
// directory rel (nil when the spare has none: it is a new one).
func (t *spareTree) claimDir(rel string) (*spareDir, error) {
	d := t.dirs[""]
	for start := 0; start < len(rel); {
		end := start
		for rel[end] != '/' {
			end++
		}
		name := rel[start:end]
		d.mu.Lock()
		_, isFile := d.files[name]
		delete(d.files, name)
		_, isDir := d.subdirs[name]
		if isDir {
			d.subdirs[name] = true
		}
		d.mu.Unlock()
		if isFile {
			if err := unlinkName(filepath.Join(d.path, name)); err != nil {
				return nil, err
			}
		}
		if !isDir {
			return nil, nil
		}
		d = t.dirs[rel[:end+1]]
		d.claimed.Store(true)
		start = end + 1
	}
	return d, nil
}

// unlinkName removes the file p, already gone being fine.
func unlinkName(p string) error {
	if err := unix.Unlink(p); err != nil && err != unix.ENOENT {
		return &os.PathError{Op: "unlink", Path: p, Err: err}
	}
	return nil
}

// settle prepares base, about to be the inode ino (0: a file the run
// creates), in d: it reports true when the spare already has it as that
// inode (claimed: nothing to do), and otherwise removes whatever the
// spare holds under that name, so that the caller links or creates a new
// name and never writes into a file of the spare.
func (d *treeDir) settle(base string, ino uint64) (kept bool, err error) {
	s := d.spare
	if s == nil {
		return false, nil
	}
	s.mu.Lock()
	had, isFile := s.files[base]
	delete(s.files, base)
	if isFile && ino != 0 && had == ino {
		s.inos[base] = ino
		s.mu.Unlock()
		d.counts.addKept()
		return true, nil
	}
	claimedDir, isDir := s.subdirs[base]
	removeDir := isDir && !claimedDir
	if removeDir {
		delete(s.subdirs, base)
	}
	s.mu.Unlock()
	if isFile {
		dir, name := d.at(base)
		if err := unix.Unlinkat(dir, name, 0); err != nil && err != unix.ENOENT {
			return false, &os.PathError{Op: "unlink", Path: filepath.Join(d.path, base), Err: err}
		}
	}
	if removeDir {
		if err := removeTree(filepath.Join(d.path, base)); err != nil {
			return false, fmt.Errorf("output: %w", err)
		}
	}
	return false, nil
}

// record notes that base in d is now the inode ino (0: a file created).
func (d *treeDir) record(base string, ino uint64) {
	if s := d.spare; s != nil {
		s.mu.Lock()
		s.inos[base] = ino
		s.mu.Unlock()
	}
}

// recorded is the inode base in d was put as, if recorded.
func (d *treeDir) recorded(base string) (uint64, bool) {
	s := d.spare
	if s == nil {
		return 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ino, ok := s.inos[base]
	return ino, ok
}

// keepLink is Link's check of the spare: it reports true when dst/base
// is already the inode src/srcBase is, and otherwise clears the name.
func keepLink(src *treeDir, srcBase string, dst *treeDir, base string) (bool, error) {
	if dst.spare == nil {
		return false, nil
	}
	ino, ok := src.recorded(srcBase)
	if !ok {
		var st unix.Stat_t
		dir, name := src.at(srcBase)
		if fstatat(dir, name, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
			ino = st.Ino
		}
	}
	return dst.settle(base, ino)
}

// clean removes what the spare held that the generation did not claim:
// the files left in its claimed directories and the directories it did
// not claim, whole. The staging tree then holds exactly the generation.
func (t *spareTree) clean() error {
	var errs []error
	for _, d := range t.dirs {
		if !d.claimed.Load() {
			continue // inside a directory removed whole
		}
		d.mu.Lock()
		for name := range d.files {
			if err := unlinkName(filepath.Join(d.path, name)); err != nil {
				errs = append(errs, err)
			}
		}
		clear(d.files)
		var gone []string
		for name, claimed := range d.subdirs {
			if !claimed {
				gone = append(gone, filepath.Join(d.path, name))
				delete(d.subdirs, name)
			}
		}
		d.mu.Unlock()
		if len(gone) > 0 {
			removeAll(gone)
			for _, p := range gone {
				if _, err := os.Lstat(p); err == nil {
					errs = append(errs, fmt.Errorf("output: could not remove %s", p))
				}
			}
		}
	}
	return errors.Join(errs...)
}

// spareSupported: the replaced generation is kept as the spare.
const spareSupported = true

// ownedHere reports whether st, the spare's Lstat, is a directory this
// user owns on the file system of parent, the output's directory.
func ownedHere(st os.FileInfo, parent string) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok || !st.IsDir() || sys.Uid != uint32(os.Getuid()) {
		return false
	}
	var pst unix.Stat_t
	return unix.Stat(parent, &pst) == nil && pst.Dev == sys.Dev
}
