package diff

import (
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/upgraph/upgraph/internal/english"
)

// writeMarkdown renders a pull-request comment: a summary table, then the
// lines of each graph in a collapsed <details> as a diff code block.
func (r *Result) writeMarkdown(w *strings.Builder, maxBytes int) {
	fmt.Fprintf(w, "### upgraph diff\n\n%s → %s\n\n", code(r.Old), code(r.New))
	if r.Empty() {
		fmt.Fprintf(w, "No differences in %s.\n", english.Count(r.Compared, "channel × arch graph"))
		return
	}
	if len(r.Catalogs) == 0 || r.Compared > 0 {
		fmt.Fprintf(w, "%d of %s differ.\n\n", len(r.Graphs), english.Count(r.Compared, "channel × arch graph"))
	}
	r.writeMarkdownCatalogs(w, maxBytes, r.writeMarkdownGraphs(w, maxBytes))
	if ls := r.rolloutLines(); len(ls) > 0 {
		w.WriteString("\n#### Rollouts\n\n```diff\n")
		for _, l := range ls {
			fmt.Fprintf(w, "%c %s\n", l.sign, l.text)
		}
		w.WriteString("```\n")
	}
}

// writeMarkdownGraphs renders the release graphs' part; false when it
// left details out for maxBytes.
func (r *Result) writeMarkdownGraphs(w *strings.Builder, maxBytes int) bool {
	for _, c := range []struct {
		title string
		names []string
	}{
		{"Channels removed", r.Channels.Removed}, {"Channels added", r.Channels.Added},
		{"Arches removed", r.Arches.Removed}, {"Arches added", r.Arches.Added},
	} {
		if len(c.names) > 0 {
			codes := make([]string, len(c.names))
			for i, n := range c.names {
				codes[i] = code(n)
			}
			fmt.Fprintf(w, "**%s:** %s\n\n", c.title, strings.Join(codes, ", "))
		}
	}
	if len(r.Graphs) == 0 {
		return true
	}
	w.WriteString("| channel | arch | +nodes | −nodes | ~nodes | +edges | −edges | ±conditional | ±risks |\n")
	w.WriteString("|:--|:--|--:|--:|--:|--:|--:|--:|--:|\n")
	for i := range r.Graphs {
		g := &r.Graphs[i]
		c := g.Counts()
		channel := cell(g.Channel)
		if g.Status != Changed {
			channel += " (" + string(g.Status) + ")"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", channel, cell(g.Arch),
			count(c.NodesAdded), count(c.NodesRemoved), count(c.NodesChanged),
			count(c.EdgesAdded), count(c.EdgesRemoved), count(c.Conditional), count(c.Risks))
	}
	// Each section must leave room for the note about those after it.
	note := func(left int) string {
		if left == 0 {
			return ""
		}
		return fmt.Sprintf("\nDetails of %s left out to keep this under %d bytes: run `upgraph diff` for them.\n",
			english.Count(left, "more graph"), maxBytes)
	}
	for i := range r.Graphs {
		d := r.Graphs[i].details()
		if maxBytes > 0 && w.Len()+len(d)+len(note(len(r.Graphs)-i-1)) > maxBytes {
			w.WriteString(note(len(r.Graphs) - i))
			return false
		}
		w.WriteString(d)
	}
	return true
}

// details is a graph's collapsed section.
func (g *GraphDiff) details() string {
	var body strings.Builder
	for _, l := range g.lines() {
		writeLine(&body, l, "")
	}
	fence := fenceFor(body.String())
	return fmt.Sprintf("\n<details>\n<summary>%s</summary>\n\n%sdiff\n%s%s\n\n</details>\n",
		g.summaryLine(), fence, body.String(), fence)
}

// summaryLine is a graph's <summary>: its name and what changed, so a
// reviewer can tell without expanding it.
func (g *GraphDiff) summaryLine() string {
	c := g.Counts()
	var parts []string
	for _, p := range []struct {
		sign string
		n    int
		noun string
	}{
		{"+", c.NodesAdded, "node"}, {"−", c.NodesRemoved, "node"}, {"~", c.NodesChanged, "node"},
		{"+", c.EdgesAdded, "edge"}, {"−", c.EdgesRemoved, "edge"},
		{"±", c.Conditional, "conditional edge"}, {"±", c.Risks, "risk"},
	} {
		if p.n > 0 {
			parts = append(parts, p.sign+english.Count(p.n, p.noun))
		}
	}
	s := "<code>" + html.EscapeString(g.Channel) + "</code> " + html.EscapeString(g.Arch)
	if g.Status != Changed {
		s += " " + string(g.Status)
	}
	return s + ": " + strings.Join(parts, ", ")
}

// count leaves zeros blank so that the table's changes stand out.
func count(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// cell escapes what would end a table cell or start markup; channel and
// arch names are plain, but they come from whatever was diffed.
func cell(s string) string {
	return strings.ReplaceAll(html.EscapeString(s), "|", `\|`)
}

// code is inline code that no backtick in s can close early.
func code(s string) string {
	ticks := "`"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// fenceFor returns a code fence longer than any backtick run in body, so
// a risk message quoting markdown cannot end the block.
func fenceFor(body string) string {
	fence := "```"
	for strings.Contains(body, fence) {
		fence += "`"
	}
	return fence
}
