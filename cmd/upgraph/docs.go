package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/clidoc"
	"github.com/upgraph/upgraph/internal/cliflag"
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
			if err := cliflag.CheckEnum(c, "format", "markdown", "man"); err != nil {
				return err
			}
			if c.NArg() > 0 {
				return fmt.Errorf("docs: want no arguments, got %d", c.NArg())
			}
			ref, err := clidoc.New(newApp(), docSections)
			if err != nil {
				return err
			}
			out := ref.Markdown()
			if c.String("format") == "man" {
				out = ref.Man()
			}
			_, err = io.WriteString(c.App.Writer, out)
			return err
		},
	}
}

// docSections follow the commands, in both renderings.
var docSections = []clidoc.Section{
	{Title: "Exit status", Text: "Exit status 0 on success, 1 on any error; errors name the file and, where the format allows, the\n" +
		"line. `diff` exits 0 when nothing differs, 1 when something does and 2 on errors; `path` exits 1\n" +
		"when there is no path and 2 on errors; `validate` exits 1 when there are errors (warnings alone: 0);\n" +
		"`verify` exits 1 when a file is bad."},
	{Title: "Memory", Text: fmt.Sprintf("`generate` lets the Go heap grow to %d MiB before collecting garbage (`internal/gcbudget`: the\n"+
		"collector's proportional pacing is off under a memory limit, and comes back once a collection finds\n"+
		"three quarters of that live, so larger inputs are collected as usual); a generation at real scale peaks at\n"+
		"about 285 MB resident. `GOGC` or `GOMEMLIMIT` in the environment turn this off.", generator.HeapBudget>>20)},
	{Title: "Environment", Text: "* `SOURCE_DATE_EPOCH`: the `generatedAt` time of `generate`, and of `mirror` from a graph endpoint (a tree's own time is kept), for reproducible trees.\n" +
		"* `XDG_CACHE_HOME`: the default scrape cache is `$XDG_CACHE_HOME/upgraph/scrape`; a run that adds to a scrape cache removes (at most hourly) the entries no run has read for 90 days, then the least recently used beyond 256 MiB.\n" +
		"* `DOCKER_CONFIG`: registry credentials, from `$DOCKER_CONFIG/config.json` (else `~/.docker/config.json`) and its credential helpers.\n" +
		"* `AWS_ACCESS_KEY_ID`, `AWS_PROFILE`, `AWS_REGION`, …: the standard AWS configuration, for `s3://` trees.\n" +
		"* `GOGC`, `GOMEMLIMIT`: see Memory."},
}
