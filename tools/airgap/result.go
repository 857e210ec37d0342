package airgap

import (
	"fmt"
	"io"

	"github.com/upgraph/upgraph/internal/english"
)

// WriteText prints what Mirror wrote, as upgraph mirror does: the bundle
// (its size and sha256) or the files written to out, the graphs, and per
// catalog its packages, channels, bundles and images rewritten.
func (r *Result) WriteText(w io.Writer, out string) error {
	m := r.Manifest
	var err error
	if r.Bundle != nil {
		_, err = fmt.Fprintf(w, "wrote %s: %d bytes, sha256 %s (%d files, %d channel × arch graphs%s)\n",
			r.Bundle.Path, r.Bundle.Size, r.Bundle.SHA256, m.Counts.Files, m.Counts.Graphs, catalogsText(r.Catalogs))
		return err
	}
	_, err = fmt.Fprintf(w, "wrote %d files (%d channel × arch graphs%s) to %s\n", m.Counts.Files, m.Counts.Graphs, catalogsText(r.Catalogs), out)
	return err
}

// catalogsText is what mirror says it wrote of the catalogs ("" for
// none).
func catalogsText(cats []CatalogResult) string {
	var s string
	for _, c := range cats {
		s += fmt.Sprintf("; catalog %s: %s, %s, %s, %s rewritten", c.Name, english.Count(c.Packages, "package"),
			english.Count(c.Channels, "channel"), english.Count(c.Bundles, "bundle"), english.Count(c.Images, "image"))
	}
	return s
}
