package upgrade

import (
	"fmt"
	"io"
	"strings"

	"github.com/upgraph/upgraph/internal/jsonw"
)

// WriteJSON writes the report as indented JSON, ending in a newline (as
// the release path's report).
func (r *Report) WriteJSON(w io.Writer) error {
	return jsonw.WriteIndented(w, r)
}

func refText(r Ref) string {
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
		return refText(*r.To) + ", the head of " + r.Channel
	}
	return refText(*r.To)
}

// WriteText writes the report for people: a summary line, one line per
// hop with the edges allowing it, the deprecations met, and for no path
// the reason and where the runtime stops.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	where := fmt.Sprintf("package %s, channel %s", r.Package, r.Channel)
	switch {
	case !r.Found:
		fmt.Fprintf(&b, "No %s path from %s to %s (%s): %s.\n", r.OLM.Title(), refText(r.From), r.target(), where, r.Reason.Code)
		fmt.Fprintf(&b, "  %s\n", wrap(r.Reason.Message, 96, "  "))
		if len(r.Hops) > 0 {
			fmt.Fprintf(&b, "\n%s takes %s before it stops at %s:\n", r.OLM.Title(), plural(len(r.Hops), "hop"), refText(*r.StopsAt))
		}
	case len(r.Hops) == 0:
		fmt.Fprintf(&b, "Already at %s (%s, %s): no update needed.\n", r.target(), where, r.OLM.Title())
	default:
		fmt.Fprintf(&b, "%s: %s → %s (%s): %s\n\n", r.OLM.Title(), refText(r.From), r.target(), where, plural(len(r.Hops), "hop"))
	}
	for i, h := range r.Hops {
		fmt.Fprintf(&b, "%3d. %s → %s  via %s", i+1, refText(h.From), refText(h.To), viaText(h.Via))
		if h.Deprecated != "" {
			b.WriteString("  [deprecated]")
		}
		b.WriteByte('\n')
	}
	if len(r.Deprecations) > 0 {
		b.WriteString("\nDeprecations on the way:\n")
		for _, d := range r.Deprecations {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	if n := len(r.PackageErrors); n > 0 {
		fmt.Fprintf(&b, "\nNote: package %s has %s (opm validate rejects it; a catalog server built from it does not start), the first: %s\n",
			r.Package, plural(n, "error"), r.PackageErrors[0])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// wrap breaks s at spaces into lines of at most width bytes, joined by a
// newline and indent.
func wrap(s string, width int, indent string) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = word
			continue
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	lines = append(lines, line)
	return strings.Join(lines, "\n"+indent)
}
