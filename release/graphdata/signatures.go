package graphdata

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/upgraph/upgraph/internal/regularfile"
)

// Release signatures, as clusters fetch them from a signature store
// (spec §6.9; ecosystem §4.8): graph-data keeps them as
// signatures/sha256/<hex>/signature-<N> since schema 1.2.0, a store such
// as mirror.openshift.com serves sha256=<hex>/signature-<N>.
const (
	// MaxSignatures is how many numbers a cluster tries per release:
	// library-go's sigstore reads signature-<N> only while N < 10.
	MaxSignatures = 9
	// MaxSignatureSize is the most a cluster reads of one signature.
	MaxSignatureSize = 50 << 10
)

// Signature is one signature file and where it came from.
type Signature struct {
	File string // path as read, for messages
	Data []byte
}

// Signatures are release signatures by payload digest ("sha256:<hex>").
// Element i is signature-<i+1>; a zero Signature is a number with no file,
// which clients treat as the end of the list.
type Signatures map[string][]Signature

var (
	digestHex     = regexp.MustCompile(`^[0-9a-f]{64}$`)
	signatureName = regexp.MustCompile(`^signature-([1-9][0-9]*)$`)
)

// LoadSignatures reads a signature directory in the graph-data layout
// (sha256/<hex>/signature-<N>), the signature-store layout
// (sha256=<hex>/signature-<N>), or a mix of both. name is the directory as
// the user gave it; messages and Signature.File start with it. Files that
// are clearly not signatures (README.md, OWNERS) are handled as stray
// graph-data files are under opts; a file named signature-… that cannot
// be served, or an unexpected directory, is an error.
func LoadSignatures(fsys fs.FS, name string, opts Options) (Signatures, []*Problem, error) {
	gd := &GraphData{}
	l := &loader{fsys: fsys, opts: opts, gd: gd, dg: &digester{}, prefix: name}
	l.signatures(".", true)
	if len(l.errs) > 0 {
		return nil, gd.Warnings, joinErrors(l.errs)
	}
	return gd.Signatures, gd.Warnings, nil
}

// graphDataSignatures reads signatures/ when the tree has one; upstream's
// graph-builder never reads it (spec §3.10), only its metadata-helper does.
func (l *loader) graphDataSignatures() {
	if _, err := fs.Stat(l.fsys, "signatures"); err != nil {
		return
	}
	l.signatures("signatures", false)
}

// signatures walks root, which holds sha256/ (and, for a signature store,
// sha256=<hex>/ directories).
func (l *loader) signatures(root string, sigstore bool) {
	l.eachEntry(root, func(p string, dir bool) {
		name := path.Base(p)
		switch {
		case !dir:
			l.strayFile(p)
		case name == "sha256":
			l.eachEntry(p, func(p string, dir bool) {
				if !dir {
					l.strayFile(p)
					return
				}
				l.digestDir(p, path.Base(p))
			})
		case sigstore && strings.HasPrefix(name, "sha256="):
			l.digestDir(p, strings.TrimPrefix(name, "sha256="))
		default:
			want := "sha256/<hex>/"
			if sigstore {
				want += " or sha256=<hex>/"
			}
			l.fail(p, "unexpected directory: signatures live in "+want)
		}
	})
}

// digestDir reads the signature-<N> files of one release.
func (l *loader) digestDir(dir, hex string) {
	if !digestHex.MatchString(hex) {
		l.fail(dir, "not a sha256 digest: want 64 lower-case hex digits")
		return
	}
	l.eachEntry(dir, func(p string, isDir bool) {
		if isDir {
			l.fail(p, "unexpected directory: want signature-<N> files only")
			return
		}
		m := signatureName.FindStringSubmatch(path.Base(p))
		if m == nil {
			l.strayFile(p)
			return
		}
		if n, err := strconv.Atoi(m[1]); err == nil && n <= MaxSignatures {
			l.signatureFile(p, "sha256:"+hex, n)
			return
		}
		l.gd.Warnings = append(l.gd.Warnings, &Problem{File: l.show(p),
			Message: fmt.Sprintf("clusters read signature-1 to signature-%d only; not published", MaxSignatures)})
	})
}

func (l *loader) signatureFile(p, digest string, n int) {
	data, err := regularfile.Read(l.fsys, p, l.show(p), false, MaxSignatureSize)
	var large *regularfile.TooLargeError
	switch {
	case errors.As(err, &large):
		l.fail(p, fmt.Sprintf("over %d bytes, more than clusters read of a signature", MaxSignatureSize))
		return
	case err != nil:
		l.fail(p, err.Error())
		return
	case len(data) == 0:
		l.fail(p, "empty, which is no signature")
		return
	}
	l.dg.add(p, data)
	if l.gd.Signatures == nil {
		l.gd.Signatures = Signatures{}
	}
	if err := l.gd.Signatures.add(digest, n, Signature{File: l.show(p), Data: data}); err != nil {
		l.errs = append(l.errs, err)
	}
}

// strayFile handles a file that is not a signature: a README or OWNERS is
// skipped like stray files elsewhere in graph-data, but a signature-…
// file that clients could never fetch is a mistake worth stopping for.
func (l *loader) strayFile(p string) {
	name := path.Base(p)
	if strings.HasPrefix(name, "signature-") {
		l.fail(p, "not a servable signature: want sha256/<hex>/signature-<N> with N from 1, no leading zero")
		return
	}
	c := MissingExtension
	if extension(name) != "" {
		c = InvalidExtension
	}
	l.report(&Problem{File: l.show(p), Category: c, Message: "not a signature file, ignored"})
}

// eachEntry calls fn for every entry of dir, following symbolic links to
// tell directories from files (mirrored stores are sometimes linked).
func (l *loader) eachEntry(dir string, fn func(p string, isDir bool)) {
	entries, err := fs.ReadDir(l.fsys, dir)
	if err != nil {
		l.fail(dir, err.Error())
		return
	}
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			st, err := fs.Stat(l.fsys, p)
			isDir = err == nil && st.IsDir()
		}
		fn(p, isDir)
	}
}

func (l *loader) fail(p, msg string) {
	l.errs = append(l.errs, &Problem{File: l.show(p), Message: msg})
}

// show is p as the user knows it.
func (l *loader) show(p string) string {
	if l.prefix == "" {
		return p
	}
	return path.Join(l.prefix, p)
}

// add records signature-<n> of digest. The same file read twice (from two
// sources or both layouts) is fine; two different ones under one name
// would make the published store depend on which source was read last.
func (s Signatures) add(digest string, n int, sig Signature) error {
	list := s[digest]
	if len(list) < n {
		list = append(list, make([]Signature, n-len(list))...)
		s[digest] = list
	}
	old := &list[n-1]
	switch {
	case old.Data == nil:
		*old = sig
	case string(old.Data) != string(sig.Data):
		return fmt.Errorf("%s and %s are both signature-%d of %s but differ", old.File, sig.File, n, digest)
	}
	return nil
}

// Merge returns the union of s and other (either may be nil), failing on
// every number of a digest both hold with different bytes.
func (s Signatures) Merge(other Signatures) (Signatures, error) {
	out := Signatures{}
	var errs []error
	for _, src := range []Signatures{s, other} {
		digests := make([]string, 0, len(src))
		for d := range src {
			digests = append(digests, d)
		}
		slices.Sort(digests)
		for _, d := range digests {
			for i, sig := range src[d] {
				if sig.Data == nil {
					continue
				}
				if err := out.add(d, i+1, sig); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// Contents drops the provenance: element i of a digest's list is the
// content of signature-<i+1>, nil for a missing number.
func (s Signatures) Contents() map[string][][]byte {
	if len(s) == 0 {
		return nil
	}
	out := make(map[string][][]byte, len(s))
	for d, list := range s {
		c := make([][]byte, len(list))
		for i, sig := range list {
			c[i] = sig.Data
		}
		out[d] = c
	}
	return out
}
