package main

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator"
)

// docsCommand prints the command-line reference, docs/cli.md and
// docs/upgraph.1, from the command definitions themselves, so that the
// reference cannot drift from the binary (TestDocs fails when the
// committed copies are stale; `make docs` writes them). Hidden commands
// and flags are left out.
//
// The rendering is upgraph's own rather than urfave/cli's ToMarkdown and
// ToMan: those sort flags alphabetically, leave out command descriptions,
// argument names and boolean defaults, and pass descriptions to Markdown
// unescaped (sha256=<hex> would be read as HTML).
func docsCommand() *cli.Command {
	return &cli.Command{
		Name:   "docs",
		Usage:  "print the command-line reference: docs/cli.md (markdown) or docs/upgraph.1 (man)",
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "markdown", Usage: "markdown or man"},
		},
		Action: func(c *cli.Context) error {
			if err := checkEnum(c, "format", "markdown", "man"); err != nil {
				return err
			}
			if c.NArg() > 0 {
				return fmt.Errorf("docs: want no arguments, got %d", c.NArg())
			}
			ref, err := newReference(newApp())
			if err != nil {
				return err
			}
			out := ref.markdown()
			if c.String("format") == "man" {
				out = ref.man()
			}
			_, err = io.WriteString(c.App.Writer, out)
			return err
		},
	}
}

// docSection is a hand-written part of the reference, in a small subset
// of Markdown that both renderings understand: paragraphs, `code` and
// lines starting with "* " as a list.
type docSection struct {
	title string
	text  string
}

// docSections follow the commands, in both renderings.
var docSections = []docSection{
	{"Exit status", "Exit status 0 on success, 1 on any error; errors name the file and, where the format allows, the\n" +
		"line. `diff` exits 0 when nothing differs, 1 when something does and 2 on errors; `path` exits 1\n" +
		"when there is no path and 2 on errors; `validate` exits 1 when there are errors (warnings alone: 0);\n" +
		"`verify` exits 1 when a file is bad."},
	{"Memory", fmt.Sprintf("`generate` lets the Go heap grow to %d MiB before collecting garbage (`internal/gcbudget`: the\n"+
		"collector's proportional pacing is off under a memory limit, and comes back once a collection finds\n"+
		"half of that live, so larger inputs are collected as usual); a generation at real scale peaks at\n"+
		"about 380 MB resident. `GOGC` or `GOMEMLIMIT` in the environment turn this off.", generator.HeapBudget>>20)},
	{"Environment", "* `SOURCE_DATE_EPOCH`: the `generatedAt` time of `generate`, and of `mirror` from a graph endpoint (a tree's own time is kept), for reproducible trees.\n" +
		"* `XDG_CACHE_HOME`: the default scrape cache is `$XDG_CACHE_HOME/upgraph/scrape`.\n" +
		"* `DOCKER_CONFIG`: registry credentials, from `$DOCKER_CONFIG/config.json` (else `~/.docker/config.json`) and its credential helpers.\n" +
		"* `AWS_ACCESS_KEY_ID`, `AWS_PROFILE`, `AWS_REGION`, …: the standard AWS configuration, for `s3://` trees.\n" +
		"* `GOGC`, `GOMEMLIMIT`: see Memory."},
}

// reference is what both renderings show.
type reference struct {
	name, usage string
	global      []docFlag
	commands    []docCommand
}

type docCommand struct {
	path        string // "edge nginx"
	depth       int    // 0 for a top-level command
	args        string // ArgsUsage
	usage       string
	description string
	flags       []docFlag
	subcommands bool
}

type docFlag struct {
	names    []string
	kind     string // what the value is; "" for a boolean flag
	usage    string
	value    string // the default, as given on the command line
	required bool
}

func newReference(app *cli.App) (*reference, error) {
	ref := &reference{name: app.Name, usage: app.Usage}
	var err error
	if ref.global, err = docFlags(app.Flags); err != nil {
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
			if dc.flags, err = docFlags(cmd.Flags); err != nil {
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

func docFlags(flags []cli.Flag) ([]docFlag, error) {
	var out []docFlag
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		if f.Names()[0] == "help" {
			continue
		}
		df := docFlag{names: f.Names()}
		if r, ok := f.(cli.RequiredFlag); ok {
			df.required = r.IsRequired()
		}
		// The default as it would be typed; a flag's DefaultText, when
		// set, replaces it (GetDefaultText would quote strings and spell
		// durations as 1h0m0s).
		var text string
		switch f := f.(type) {
		case *cli.BoolFlag:
			df.value, text = strconv.FormatBool(f.Value), f.DefaultText
		case *cli.StringFlag:
			df.kind, df.value, text = "string", f.Value, f.DefaultText
		case *cli.StringSliceFlag:
			df.kind, text = "list", f.DefaultText
			if f.Value != nil {
				df.value = strings.Join(f.Value.Value(), ",")
			}
		case *cli.IntFlag:
			df.kind, df.value, text = "integer", strconv.Itoa(f.Value), f.DefaultText
		case *cli.Int64Flag:
			df.kind, df.value, text = "integer", strconv.FormatInt(f.Value, 10), f.DefaultText
		case *cli.Float64Flag:
			df.kind, df.value, text = "number", strconv.FormatFloat(f.Value, 'g', -1, 64), f.DefaultText
		case *cli.DurationFlag:
			df.kind, df.value, text = "duration", shortDuration(f.Value), f.DefaultText
		default:
			return nil, fmt.Errorf("--%s: the reference does not know flags of type %T", f.Names()[0], f)
		}
		if text != "" {
			df.value = text
		}
		df.usage = f.(cli.DocGenerationFlag).GetUsage()
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

// sentence capitalises a usage text to start a paragraph with it.
func sentence(s string) string {
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

// mdText escapes running text for Markdown, line by line.
func mdText(s string) string {
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

func (r *reference) markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("<!-- Code generated by `upgraph docs --format markdown` from the command definitions in cmd/upgraph/; DO NOT EDIT.\n")
	p("     Change the definitions, then run `make docs`. -->\n\n")
	p("# %s command-line reference\n\n", r.name)
	p("%s: %s.\n\n", r.name, mdText(r.usage))
	p("```\n%s [global options] COMMAND [options] [arguments]\n```\n\n", r.name)
	p("Every command prints its own help with `--help`. The same reference is the man page `docs/upgraph.1`\n")
	p("(`man ./docs/upgraph.1`). Commands:\n\n")
	p("| command | |\n|---|---|\n")
	for _, c := range r.commands {
		p("| [`%s`](%s) | %s |\n", c.path, mdAnchor(c.path), mdText(c.usage))
	}
	p("\n## Global options\n\n")
	mdFlags(&b, r.global)
	for _, c := range r.commands {
		p("\n## %s %s\n\n", r.name, c.path)
		p("```\n%s\n```\n\n", c.synopsis(r.name))
		p("%s.\n", mdText(sentence(c.usage)))
		for _, bl := range blocks(c.description) {
			if bl.code {
				p("\n```\n%s\n```\n", strings.Join(bl.lines, "\n"))
			} else {
				p("\n%s\n", mdText(strings.Join(bl.lines, "\n")))
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
	for _, s := range docSections {
		p("\n## %s\n\n%s\n", s.title, s.text)
	}
	return b.String()
}

func mdFlags(b *strings.Builder, flags []docFlag) {
	fmt.Fprintf(b, "| option | value | default | |\n|---|---|---|---|\n")
	for _, f := range flags {
		names := make([]string, len(f.names))
		for i, n := range f.names {
			names[i] = "`" + dashes(n) + "`"
		}
		def := ""
		switch {
		case f.required:
			def = "required"
		case f.value != "":
			def = "`" + f.value + "`"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", strings.Join(names, ", "), f.kind, def, mdText(f.usage))
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

// roffMarkdown renders a docSection's text.
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

func (r *reference) man() string {
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
		p(".PP\n%s.\n", roffText(sentence(c.usage)))
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
	for _, s := range docSections {
		p(".SH %s\n%s", strings.ToUpper(s.title), roffMarkdown(s.text))
	}
	p(".SH SEE ALSO\nREADME.md and docs/ in the upgraph repository.\n")
	return b.String()
}

func manFlags(b *strings.Builder, flags []docFlag) {
	for _, f := range flags {
		names := make([]string, len(f.names))
		for i, n := range f.names {
			names[i] = `\fB` + roffText(dashes(n)) + `\fR`
			if f.kind != "" {
				names[i] += ` \fI` + f.kind + `\fR`
			}
		}
		text := roffText(f.usage)
		switch {
		case f.required:
			text += " (required)"
		case f.value != "":
			text += " (default: " + roffText(f.value) + ")"
		}
		fmt.Fprintf(b, ".TP\n%s\n%s\n", strings.Join(names, ", "), text)
	}
}
