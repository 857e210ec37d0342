package bundle

import (
	"archive/tar"
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/upgraph/upgraph/tree/manifest"
)

// ChecksumSuffix names the sha256sum file written beside a bundle.
const ChecksumSuffix = ".sha256"

// scanBundle reads the bundle at file in one pass: it checks every entry
// against index.json, hashes the whole file for the checksum file beside
// it, and, when dst is not nil, writes the entries there, index.json
// last, so that a directory without index.json is an extraction that
// failed.
func scanBundle(ctx context.Context, file string, lim Limits, dst *os.Root) (*Summary, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	base := filepath.Base(file)
	var ps problems
	want, err := readChecksum(file + ChecksumSuffix)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		ps.add(base+ChecksumSuffix, "%v", err)
	}
	h := sha256.New()
	in := io.TeeReader(f, h)
	r := &reader{ctx: ctx, lim: lim, dst: dst, bundle: base}
	m, err := r.read(in)
	if err != nil {
		return nil, err
	}
	ps = append(ps, r.ps...)
	// Bytes after the archive are part of the file the checksum covers.
	if _, err := io.Copy(io.Discard, in); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if want != "" && sum != want {
		ps.add(base, "sha256 is %s, %s says %s", sum, base+ChecksumSuffix, want)
	}
	if err := ps.err(file); err != nil {
		return nil, err
	}
	return &Summary{Manifest: m, Bundle: true, SHA256: sum, Checksummed: want != ""}, nil
}

// readChecksum reads a sha256sum file naming one file: "<hex>  <name>".
func readChecksum(name string) (string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return "", err
	}
	want := strings.TrimSuffix(filepath.Base(name), ChecksumSuffix)
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		sum, file, ok := strings.Cut(sc.Text(), " ")
		file = strings.TrimPrefix(strings.TrimPrefix(file, " "), "*")
		if ok && hexSHA256.MatchString(sum) && path.Base(filepath.ToSlash(file)) == want {
			return sum, nil
		}
	}
	return "", fmt.Errorf("no line \"<sha256>  %s\" in sha256sum format", want)
}

// reader checks (and maybe extracts) one bundle stream.
type reader struct {
	ctx    context.Context
	lim    Limits
	dst    *os.Root
	bundle string // the bundle's base name, for problems of the archive
	ps     problems

	m      *manifest.Manifest
	seen   map[string]bool
	sums   map[string]string // actual sha256 of each file read, for its links
	dirs   map[string]bool   // directories made in dst
	budget int64             // content bytes still allowed
}

// read returns the bundle's manifest; problems are in r.ps. An error is
// returned only for a cancelled context or a failure to write.
func (r *reader) read(in io.Reader) (*manifest.Manifest, error) {
	gz, err := gzip.NewReader(in)
	if err != nil {
		r.ps.add(r.bundle, "not a gzip stream: %v", err)
		return nil, nil
	}
	tr := tar.NewReader(gz)
	index, ok := r.readIndex(tr)
	if !ok {
		return nil, nil
	}
	r.ps = append(r.ps, ManifestProblems(r.m)...)
	r.seen = map[string]bool{}
	r.sums = map[string]string{}
	r.dirs = map[string]bool{}
	r.budget = r.lim.MaxBytes
	entries := 1
	for {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err == nil && entries-1-len(r.m.Files) >= r.lim.MaxExtraEntries {
			r.ps.add(r.bundle, "more than %d entries beyond index.json and the %d files it lists: not read further", r.lim.MaxExtraEntries, len(r.m.Files))
			return r.m, nil
		}
		if err == nil {
			err = r.entry(tr, hdr)
		}
		if err != nil {
			var we *writeError
			if errors.As(err, &we) {
				return nil, we.err
			}
			r.ps.add(r.bundle, "unreadable after %d entries: %v", entries, err)
			if missing := len(r.m.Files) - len(r.seen); missing > 0 {
				r.ps.add(r.bundle, "%d listed files not reached", missing)
			}
			return r.m, nil
		}
		entries++
	}
	for name := range r.m.Files {
		if !r.seen[name] {
			r.ps.add(name, "missing from the bundle")
		}
	}
	if r.dst != nil && len(r.ps) == 0 {
		if err := r.dst.WriteFile(manifest.FileName, index, 0o644); err != nil {
			return nil, err
		}
	}
	return r.m, nil
}

// readIndex reads the first entry, which must be index.json: a stream
// can only be checked entry by entry once the manifest is known.
func (r *reader) readIndex(tr *tar.Reader) ([]byte, bool) {
	hdr, err := tr.Next()
	if err != nil {
		r.ps.add(r.bundle, "not a tar archive: %v", err)
		return nil, false
	}
	if hdr.Name != manifest.FileName || hdr.Typeflag != tar.TypeReg || hdr.Size > r.lim.MaxIndexBytes {
		r.ps.add(r.bundle, "first entry is %q, want index.json as a regular file of at most %d bytes: not an upgraph bundle", hdr.Name, r.lim.MaxIndexBytes)
		return nil, false
	}
	index, err := io.ReadAll(tr)
	if err != nil {
		r.ps.add(r.bundle, "reading index.json: %v", err)
		return nil, false
	}
	if r.m, err = manifest.Parse(index); err != nil {
		r.ps.add(manifest.FileName, "%v", err)
		return nil, false
	}
	return index, true
}

// writeError marks a failure to write the extracted tree, which is not a
// problem of the bundle.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

// entry checks one entry; an error means the stream cannot be read on.
func (r *reader) entry(tr *tar.Reader, hdr *tar.Header) error {
	name := hdr.Name
	want, ok := r.m.Files[name]
	switch {
	case !fs.ValidPath(name) || strings.Contains(name, `\`) || name == manifest.FileName:
		// Even when index.json lists it: os.Root would refuse to write
		// outside the tree, but nothing of the kind is worth trying.
		r.ps.add(name, "not a valid file name for a tree")
		return r.skip(hdr)
	case !ok && manifest.IsMetadata(name) && hdr.Typeflag == tar.TypeReg && !r.seen[name]:
		// TUF metadata, which index.json cannot list: carried as it is,
		// checked by tree/sign when verifying with a trusted root.
		r.seen[name] = true
		if err := r.charge(hdr.Size); err != nil {
			return err
		}
		_, err := r.copy(tr, name)
		return err
	case !ok:
		r.ps.add(name, "not listed in index.json")
		return r.skip(hdr)
	case r.seen[name]:
		r.ps.add(name, "appears twice in the bundle")
		return r.skip(hdr)
	}
	r.seen[name] = true
	switch hdr.Typeflag {
	case tar.TypeReg:
		if hdr.Size != want.Size {
			r.ps.add(name, "%d bytes, index.json says %d", hdr.Size, want.Size)
			return r.skip(hdr)
		}
		if err := r.charge(hdr.Size); err != nil {
			return err
		}
		sum, err := r.copy(tr, name)
		if err != nil {
			return err
		}
		r.sums[name] = sum
		if sum != want.SHA256 {
			r.ps.add(name, "content does not match its sha256 in index.json")
		}
	case tar.TypeLink:
		sum, ok := r.sums[hdr.Linkname]
		switch {
		case !ok:
			r.ps.add(name, "hard link to %q, which is not an earlier file of the bundle", hdr.Linkname)
		case sum != want.SHA256:
			r.ps.add(name, "hard link to %s, whose content does not match this file's sha256 in index.json", hdr.Linkname)
		default:
			r.sums[name] = sum
			if r.dst != nil {
				if err := r.mkdir(name); err != nil {
					return err
				}
				if err := r.dst.Link(hdr.Linkname, name); err != nil {
					return &writeError{err}
				}
			}
		}
	default:
		r.ps.add(name, "not a regular file (tar type %q)", hdr.Typeflag)
		return r.skip(hdr)
	}
	return nil
}

// skip charges an entry's content, which tar reads through to the next
// header, so that a bad entry cannot make the reader inflate without end:
// that of every type tar gives content, unknown ones included.
func (r *reader) skip(hdr *tar.Header) error {
	switch hdr.Typeflag {
	case tar.TypeLink, tar.TypeSymlink, tar.TypeChar, tar.TypeBlock, tar.TypeDir, tar.TypeFifo:
		return nil // header only: tar reads no content
	}
	return r.charge(hdr.Size)
}

func (r *reader) charge(n int64) error {
	if n > r.budget {
		return fmt.Errorf("content exceeds the limit of %d bytes", r.lim.MaxBytes)
	}
	r.budget -= n
	return nil
}

// copy hashes an entry's content and, when extracting, writes it.
func (r *reader) copy(tr *tar.Reader, name string) (string, error) {
	h := sha256.New()
	if r.dst == nil {
		if _, err := io.Copy(h, tr); err != nil {
			return "", err
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	if err := r.mkdir(name); err != nil {
		return "", err
	}
	f, err := r.dst.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", &writeError{err}
	}
	_, err = io.Copy(io.MultiWriter(h, fileWriter{f}), tr)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = &writeError{cerr}
	}
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// mkdir creates the directory of name in the extracted tree, once.
func (r *reader) mkdir(name string) error {
	dir := path.Dir(name)
	if r.dirs[dir] {
		return nil
	}
	if err := r.dst.MkdirAll(dir, 0o755); err != nil {
		return &writeError{err}
	}
	r.dirs[dir] = true
	return nil
}

// fileWriter tells write failures from read failures in io.Copy.
type fileWriter struct{ f *os.File }

func (w fileWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		err = &writeError{err}
	}
	return n, err
}
