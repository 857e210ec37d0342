package diff

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Format is an output format of Write.
type Format string

const (
	Text     Format = "text"
	Markdown Format = "markdown"
	JSON     Format = "json"
)

// Formats lists the formats, for usage messages.
const Formats = "text, markdown or json"

// ParseFormat checks a format name.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Text, Markdown, JSON:
		return f, nil
	}
	return "", fmt.Errorf("format %q: want %s", s, Formats)
}

// WriteOptions tune Write.
type WriteOptions struct {
	// MaxBytes bounds markdown output (0: no bound): the <details> of the
	// graphs that would go past it are left out, with a note saying so;
	// the summary table is always whole. GitHub refuses comments over
	// 65536 characters.
	MaxBytes int
}

// Write renders r. Text is empty when there is no difference, as with
// diff(1); markdown says so, since it is meant to be posted either way.
func (r *Result) Write(w io.Writer, f Format, opts WriteOptions) error {
	bw := bufio.NewWriter(w)
	switch f {
	case Text:
		r.writeText(bw)
	case Markdown:
		// Built whole first: its size decides what goes in.
		var b strings.Builder
		r.writeMarkdown(&b, opts.MaxBytes)
		bw.WriteString(b.String())
	case JSON:
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		out := *r
		if out.Graphs == nil {
			out.Graphs = []GraphDiff{} // [] rather than null for consumers
		}
		if err := enc.Encode(&out); err != nil {
			return err
		}
	default:
		return fmt.Errorf("format %q: want %s", f, Formats)
	}
	return bw.Flush()
}

func (r *Result) writeText(w *bufio.Writer) {
	if r.Empty() {
		return
	}
	fmt.Fprintf(w, "--- %s\n+++ %s\n", r.Old, r.New)
	for _, l := range r.nameLines() {
		writeLine(w, l, "")
	}
	for i := range r.Graphs {
		g := &r.Graphs[i]
		fmt.Fprintf(w, "@@ %s @@\n", g.title())
		for _, l := range g.lines() {
			writeLine(w, l, "")
		}
	}
	if ls := r.rolloutLines(); len(ls) > 0 {
		fmt.Fprintf(w, "@@ rollouts @@\n")
		for _, l := range ls {
			writeLine(w, l, "")
		}
	}
	for i := range r.Catalogs {
		for _, s := range r.Catalogs[i].sections() {
			fmt.Fprintf(w, "@@ %s @@\n", s.title)
			for _, l := range s.lines {
				writeLine(w, l, "")
			}
		}
	}
}

// nameLines are the channels and arches only one side has.
func (r *Result) nameLines() []line {
	var ls []line
	for _, c := range []struct {
		noun    string
		changes NameChanges
	}{{"channel", r.Channels}, {"arch", r.Arches}} {
		for _, n := range c.changes.Removed {
			ls = append(ls, line{sign: '-', text: c.noun + " " + n})
		}
		for _, n := range c.changes.Added {
			ls = append(ls, line{sign: '+', text: c.noun + " " + n})
		}
	}
	return ls
}

func (g *GraphDiff) title() string {
	t := g.Channel + " " + g.Arch
	if g.Status != Changed {
		t += " (" + string(g.Status) + ")"
	}
	return t
}

// lineWriter is a bufio.Writer or a strings.Builder.
type lineWriter interface {
	io.StringWriter
	io.ByteWriter
}

// writeLine writes a line and its sub lines, the sign first and the
// indentation after it.
func writeLine(w lineWriter, l line, indent string) {
	w.WriteByte(l.sign)
	w.WriteString(" " + indent)
	// A value with a line break is quoted where it comes from; this keeps
	// any other one from starting a line that reads as a different sign.
	w.WriteString(strings.ReplaceAll(l.text, "\n", `\n`))
	w.WriteByte('\n')
	for _, s := range l.sub {
		writeLine(w, s, indent+"  ")
	}
}
