package diff

import (
	"fmt"
	"html"
	"strings"

	"github.com/upgraph/upgraph/internal/english"
)

// writeMarkdownCatalogs renders the operator catalogs' part: a table with
// a row per catalog, package and channel that differs, then each
// section's lines in a collapsed <details> (left out, with a note, when
// details is false or they would go past maxBytes).
func (r *Result) writeMarkdownCatalogs(w *strings.Builder, maxBytes int, details bool) {
	if len(r.Catalogs) == 0 {
		return
	}
	verb := "differ"
	if len(r.Catalogs) == 1 {
		verb = "differs"
	}
	if !strings.HasSuffix(w.String(), "\n\n") {
		w.WriteString("\n")
	}
	fmt.Fprintf(w, "%s %s.\n\n", english.Count(len(r.Catalogs), "operator catalog"), verb)
	w.WriteString("| catalog | package | channel | head | +bundles | −bundles | +edges | −edges | new deprecations | newly stranded | newly refused by OLM v1 |\n")
	w.WriteString("|:--|:--|:--|:--|--:|--:|--:|--:|--:|--:|--:|\n")
	for i := range r.Catalogs {
		c := &r.Catalogs[i]
		name := cell(c.Name)
		if c.Status != Changed {
			name += " (" + string(c.Status) + ")"
		}
		row := func(pkg, channel, head string, counts ...int) {
			cells := make([]string, len(counts))
			for i, n := range counts {
				cells[i] = count(n)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", name, pkg, channel, head, strings.Join(cells, " | "))
		}
		if c.Status != Changed {
			// A whole catalog added or removed: one row; its packages are
			// in its section.
			row(english.Count(len(c.Packages.Added)+len(c.Packages.Removed), "package"), "", "", 0, 0, 0, 0, 0, 0, 0)
			continue
		}
		for _, p := range c.Packages.Removed {
			row(cell(p)+" (removed)", "", "", 0, 0, 0, 0, 0, 0, 0)
		}
		for _, p := range c.Packages.Added {
			row(cell(p)+" (added)", "", "", 0, 0, 0, 0, 0, 0, 0)
		}
		for _, p := range c.Changed {
			if p.DefaultChannel != nil || p.Deprecated != "" || len(p.Channels.Added)+len(p.Channels.Removed) > 0 {
				var what []string
				for _, ch := range p.Channels.Removed {
					what = append(what, cell(ch)+" (removed)")
				}
				for _, ch := range p.Channels.Added {
					what = append(what, cell(ch)+" (added)")
				}
				dep := 0
				if p.Deprecated != "" {
					dep = 1
				}
				pkg := cell(p.Package)
				if p.DefaultChannel != nil {
					pkg += " (default " + cell(p.DefaultChannel.Old) + " → " + cell(p.DefaultChannel.New) + ")"
				}
				row(pkg, strings.Join(what, ", "), "", 0, 0, 0, 0, dep, 0, 0)
			}
			for _, ch := range p.Changed {
				head := ""
				if ch.Head != nil {
					head = cell(orNone(ch.Head.Old)) + " → " + cell(orNone(ch.Head.New))
				}
				dep := len(ch.DeprecatedBundles)
				if ch.Deprecated != "" {
					dep++
				}
				row(cell(p.Package), cell(ch.Channel), head, len(ch.Bundles.Added), len(ch.Bundles.Removed),
					len(ch.Edges.Added), len(ch.Edges.Removed), dep, len(ch.Stranded), len(ch.Refused))
			}
		}
	}
	var sections []section
	for i := range r.Catalogs {
		sections = append(sections, r.Catalogs[i].sections()...)
	}
	note := func(left int) string {
		return fmt.Sprintf("\nDetails of %s left out to keep this under %d bytes: run `upgraph diff` for them.\n",
			english.Count(left, "more catalog section"), maxBytes)
	}
	if !details {
		w.WriteString(note(len(sections)))
		return
	}
	for i, s := range sections {
		var body strings.Builder
		for _, l := range s.lines {
			writeLine(&body, l, "")
		}
		fence := fenceFor(body.String())
		d := fmt.Sprintf("\n<details>\n<summary>%s</summary>\n\n%sdiff\n%s%s\n\n</details>\n",
			html.EscapeString(s.title), fence, body.String(), fence)
		left := ""
		if i < len(sections)-1 {
			left = note(len(sections) - i - 1)
		}
		if maxBytes > 0 && w.Len()+len(d)+len(left) > maxBytes {
			w.WriteString(note(len(sections) - i))
			return
		}
		w.WriteString(d)
	}
}
