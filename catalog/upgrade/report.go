package upgrade

import (
	"fmt"
	"io"
	"strings"

	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/internal/english"
	"github.com/upgraph/upgraph/internal/jsonw"
)

// WriteJSON writes the report as indented JSON, ending in a newline (as
// the release path's report).
func (r *Report) WriteJSON(w io.Writer) error {
	return jsonw.WriteIndented(w, r)
}

// RefText words a bundle for people: "name (version[-release])", or
// its name alone when it has no version.
func RefText(r Ref) string {
	v := r.Version
	if r.Release != "" {
		v += "-" + r.Release
	}
	if v == "" {
		return r.Name
	}
	return r.Name + " (" + v + ")"
}

// target words the target for people.
func (r *Report) target() string {
	switch {
	case r.To == nil:
		return "the head of " + r.Channel
	case r.ToHead:
		return RefText(*r.To) + ", the head of " + r.Channel
	}
	return RefText(*r.To)
}

// WriteText writes the report for people: a summary line, one line per
// hop with the edges allowing it, the deprecations met, and for no path
// the reason and where the runtime stops.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	where := fmt.Sprintf("package %s, channel %s", r.Package, r.Channel)
	switch r.Semantics {
	case model.SemanticsV1Set:
		where += fmt.Sprintf(", installed from catalog %s, resolved across the catalog set", r.Catalog)
	case model.SemanticsV0Set:
		if r.setSize > 1 {
			where += fmt.Sprintf(", installed from catalog %s, dependencies resolved across the catalog set", r.Catalog)
		}
	}
	switch {
	case !r.Found:
		fmt.Fprintf(&b, "No %s path from %s to %s (%s): %s.\n", r.OLM.Title(), RefText(r.From), r.target(), where, r.Reason.Code)
		fmt.Fprintf(&b, "  %s\n", english.Wrap(r.Reason.Message, 96, "  "))
		if len(r.Hops) > 0 {
			fmt.Fprintf(&b, "\n%s takes %s before it stops at %s:\n", r.OLM.Title(), english.Count(len(r.Hops), "hop"), RefText(*r.StopsAt))
		}
	case len(r.Hops) == 0:
		fmt.Fprintf(&b, "Already at %s (%s, %s): no update needed.\n", r.target(), where, r.OLM.Title())
	default:
		fmt.Fprintf(&b, "%s: %s → %s (%s): %s\n\n", r.OLM.Title(), RefText(r.From), r.target(), where, english.Count(len(r.Hops), "hop"))
	}
	for i, h := range r.Hops {
		fmt.Fprintf(&b, "%3d. %s → %s  via %s", i+1, RefText(h.From), RefText(h.To), viaText(h.Via))
		if h.Catalog != "" {
			fmt.Fprintf(&b, "  from catalog %s", h.Catalog)
		}
		if h.Deprecated != "" {
			b.WriteString("  [deprecated]")
		}
		b.WriteByte('\n')
		depText(&b, h)
	}
	if len(r.Deprecations) > 0 {
		b.WriteString("\nDeprecations on the way:\n")
		for _, d := range r.Deprecations {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	if n := len(r.PackageErrors); n > 0 {
		fmt.Fprintf(&b, "\nNote: package %s has %s (opm validate rejects it; a catalog server built from it does not start), the first: %s\n",
			r.Package, english.Count(n, "error"), r.PackageErrors[0])
	}
	_, err := io.WriteString(w, b.String())
	return err
}
