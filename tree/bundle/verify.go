package bundle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"runtime"
	"sync"

	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/tree/manifest"
)

// Limits bound what reading a bundle may cost, since one may come from
// anywhere: a gzip stream can expand a thousandfold.
type Limits struct {
	// MaxIndexBytes bounds index.json (default 512 MiB; the real-scale
	// tree's is about 10 MiB).
	MaxIndexBytes int64
	// MaxBytes bounds the content of all entries together (default 64 GiB;
	// the real-scale tree holds 1.3 GB of distinct content).
	MaxBytes int64
	// MaxExtraEntries bounds the entries of a bundle beyond index.json and
	// the files it lists (default 100,000; a bundle's only others are its
	// TUF metadata), each of which costs a header, and a problem, however
	// small the compressed stream.
	MaxExtraEntries int
}

func (l Limits) withDefaults() Limits {
	if l.MaxIndexBytes <= 0 {
		l.MaxIndexBytes = 512 << 20
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = 64 << 30
	}
	if l.MaxExtraEntries <= 0 {
		l.MaxExtraEntries = 100_000
	}
	return l
}

// Summary describes what was verified.
type Summary struct {
	Manifest *manifest.Manifest
	// Bundle is true for a bundle, false for a tree directory.
	Bundle bool
	// SHA256 is the bundle file's digest (bundles only).
	SHA256 string
	// Checksummed is true when a .sha256 file beside the bundle was found
	// and matched.
	Checksummed bool
}

// Verify checks the tree directory or bundle file at p: index.json is
// consistent with itself, every file it lists is present with its size
// and sha256, nothing else is there, and a bundle matches the checksum
// file beside it (p + ".sha256"), when there is one. Any failure is an
// *Error naming every bad file.
//
// Inside a tree nothing unlisted is excused but a signed tree's TUF
// metadata (manifest.MetadataDir, regular files of its names): upgraph's staging
// directories, lock files and serving snapshots all live beside the
// tree, never in it.
func Verify(ctx context.Context, p string, lim Limits) (*Summary, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return verifyDir(ctx, p, lim.withDefaults())
	}
	return scanBundle(ctx, p, lim.withDefaults(), nil)
}

func verifyDir(ctx context.Context, dir string, lim Limits) (*Summary, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	m, ps := readIndex(root, lim)
	if m == nil {
		return nil, ps.err(dir)
	}
	ps = append(ps, ManifestProblems(m)...)

	seen := map[string]bool{}
	// Hard links (identical graphs, stored once) are hashed once: that is
	// a third of a real-scale tree's bytes.
	var contents [][]string
	content := map[any]int{}
	err = fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			ps.add(name, "%v", err)
		case d.IsDir() || name == manifest.FileName:
		case manifest.IsMetadata(name) && d.Type().IsRegular():
			// TUF metadata, which index.json cannot list: tree/sign
			// checks it when verifying with a trusted root.
		case !listed(m, name):
			ps.add(name, "not listed in index.json")
		case !d.Type().IsRegular():
			seen[name] = true
			ps.add(name, "not a regular file (%s)", d.Type())
		default:
			seen[name] = true
			var id any = name
			if info, err := d.Info(); err == nil {
				if fid, ok := fileID(info); ok {
					id = fid
				}
			}
			i, ok := content[id]
			if !ok {
				i = len(contents)
				content[id] = i
				contents = append(contents, nil)
			}
			contents[i] = append(contents[i], name)
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	bad, err := hashFiles(ctx, root, m, contents)
	if err != nil {
		return nil, err
	}
	ps = append(ps, bad...)
	for name := range m.Files {
		if !seen[name] {
			ps.add(name, "missing")
		}
	}
	if err := ps.err(dir); err != nil {
		return nil, err
	}
	return &Summary{Manifest: m}, nil
}

func listed(m *manifest.Manifest, name string) bool {
	_, ok := m.Files[name]
	return ok
}

// readIndex reads and parses index.json; a nil manifest means nothing
// else can be checked.
func readIndex(root *os.Root, lim Limits) (*manifest.Manifest, problems) {
	var ps problems
	st, err := root.Lstat(manifest.FileName)
	if err != nil {
		ps.add(manifest.FileName, "%v", err)
		return nil, ps
	}
	if !st.Mode().IsRegular() || st.Size() > lim.MaxIndexBytes {
		ps.add(manifest.FileName, "not a regular file of at most %d bytes", lim.MaxIndexBytes)
		return nil, ps
	}
	data, err := root.ReadFile(manifest.FileName)
	if err != nil {
		ps.add(manifest.FileName, "%v", err)
		return nil, ps
	}
	m, err := manifest.Parse(data)
	if err != nil {
		ps.add(manifest.FileName, "%v", err)
		return nil, ps
	}
	return m, nil
}

// hashFiles checks the files' sizes and digests on all CPUs: hashing is
// what verifying a real-scale tree costs. Each element of contents is the
// names of one file (several when hard-linked), read once.
func hashFiles(ctx context.Context, root *os.Root, m *manifest.Manifest, contents [][]string) (problems, error) {
	var (
		mu sync.Mutex
		ps problems
	)
	// The files' problems are collected, never returned: only ctx stops
	// the run.
	_ = parallel.Run(ctx, runtime.GOMAXPROCS(0), len(contents), func(_ context.Context, _, i int) error {
		names := contents[i]
		size, sum, err := hashFile(root, names[0])
		mu.Lock()
		defer mu.Unlock()
		for _, name := range names {
			want := m.Files[name]
			switch {
			case err != nil:
				ps.add(name, "%v", err)
			case size != want.Size:
				ps.add(name, "%d bytes, index.json says %d", size, want.Size)
			case sum != want.SHA256:
				ps.add(name, "content does not match its sha256 in index.json")
			}
		}
		return nil
	})
	return ps, ctx.Err()
}

func hashFile(root *os.Root, name string) (int64, string, error) {
	f, err := root.Open(name)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return n, hex.EncodeToString(h.Sum(nil)), err
}
