package tree

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/tree/manifest"
)

// CheckLocation checks a tree's location, named by what (a flag such as
// "--from", or an argument "SRC"), as far as it can without reading it:
// the syntax of ParseLocation, that a local path exists and is a tree, a
// bundle or an OCI layout. endpoints accepts a graph endpoint.
func CheckLocation(what, spec string, endpoints bool) error {
	if spec == "" {
		return fmt.Errorf("%s: empty value: want %s", what, Syntax)
	}
	loc, err := ParseLocation(spec)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	switch loc.Kind {
	case KindEndpoint:
		if !endpoints {
			return fmt.Errorf("%s %s: a graph endpoint, not a tree (want %s)", what, spec, Syntax)
		}
	case KindDir:
		if _, err := os.Stat(filepath.Join(spec, manifest.FileName)); err != nil {
			return fmt.Errorf("%s %s: not a tree written by upgraph generate: %w", what, spec, err)
		}
	case KindBundle:
		if !precompress.IsGzipFile(spec) {
			return fmt.Errorf("%s %s: neither a tree directory nor a bundle (.tar.gz)", what, spec)
		}
	}
	return nil
}
