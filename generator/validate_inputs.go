package generator

import (
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
)

// CheckReleases checks --releases, a release source (source.Kinds, or
// with mirrors MirrorPrefix+URL), as far as it can without reading it:
// the kind, the path a kind reads, a registry repository's name.
func CheckReleases(spec string, mirrors bool) error {
	if endpoint, ok := strings.CutPrefix(spec, MirrorPrefix); ok && mirrors {
		if u, err := url.Parse(endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--releases: release source %q: want %sURL, an http:// or https:// URL with a host", spec, MirrorPrefix)
		}
		return nil
	}
	kinds := source.Kinds
	if mirrors {
		kinds += ", or " + MirrorPrefix + "URL"
	}
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok || arg == "" {
		return fmt.Errorf("--releases: release source %q: want KIND:ARG, one of %s", spec, kinds)
	}
	switch kind {
	case "graph":
		return cliflag.CheckPath("releases", arg, cliflag.WantFile)
	case "metadata", "oci":
		return cliflag.CheckPath("releases", arg, cliflag.WantDir)
	case "registry":
		if _, err := (&registry.Client{}).Repository(arg); err != nil {
			return fmt.Errorf("--releases: %w", err)
		}
		return nil
	}
	return fmt.Errorf("--releases: release source %q: unknown kind %q, want one of %s", spec, kind, kinds)
}

// CheckGraphData checks a --graph-data value: a directory, a .tar.gz, or,
// with images, image:REF.
func CheckGraphData(spec string, images bool) error {
	if ref, ok := strings.CutPrefix(spec, graphdata.ImagePrefix); ok && images {
		return registry.CheckReference("graph-data", ref)
	}
	st, err := os.Stat(spec)
	switch {
	case err != nil:
		return fmt.Errorf("--graph-data: %w", err)
	case !st.IsDir() && !precompress.IsGzipFile(spec):
		return fmt.Errorf("--graph-data %s: neither a directory nor a .tar.gz", spec)
	}
	return nil
}
