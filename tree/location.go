package tree

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/upgraph/upgraph/tree/ocitree"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// Kind is where a tree lives.
type Kind int

const (
	KindDir       Kind = iota + 1 // a directory written by upgraph generate
	KindBundle                    // a .tar.gz written by upgraph mirror --bundle
	KindHTTP                      // an http(s) host publishing a tree
	KindS3                        // s3://BUCKET/PREFIX, written by upgraph publish
	KindOCI                       // oci://REGISTRY/REPO:TAG|@DIGEST, written by upgraph push
	KindOCILayout                 // an OCI image layout directory holding such an image
	// KindEndpoint is a Cincinnati graph endpoint: no index.json, so not
	// a tree, but the commands that compare or mirror graphs read it.
	KindEndpoint
)

var kindNames = map[Kind]string{
	KindDir: "directory", KindBundle: "bundle", KindHTTP: "http", KindS3: "s3",
	KindOCI: "oci", KindOCILayout: "oci-layout", KindEndpoint: "graph endpoint",
}

func (k Kind) String() string { return kindNames[k] }

// LayoutScheme prefixes an OCI layout location that names a tag or a
// digest: oci-layout:PATH:TAG or oci-layout:PATH@sha256:HEX. A bare
// directory holding an OCI layout (an oci-layout file) is one too, read
// when it holds exactly one upgraph tree.
const LayoutScheme = "oci-layout:"

// Location is a parsed location string.
type Location struct {
	Kind Kind
	// Raw is the string parsed, for messages.
	Raw string
	// Path is a directory, bundle or OCI layout on this machine.
	Path string
	// URL is an http(s) tree or graph endpoint.
	URL *url.URL
	// Bucket and Prefix are an s3:// tree's.
	Bucket, Prefix string
	// Ref is an oci:// reference, or an OCI layout's tag or digest
	// ("" for the layout's only tree).
	Ref string
}

// Syntax is the one-line summary of what ParseLocation accepts, for flag
// usage and errors.
const Syntax = "DIR, BUNDLE.tar.gz, http(s)://HOST/PATH, s3://BUCKET/PREFIX, oci://REGISTRY/REPO:TAG|@sha256:DIGEST or oci-layout:DIR[:TAG]"

// ParseLocation parses a tree's location:
//
//	DIR                          a tree directory (or an OCI layout directory)
//	FILE                         a bundle
//	http(s)://HOST/PATH          a host publishing a tree; a path ending in
//	                             /graph is a graph endpoint (KindEndpoint)
//	s3://BUCKET/PREFIX           a tree published to S3
//	oci://REGISTRY/REPO:TAG      a tree pushed to a registry (or @sha256:HEX)
//	oci-layout:DIR[:TAG|@DIGEST] a tree in an OCI image layout
//
// Local paths must exist (a directory or a file tells a tree from a
// bundle); nothing remote is contacted.
func ParseLocation(s string) (Location, error) {
	l := Location{Raw: s}
	if s == "" {
		return l, fmt.Errorf("empty location: want %s", Syntax)
	}
	scheme, _, hasScheme := strings.Cut(s, "://")
	switch {
	case strings.HasPrefix(s, LayoutScheme):
		return parseLayout(l, strings.TrimPrefix(s, LayoutScheme))
	case !hasScheme:
		return parsePath(l, s)
	case scheme == "s3":
		var err error
		l.Kind = KindS3
		l.Bucket, l.Prefix, err = s3tree.ParseURL(s)
		return l, err
	case scheme == "oci":
		if _, err := ocitree.ParseReference(s, false); err != nil {
			return l, err
		}
		l.Kind, l.Ref = KindOCI, s
		return l, nil
	case scheme == "http" || scheme == "https":
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return l, fmt.Errorf("%q: want http(s)://HOST/PATH", s)
		}
		l.Kind, l.URL = KindHTTP, u
		if strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/graph") {
			l.Kind = KindEndpoint
		} else if u.RawQuery != "" || u.Fragment != "" {
			return l, fmt.Errorf("%q: a tree's URL has no query or fragment", s)
		}
		return l, nil
	}
	return l, fmt.Errorf("%q: unknown scheme %s://: want %s", s, scheme, Syntax)
}

func parsePath(l Location, p string) (Location, error) {
	st, err := os.Stat(p)
	if err != nil {
		return l, err
	}
	l.Path = p
	switch {
	case st.Mode().IsRegular():
		l.Kind = KindBundle
	case !st.IsDir():
		return l, fmt.Errorf("%s: neither a directory nor a file", p)
	case isLayout(p):
		l.Kind = KindOCILayout
	default:
		l.Kind = KindDir
	}
	return l, nil
}

// parseLayout splits DIR[:TAG|@sha256:HEX]; a tag is what follows the
// last colon after the last slash, so DIR may itself hold colons.
func parseLayout(l Location, rest string) (Location, error) {
	dir, ref := rest, ""
	if i := strings.LastIndex(rest, "@"); i >= 0 && strings.HasPrefix(rest[i+1:], "sha256:") {
		dir, ref = rest[:i], rest[i:]
	} else if i := strings.LastIndex(rest, ":"); i > strings.LastIndex(rest, "/") && i >= 0 {
		dir, ref = rest[:i], rest[i+1:]
	}
	if dir == "" {
		return l, fmt.Errorf("%q: want %sDIR[:TAG|@sha256:DIGEST]", l.Raw, LayoutScheme)
	}
	if !isLayout(dir) {
		return l, fmt.Errorf("%s: not an OCI image layout (no oci-layout file)", filepath.Join(dir, "oci-layout"))
	}
	l.Kind, l.Path, l.Ref = KindOCILayout, dir, ref
	return l, nil
}

func isLayout(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "oci-layout"))
	return err == nil && st.Mode().IsRegular()
}
