package source

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/upgraph/upgraph/internal/zstdlimit"
)

// Whiteout markers (OCI image-spec layer.md, as Docker and oc-mirror
// write them): ".wh.NAME" deletes NAME of the layers below; a directory
// holding ".wh..wh..opq" hides what the layers below had in it.
const (
	whiteoutPrefix = ".wh."
	opaqueMarker   = ".wh..wh..opq"
)

// extractStats says what an extraction read and wrote.
type extractStats struct {
	Found        bool   // the directory exists in the image
	NotDir       string // what the image has at the directory's path instead, if anything
	Files        int
	Bytes        int64
	LayersRead   int
	LayersTotal  int
	SkippedLinks int
}

// extractor copies one directory of an image's filesystem, as the image's
// layers stack up, to dest. The layers are read top down, and a path is
// written only by the highest layer that has it, unless a layer above
// hides it: a whiteout of the path or of a directory above it, an opaque
// marker in a directory above it, or a non-directory at a path above it.
// That is the result of applying the layers bottom up (later layers
// replacing files, whiteouts deleting them, opaque directories emptying
// them), but no file is written twice and nothing is ever deleted; and
// once a layer hides the whole directory from the layers below (oc-mirror
// rebuilds a catalog as a ".wh.configs" layer under a new configs layer),
// the layers below are not downloaded at all.
//
// Only entries under the directory are written (and only regular files);
// a link under it is materialised as a copy of the regular file it leads
// to, which must be under the directory too. Everything else in the
// layers is read past as the stream goes by, never stored.
type extractor struct {
	dir  string // relative to the image root, clean, not "."
	dest string
	// State of the layers above the current one.
	whiteouts map[string]bool
	opaque    map[string]bool
	present   map[string]bool // true: a directory
	// The current layer.
	curWhiteouts, curOpaque []string
	curPresent              map[string]bool
	links                   map[string]link
	stats                   extractStats
}

type link struct {
	target string // relative to the image root, clean
	hard   bool
	raw    string
}

func newExtractor(dir, dest string) *extractor {
	return &extractor{
		dir:        dir,
		dest:       dest,
		whiteouts:  map[string]bool{},
		opaque:     map[string]bool{},
		present:    map[string]bool{},
		curPresent: map[string]bool{},
		links:      map[string]link{},
	}
}

// extract copies dir of img to dest (created if need be).
func extract(ctx context.Context, img v1.Image, dir, dest string) (extractStats, error) {
	x := newExtractor(dir, dest)
	layers, err := img.Layers()
	if err != nil {
		return x.stats, err
	}
	x.stats.LayersTotal = len(layers)
	for i := len(layers) - 1; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			return x.stats, err
		}
		if err := x.layer(ctx, layers[i]); err != nil {
			d, _ := layers[i].Digest()
			return x.stats, fmt.Errorf("layer %d (%s): %w", i+1, d, err)
		}
		x.stats.LayersRead++
		if x.dirHidden() {
			break
		}
	}
	if !x.stats.Found {
		return x.stats, nil
	}
	if err := x.resolveLinks(); err != nil {
		return x.stats, err
	}
	return x.stats, nil
}

// layer reads one layer to its end (so that its digest is verified),
// a zstd layer with a bounded window (zstdlimit.Uncompressed).
func (x *extractor) layer(ctx context.Context, l v1.Layer) error {
	rc, err := zstdlimit.Uncompressed(l)
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := x.entries(ctx, tar.NewReader(rc)); err != nil {
		return err
	}
	if _, err := io.Copy(io.Discard, rc); err != nil {
		return err
	}
	x.endLayer()
	return nil
}

func (x *extractor) entries(ctx context.Context, tr *tar.Reader) error {
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		p := cleanPath(h.Name)
		if p == "" {
			continue // the root itself
		}
		parent, base := path.Split(p)
		parent = strings.TrimSuffix(parent, "/")
		if base == opaqueMarker {
			if x.relevant(parent) {
				x.curOpaque = append(x.curOpaque, parent)
			}
			continue
		}
		if name, ok := strings.CutPrefix(base, whiteoutPrefix); ok {
			if t := path.Join(parent, name); x.relevant(t) {
				x.curWhiteouts = append(x.curWhiteouts, t)
			}
			continue
		}
		if !x.relevant(p) || x.hidden(p) {
			continue
		}
		if err := x.entry(p, h, tr); err != nil {
			return fmt.Errorf("%s: %w", h.Name, err)
		}
	}
}

// cleanPath makes a tar entry name relative to the root ("" for the root).
func cleanPath(name string) string {
	return strings.TrimPrefix(path.Clean("/"+name), "/")
}

func (x *extractor) under(p string) bool {
	return p == x.dir || strings.HasPrefix(p, x.dir+"/")
}

// relevant: p is the directory, under it, or above it.
func (x *extractor) relevant(p string) bool {
	return x.under(p) || p == "" || strings.HasPrefix(x.dir, p+"/")
}

// hidden reports whether a layer above hides p.
func (x *extractor) hidden(p string) bool {
	if _, ok := x.present[p]; ok {
		return true
	}
	for a := p; ; {
		if x.whiteouts[a] {
			return true
		}
		if a == "" {
			return false
		}
		a = parentOf(a)
		if x.opaque[a] {
			return true
		}
		if isDir, ok := x.present[a]; ok && !isDir {
			return true
		}
	}
}

func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// dirHidden reports whether the layers read hide the directory from the
// layers below: nothing below can show through.
func (x *extractor) dirHidden() bool {
	for a := x.dir; ; a = parentOf(a) {
		if x.whiteouts[a] || x.opaque[a] {
			return true
		}
		if isDir, ok := x.present[a]; ok && !isDir {
			return true
		}
		if a == "" {
			return false
		}
	}
}

// entry materialises a visible entry at p.
func (x *extractor) entry(p string, h *tar.Header, tr *tar.Reader) error {
	if !x.under(p) {
		// Above the directory: a non-directory there hides it below.
		if _, ok := x.curPresent[p]; !ok {
			x.curPresent[p] = h.Typeflag == tar.TypeDir
		}
		return nil
	}
	if p == x.dir {
		isDir := h.Typeflag == tar.TypeDir
		x.curPresent[p] = isDir
		if !isDir {
			// A file where the directory should be hides it.
			if x.stats.NotDir == "" && !x.stats.Found {
				x.stats.NotDir = describeEntry(h)
			}
			return nil
		}
		x.stats.Found = true
		return os.MkdirAll(x.dest, 0o755)
	}
	x.stats.Found = true
	x.markParents(p)
	rel := strings.TrimPrefix(strings.TrimPrefix(p, x.dir), "/")
	target := filepath.Join(x.dest, filepath.FromSlash(rel))
	switch h.Typeflag {
	case tar.TypeDir:
		x.curPresent[p] = true
		if st, err := os.Lstat(target); err == nil && !st.IsDir() {
			if err := os.Remove(target); err != nil {
				return err
			}
		}
		return os.MkdirAll(target, 0o755)
	case tar.TypeReg:
		x.curPresent[p] = false
		delete(x.links, p)
		n, err := writeFile(target, tr)
		if err != nil {
			return err
		}
		x.stats.Files++
		x.stats.Bytes += n
		return nil
	case tar.TypeSymlink, tar.TypeLink:
		x.curPresent[p] = false
		l := link{hard: h.Typeflag == tar.TypeLink, raw: h.Linkname}
		switch {
		case l.hard:
			l.target = cleanPath(h.Linkname)
		case path.IsAbs(h.Linkname):
			l.target = cleanPath(h.Linkname)
		default:
			l.target = cleanPath(path.Join(parentOf(p), h.Linkname))
		}
		x.links[p] = l
		return nil
	default:
		// Devices, fifos: not catalog files, but they hide what is below.
		x.curPresent[p] = false
		return nil
	}
}

// markParents records the directories above p (down from the directory
// itself) as present in the current layer: a directory of an upper layer
// replaces a file of a lower one.
func (x *extractor) markParents(p string) {
	for a := parentOf(p); x.under(a); a = parentOf(a) {
		if _, ok := x.curPresent[a]; ok {
			return
		}
		x.curPresent[a] = true
		if a == x.dir {
			return
		}
	}
}

func writeFile(target string, r io.Reader) (int64, error) {
	if st, err := os.Lstat(target); err == nil && st.IsDir() {
		if err := os.RemoveAll(target); err != nil {
			return 0, err
		}
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// endLayer applies the current layer's markers to the layers below.
func (x *extractor) endLayer() {
	for _, w := range x.curWhiteouts {
		x.whiteouts[w] = true
	}
	for _, o := range x.curOpaque {
		x.opaque[o] = true
	}
	for p, isDir := range x.curPresent {
		if _, ok := x.present[p]; !ok {
			x.present[p] = isDir
		}
	}
	x.curWhiteouts, x.curOpaque = x.curWhiteouts[:0], x.curOpaque[:0]
	clear(x.curPresent)
}

// maxLinkHops bounds how many links are followed, as the kernel does.
const maxLinkHops = 40

// resolveLinks writes each link as a copy of the regular file it leads to.
func (x *extractor) resolveLinks() error {
	for _, p := range slices.Sorted(maps.Keys(x.links)) {
		l := x.links[p]
		t := l.target
		for hops := 0; ; hops++ {
			if hops > maxLinkHops {
				return fmt.Errorf("/%s: too many levels of links", p)
			}
			if !x.under(t) || t == x.dir {
				return fmt.Errorf("/%s: link to /%s, outside the catalog directory /%s: links in a catalog must lead to its own files", p, t, x.dir)
			}
			next, ok := x.links[t]
			if !ok {
				break
			}
			t = next.target
		}
		src := filepath.Join(x.dest, filepath.FromSlash(strings.TrimPrefix(t, x.dir+"/")))
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			return fmt.Errorf("/%s: link to /%s, which is not a regular file of the image", p, t)
		}
		f, err := os.Open(src)
		if err != nil {
			return err
		}
		n, err := writeFile(filepath.Join(x.dest, filepath.FromSlash(strings.TrimPrefix(p, x.dir+"/"))), f)
		f.Close()
		if err != nil {
			return err
		}
		x.stats.Files++
		x.stats.Bytes += n
	}
	return nil
}

// describeEntry names what a non-directory entry is, in messages.
func describeEntry(h *tar.Header) string {
	switch h.Typeflag {
	case tar.TypeSymlink:
		return "a symbolic link to " + h.Linkname
	case tar.TypeLink:
		return "a hard link to /" + strings.TrimPrefix(h.Linkname, "/")
	case tar.TypeReg:
		return "a regular file"
	}
	return fmt.Sprintf("an entry of tar type %q", h.Typeflag)
}
