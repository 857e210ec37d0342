// Package clidoc renders the command-line reference of upgraph, docs/cli.md
// and docs/upgraph.1, from the command definitions themselves (a
// urfave/cli App), so that the reference cannot drift from the binary.
// Hidden commands and flags are left out.
//
// The rendering is upgraph's own rather than urfave/cli's ToMarkdown and
// ToMan: those sort flags alphabetically, leave out command descriptions,
// argument names and boolean defaults, and pass descriptions to Markdown
// unescaped (sha256=<hex> would be read as HTML).
package clidoc

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// Section is a hand-written part of the reference, in a small subset
// of Markdown that both renderings understand: paragraphs, `code` and
// lines starting with "* " as a list.
type Section struct {
	Title string
	Text  string
}

// Reference is what both renderings show.
type Reference struct {
	name, usage string
	sections    []Section
	global      []Flag
	commands    []docCommand
}

type docCommand struct {
	path        string // "edge nginx"
	depth       int    // 0 for a top-level command
	args        string // ArgsUsage
	usage       string
	description string
	flags       []Flag
	subcommands bool
}

// Flag is a flag as the reference shows it.
type Flag struct {
	Names    []string
	Kind     string // what the value is; "" for a boolean flag
	Usage    string
	Value    string // the default, as given on the command line
	Required bool
}

// New reads the reference of app: its commands and flags, hidden ones
// left out, and sections after the commands.
func New(app *cli.App, sections []Section) (*Reference, error) {
	ref := &Reference{name: app.Name, usage: app.Usage, sections: sections}
	var err error
	if ref.global, err = Flags(app.Flags); err != nil {
		return nil, err
	}
	var walk func(prefix string, depth int, cmds []*cli.Command) error
	walk = func(prefix string, depth int, cmds []*cli.Command) error {
		for _, cmd := range cmds {
			if cmd.Hidden || cmd.Name == "help" {
				continue
			}
			dc := docCommand{
				path: strings.TrimSpace(prefix + " " + cmd.Name), depth: depth, args: cmd.ArgsUsage,
				usage: cmd.Usage, description: cmd.Description, subcommands: len(cmd.Subcommands) > 0,
			}
			if dc.flags, err = Flags(cmd.Flags); err != nil {
				return fmt.Errorf("%s: %w", dc.path, err)
			}
			ref.commands = append(ref.commands, dc)
			if err := walk(dc.path, depth+1, cmd.Subcommands); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk("", 0, app.Commands); err != nil {
		return nil, err
	}
	return ref, nil
}

// Flags are the visible flags of flags as the reference shows them.
func Flags(flags []cli.Flag) ([]Flag, error) {
	var out []Flag
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		if f.Names()[0] == "help" {
			continue
		}
		df := Flag{Names: f.Names()}
		if r, ok := f.(cli.RequiredFlag); ok {
			df.Required = r.IsRequired()
		}
		// The default as it would be typed; a flag's DefaultText, when
		// set, replaces it (GetDefaultText would quote strings and spell
		// durations as 1h0m0s).
		var text string
		switch f := f.(type) {
		case *cli.BoolFlag:
			df.Value, text = strconv.FormatBool(f.Value), f.DefaultText
		case *cli.StringFlag:
			df.Kind, df.Value, text = "string", f.Value, f.DefaultText
		case *cli.StringSliceFlag:
			df.Kind, text = "list", f.DefaultText
			if f.Value != nil {
				df.Value = strings.Join(f.Value.Value(), ",")
			}
		case *cli.IntFlag:
			df.Kind, df.Value, text = "integer", strconv.Itoa(f.Value), f.DefaultText
		case *cli.Int64Flag:
			df.Kind, df.Value, text = "integer", strconv.FormatInt(f.Value, 10), f.DefaultText
		case *cli.Float64Flag:
			df.Kind, df.Value, text = "number", strconv.FormatFloat(f.Value, 'g', -1, 64), f.DefaultText
		case *cli.DurationFlag:
			df.Kind, df.Value, text = "duration", shortDuration(f.Value), f.DefaultText
		default:
			return nil, fmt.Errorf("--%s: the reference does not know flags of type %T", f.Names()[0], f)
		}
		if text != "" {
			df.Value = text
		}
		df.Usage = f.(cli.DocGenerationFlag).GetUsage()
		out = append(out, df)
	}
	return out, nil
}

// shortDuration is d as it would be typed: 1h rather than 1h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Sentence capitalises a usage text to start a paragraph with it.
func Sentence(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// synopsis is how a command is typed.
func (c docCommand) synopsis(app string) string {
	s := app + " " + c.path
	if c.subcommands {
		return s + " COMMAND [options]"
	}
	if len(c.flags) > 0 {
		s += " [options]"
	}
	if c.args != "" {
		s += " " + c.args
	}
	return s
}

// block is a paragraph of running text, or preformatted lines.
type block struct {
	lines []string
	code  bool
}

// blocks splits a description into paragraphs (separated by empty lines)
// and preformatted blocks (indented lines), dedented.
func blocks(text string) []block {
	var out []block
	var cur block
	flush := func() {
		if len(cur.lines) > 0 {
			out = append(out, cur)
		}
		cur = block{}
	}
	for _, line := range strings.Split(strings.Trim(text, "\n"), "\n") {
		switch code := strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t"); {
		case strings.TrimSpace(line) == "":
			flush()
		case code != cur.code:
			flush()
			cur.code = code
			fallthrough
		default:
			cur.lines = append(cur.lines, strings.TrimRight(line, " \t"))
		}
	}
	flush()
	for i, b := range out {
		if !b.code {
			continue
		}
		indent := -1
		for _, l := range b.lines {
			if n := len(l) - len(strings.TrimLeft(l, " \t")); indent < 0 || n < indent {
				indent = n
			}
		}
		for j, l := range b.lines {
			out[i].lines[j] = l[indent:]
		}
	}
	return out
}

// Markdown.

var (
	mdEscaper = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
		"<", "&lt;", ">", "&gt;", "&", "&amp;", "|", `\|`, "~", `\~`)
	// mdLineStart is what would start a list, a heading or a thematic
	// break at the beginning of a line.
	mdLineStart = regexp.MustCompile(`^(#|[-+=](\s|$)|[-=]+$|\d+[.)](\s|$))`)
)

// MarkdownText escapes running text for Markdown, line by line.
func MarkdownText(s string) string {
	lines := strings.Split(mdEscaper.Replace(s), "\n")
	for i, l := range lines {
		if mdLineStart.MatchString(l) {
			lines[i] = `\` + l
		}
	}
	return strings.Join(lines, "\n")
}

func mdAnchor(path string) string {
	return "#upgraph-" + strings.ReplaceAll(path, " ", "-")
}

// Markdown is the reference in Markdown (docs/cli.md).
func (r *Reference) Markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("<!-- Code generated by `upgraph docs --format markdown` from the command definitions in cmd/upgraph/; DO NOT EDIT.\n")
	p("     Change the definitions, then run `make docs`. -->\n\n")
	p("# %s command-line reference\n\n", r.name)
	p("%s: %s.\n\n", r.name, MarkdownText(r.usage))
	p("```\n%s [global options] COMMAND [options] [arguments]\n```\n\n", r.name)
	p("Every command prints its own help with `--help`. The same reference is the man page `docs/upgraph.1`\n")
	p("(`man ./docs/upgraph.1`). Commands:\n\n")
	p("| command | |\n|---|---|\n")
	for _, c := range r.commands {
		p("| [`%s`](%s) | %s |\n", c.path, mdAnchor(c.path), MarkdownText(c.usage))
	}
	p("\n## Global options\n\n")
	mdFlags(&b, r.global)
	for _, c := range r.commands {
		p("\n## %s %s\n\n", r.name, c.path)
		p("```\n%s\n```\n\n", c.synopsis(r.name))
		p("%s.\n", MarkdownText(Sentence(c.usage)))
		for _, bl := range blocks(c.description) {
			if bl.code {
				p("\n```\n%s\n```\n", strings.Join(bl.lines, "\n"))
			} else {
				p("\n%s\n", MarkdownText(strings.Join(bl.lines, "\n")))
			}
		}
		if c.subcommands {
			var subs []string
			for _, s := range r.commands {
				if strings.HasPrefix(s.path, c.path+" ") && s.depth == c.depth+1 {
					subs = append(subs, fmt.Sprintf("[`%s`](%s)", strings.TrimPrefix(s.path, c.path+" "), mdAnchor(s.path)))
				}
			}
			p("\nCommands: %s.\n", strings.Join(subs, ", "))
		}
		if len(c.flags) > 0 {
			p("\n")
			mdFlags(&b, c.flags)
		}
	}
	for _, s := range r.sections {
		p("\n## %s\n\n%s\n", s.Title, s.Text)
	}
	return b.String()
}

func mdFlags(b *strings.Builder, flags []Flag) {
	fmt.Fprintf(b, "| option | value | default | |\n|---|---|---|---|\n")
	for _, f := range flags {
		names := make([]string, len(f.Names))
		for i, n := range f.Names {
			names[i] = "`" + dashes(n) + "`"
		}
		def := ""
		switch {
		case f.Required:
			def = "required"
		case f.Value != "":
			def = "`" + f.Value + "`"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", strings.Join(names, ", "), f.Kind, def, MarkdownText(f.Usage))
	}
}

func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Man page (man(7) macros).

var roffEscaper = strings.NewReplacer(`\`, `\e`, "-", `\-`)

// roffText escapes running text: a line must not start with a control
// character.
func roffText(s string) string {
	lines := strings.Split(roffEscaper.Replace(s), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}

var mdCode = regexp.MustCompile("`([^`]*)`")

// roffMarkdown renders a Section's text.
func roffMarkdown(s string) string {
	var out []string
	for _, para := range strings.Split(s, "\n\n") {
		for i, line := range strings.Split(para, "\n") {
			item := strings.HasPrefix(line, "* ")
			switch {
			case item:
				out = append(out, ".IP \\(bu 2")
				line = strings.TrimPrefix(line, "* ")
			case i == 0:
				out = append(out, ".PP")
			}
			line = roffText(line)
			line = mdCode.ReplaceAllStringFunc(line, func(m string) string {
				return `\fB` + strings.Trim(m, "`") + `\fR`
			})
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// Man is the reference as a man page (docs/upgraph.1).
func (r *Reference) Man() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p(".\\\" Code generated by `upgraph docs --format man` from the command definitions in cmd/upgraph/; DO NOT EDIT.\n")
	p(".\\\" Change the definitions, then run `make docs`.\n")
	p(".TH %s 1 \"\" \"%s\" \"User Commands\"\n", strings.ToUpper(r.name), r.name)
	p(".SH NAME\n%s \\- %s\n", r.name, roffText(r.usage))
	p(".SH SYNOPSIS\n.B %s\n[\\fIglobal options\\fR] \\fICOMMAND\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]\n", r.name)
	p(".SH DESCRIPTION\nEvery command prints its own help with \\fB\\-\\-help\\fR.\nCommands:\n")
	for _, c := range r.commands {
		p(".TP\n.B %s\n%s\n", roffText(c.path), roffText(c.usage))
	}
	p(".SH GLOBAL OPTIONS\n")
	manFlags(&b, r.global)
	p(".SH COMMANDS\n")
	for _, c := range r.commands {
		p(".SS \"%s %s\"\n", r.name, roffText(c.path))
		p(".nf\n\\fB%s\\fR\n.fi\n", roffText(c.synopsis(r.name)))
		p(".PP\n%s.\n", roffText(Sentence(c.usage)))
		for _, bl := range blocks(c.description) {
			if bl.code {
				p(".PP\n.RS 4\n.nf\n%s\n.fi\n.RE\n", roffText(strings.Join(bl.lines, "\n")))
			} else {
				p(".PP\n%s\n", roffText(strings.Join(bl.lines, "\n")))
			}
		}
		if len(c.flags) > 0 {
			p(".PP\nOptions:\n")
			manFlags(&b, c.flags)
		}
	}
	for _, s := range r.sections {
		p(".SH %s\n%s", strings.ToUpper(s.Title), roffMarkdown(s.Text))
	}
	p(".SH SEE ALSO\nREADME.md and docs/ in the upgraph repository.\n")
	return b.String()
}

func manFlags(b *strings.Builder, flags []Flag) {
	for _, f := range flags {
		names := make([]string, len(f.Names))
		for i, n := range f.Names {
			names[i] = `\fB` + roffText(dashes(n)) + `\fR`
			if f.Kind != "" {
				names[i] += ` \fI` + f.Kind + `\fR`
			}
		}
		text := roffText(f.Usage)
		switch {
		case f.Required:
			text += " (required)"
		case f.Value != "":
			text += " (default: " + roffText(f.Value) + ")"
		}
		fmt.Fprintf(b, ".TP\n%s\n%s\n", strings.Join(names, ", "), text)
	}
}
