package main

import (
	"fmt"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator/dot"
	"github.com/upgraph/upgraph/generator/path"
	"github.com/upgraph/upgraph/generator/policy"
)

func dotCommand() *cli.Command {
	return &cli.Command{
		Name:  "dot",
		Usage: "draw a channel × arch update graph in Graphviz's DOT language",
		Description: `Prints the --channel × --arch graph that --source serves (` + locationHelp + `)
as a DOT digraph, e.g. for

    upgraph dot --channel stable-4.16 --source out | dot -Tsvg > stable-4.16.svg

Nodes are releases, labelled by version. Update edges are solid; conditional
edges are dashed, labelled with their risk names (the SVG tooltip adds the
risk messages and links to the first risk's URL).

--blocked adds, dotted grey, the edges graph-data removes, derived from the
removal metadata the graph still carries on each release:
previous.remove_regex (blocked edges and conditional risks; matched against
the version with the arch as build, as upstream matches it), previous.remove
and next.remove; a regex or "*" only names releases older than the target, of
its minor or the one before. Pairs the graph serves as an edge or a
conditional edge are not repeated. The graph does not say which edges the
releases' own metadata had, so a dotted edge is one graph-data would remove,
not proof that it existed.

Output is deterministic: nodes by version, edges sorted.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "channel", Usage: "the channel, e.g. stable-4.16 (required)"},
			&cli.StringFlag{Name: "arch", Value: policy.DefaultArch, Usage: "the architecture"},
			&cli.StringFlag{Name: "source", Value: ".", Usage: "a tree or a graph endpoint (see the description)"},
			&cli.BoolFlag{Name: "blocked", Usage: "also draw the edges graph-data removes, dotted grey"},
		}, treeFlags()...),
		Action: withLog(func(c *cli.Context, log *slog.Logger) error {
			if c.NArg() != 0 {
				return fmt.Errorf("dot takes no arguments, got %q (flags go before them)", c.Args().Slice())
			}
			channel, arch := c.String("channel"), c.String("arch")
			switch {
			case channel == "":
				return fmt.Errorf("--channel is required")
			case !policy.ChannelPattern.MatchString(channel):
				return fmt.Errorf("--channel %q does not match %s", channel, policy.ChannelPattern)
			case !policy.ArchPattern.MatchString(arch):
				return fmt.Errorf("--arch %q does not match %s", arch, policy.ArchPattern)
			}
			if err := firstError(checkTreeSource("--source", c.String("source"), true), checkTreeFlags(c)); err != nil {
				return err
			}
			src, err := openGraphSource(c, c.String("source"), log)
			if err != nil {
				return fmt.Errorf("--source: %w", err)
			}
			defer src.Close()
			g, err := path.Read(c.Context, src, channel, arch)
			if err != nil {
				return err
			}
			return dot.Write(c.App.Writer, g, dot.Options{
				Title: fmt.Sprintf("%s (%s)", channel, arch), Blocked: c.Bool("blocked"), Arch: arch,
			})
		}),
	}
}
