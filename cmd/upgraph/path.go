package main

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator/path"
	"github.com/upgraph/upgraph/generator/policy"
	ver "github.com/upgraph/upgraph/generator/version"
)

// Exit statuses of the commands whose status answers a question, as
// diff(1)'s does, which scripts and CI jobs test for: 0 yes (diff: no
// difference; path: a path), 1 no, and trouble (a bad flag, an unreadable
// source, an unknown version or channel) 2.
const (
	answerNo      = 1
	answerTrouble = 2
)

// answerAction runs a command whose exit status answers a question: run
// says the answer, or why there is none. The output says it all.
func answerAction(run func(*cli.Context, *slog.Logger) (bool, error)) cli.ActionFunc {
	return func(c *cli.Context) error {
		log, err := logger(c)
		var yes bool
		if err == nil {
			yes, err = run(c, log)
		}
		switch {
		case err != nil:
			return cli.Exit(err, answerTrouble)
		case !yes:
			return cli.Exit("", answerNo)
		}
		return nil
	}
}

// exitTrouble is their OnUsageError: a bad flag must not exit with 1.
func exitTrouble(_ *cli.Context, err error, _ bool) error { return cli.Exit(err, answerTrouble) }

func pathCommand() *cli.Command {
	return &cli.Command{
		Name:  "path",
		Usage: "the update path a cautious admin would take from one release to another in a channel",
		Description: `Prints the best update path from --from to --to in the --channel × --arch graph
that --source serves: ` + locationHelp + `.

The best path has the fewest hops; among those, the fewest conditional hops;
among those, the newest intermediate releases, compared from the first hop on
(SemVer precedence). Hops are counted first, so one conditional hop beats two
unconditional ones; a conditional hop lists its risks (name, matching rule
types, message, URL) for the admin to judge. --unconditional-only leaves
conditional edges out.

--via-eus also searches the EUS channels eus-X.Y whose X.Y lies between
--from's major.minor and --to's, both included (eus-4.14 and eus-4.16 for
4.14.z → 4.16.z): the union of their graphs with --channel's, as a cluster
can switch channels between updates; each hop names the channels that have
it. Only channels the tree has are read; an endpoint, which cannot list its
channels, is asked for eus-X.Y for every minor in that range (it answers an
empty graph for one it does not know).

Exits 0 with a path (an empty one when --from is --to), 1 when there is none,
2 on trouble: a version that is not in the graph, an unknown channel or arch,
an unreadable source.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "the release the cluster runs (required)"},
			&cli.StringFlag{Name: "to", Usage: "the release to reach (required)"},
			&cli.StringFlag{Name: "channel", Usage: "the channel, e.g. stable-4.16 (required)"},
			&cli.StringFlag{Name: "arch", Value: policy.DefaultArch, Usage: "the architecture"},
			&cli.StringFlag{Name: "source", Value: ".", Usage: "a tree directory, s3://BUCKET/PREFIX, or the http(s) URL of a static host serving one or of a graph endpoint"},
			&cli.BoolFlag{Name: "via-eus", Usage: "also search the EUS channels between the two releases' minor versions"},
			&cli.BoolFlag{Name: "unconditional-only", Usage: "ignore conditional edges"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
		}, treeFlags()...),
		OnUsageError: exitTrouble,
		Action:       answerAction(runPath),
	}
}

// runPath reports whether a path was found.
func runPath(c *cli.Context, log *slog.Logger) (bool, error) {
	if c.NArg() != 0 {
		return false, fmt.Errorf("path takes no arguments, got %q (flags go before them)", c.Args().Slice())
	}
	// Checked here rather than with Required, whose error would exit 1,
	// which means "no path".
	for _, name := range []string{"from", "to", "channel"} {
		if c.String(name) == "" {
			return false, fmt.Errorf("--%s is required", name)
		}
	}
	format := c.String("format")
	if format != "text" && format != "json" {
		return false, fmt.Errorf("--format: want text or json, got %q", format)
	}
	if ch := c.String("channel"); !policy.ChannelPattern.MatchString(ch) {
		return false, fmt.Errorf("--channel %q does not match %s", ch, policy.ChannelPattern)
	}
	if arch := c.String("arch"); !policy.ArchPattern.MatchString(arch) {
		return false, fmt.Errorf("--arch %q does not match %s", arch, policy.ArchPattern)
	}
	for _, name := range []string{"from", "to"} {
		if _, err := ver.Parse(c.String(name)); err != nil {
			return false, fmt.Errorf("--%s: %w", name, err)
		}
	}
	if err := firstError(checkTreeSource("--source", c.String("source"), true), checkTreeFlags(c)); err != nil {
		return false, err
	}
	src, err := openGraphSource(c, c.String("source"), log)
	if err != nil {
		return false, fmt.Errorf("--source: %w", err)
	}
	defer src.Close()
	req := path.Request{
		From: c.String("from"), To: c.String("to"), Channel: c.String("channel"), Arch: c.String("arch"),
		ViaEUS: c.Bool("via-eus"), Options: path.Options{UnconditionalOnly: c.Bool("unconditional-only")},
	}
	r, err := path.Find(c.Context, src, req)
	if err != nil {
		return false, err
	}
	if format == "json" {
		err = r.WriteJSON(c.App.Writer)
	} else {
		err = r.WriteText(c.App.Writer)
	}
	if err != nil {
		return false, err
	}
	if !r.Found && !req.ViaEUS {
		if tree, ok := path.Channels(src); ok {
			if eus := path.EUSChannels(tree, req.From, req.To); len(eus) > 0 {
				fmt.Fprintf(c.App.ErrWriter, "hint: --via-eus also searches %s\n", strings.Join(eus, ", "))
			}
		}
	}
	return r.Found, nil
}
