package main

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/catalog/catalogset"
	"github.com/upgraph/upgraph/catalog/upgrade"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/tools/mirrorset"
	"github.com/upgraph/upgraph/tools/opcat"
	"github.com/upgraph/upgraph/tools/path"
)

func mirrorSetCommand() *cli.Command {
	return &cli.Command{
		Name:        "mirror-set",
		Usage:       "the minimal set of bundles and release payloads to mirror so that operators and the cluster can update",
		Description: help("mirror-set"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "installed", Usage: "the installed operators: a YAML or JSON list of {catalog, package, channel, version, target}"},
			&cli.StringSliceFlag{Name: "catalog", Usage: "an operator catalog: NAME=SOURCE, SOURCE, or NAME of the tree at --source (repeatable)"},
			catalogSetFlag("the operator catalogs as a catalog set instead of --catalog: a YAML or JSON file of catalogs {name, source, priority} (sources as --catalog takes them, taken whole); OLM v1 resolves across them"),
			&cli.StringFlag{Name: "olm", Value: string(upgrade.V0), Usage: "the OLM runtime the operators update with: v0 (Subscriptions) or v1 (ClusterExtensions)"},
			catalogPlatformFlag(),
			&cli.StringFlag{Name: "from", Usage: "the release the cluster runs"},
			&cli.StringFlag{Name: "to", Usage: "the release to reach"},
			&cli.StringFlag{Name: "channel", Usage: "the cluster's channel, e.g. stable-4.16"},
			&cli.StringFlag{Name: "arch", Value: policy.DefaultArch, Usage: "the architecture"},
			&cli.BoolFlag{Name: "via-eus", Usage: "also search the EUS channels between the two releases' minor versions"},
			&cli.BoolFlag{Name: "unconditional-only", Usage: "ignore conditional edges"},
			&cli.StringFlag{Name: "source", Value: ".", Usage: "the tree (or graph endpoint) the release graphs and the named catalogs are read from"},
			&cli.StringFlag{Name: "out", Usage: "the directory to write (required)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "what to print: text or json (the plan)"},
		}, treeFlags()...),
		OnUsageError: exitTrouble,
		Action:       answerAction(runMirrorSet),
	}
}

// runMirrorSet reports whether everything reaches its target.
func runMirrorSet(c *cli.Context, log *slog.Logger) (bool, error) {
	if c.NArg() != 0 {
		return false, fmt.Errorf("mirror-set takes no arguments, got %q (flags go before them)", c.Args().Slice())
	}
	flags := opcat.MirrorSetFlags{
		Installed: c.String("installed"), OLM: c.String("olm"), Platform: c.String("catalog-platform"), Format: c.String("format"), Out: c.String("out"),
		From: c.String("from"), To: c.String("to"), Channel: c.String("channel"), Arch: c.String("arch"), Catalogs: c.StringSlice("catalog"), Set: c.IsSet,
	}
	olm, err := flags.Check()
	if err != nil {
		return false, err
	}
	operators, release := flags.Operators(), flags.Release()
	installs, err := mirrorset.ReadInstalls(c.String("installed"), operators)
	if err != nil {
		return false, err
	}
	var set *catalogset.Set
	if c.IsSet("catalog-set") {
		if c.IsSet("catalog") {
			return false, errors.New("--catalog and --catalog-set: give one")
		}
		if set, err = opcat.ReadSet(c.String("catalog-set")); err != nil {
			return false, err
		}
	}
	args, priority, err := opcat.MirrorSetArgs(c.String("catalog-set"), set, c.StringSlice("catalog"), c.String("catalog-platform"))
	if err != nil {
		return false, err
	}
	needTree := release || slices.ContainsFunc(args, func(a opcat.Arg) bool { return a.Tree })
	src, closeSrc, err := openCatalogTree(c, needTree, release, log)
	if err != nil {
		return false, err
	}
	defer closeSrc()
	rep := &mirrorset.Report{Files: []string{}}
	if operators {
		cats, err := opcat.ForInstalls(c.Context, src, args, installs, olm, set != nil, priority, catalogOpts(c, log))
		if err != nil {
			return false, err
		}
		if rep.Operators, err = mirrorset.Compute(cats, installs, olm); err != nil {
			return false, fmt.Errorf("--installed: %w", err)
		}
	}
	if release {
		req := path.Request{From: c.String("from"), To: c.String("to"), Channel: c.String("channel"), Arch: c.String("arch"),
			ViaEUS: c.Bool("via-eus"), Options: path.Options{UnconditionalOnly: c.Bool("unconditional-only")}}
		if rep.Release, err = mirrorset.PlanRelease(c.Context, src, req); err != nil {
			return false, err
		}
	}
	found, err := rep.Write(c.String("out"))
	if err != nil {
		return false, err
	}
	if c.String("format") == "json" {
		return found, rep.WriteJSON(c.App.Writer)
	}
	return found, rep.WriteText(c.App.Writer, c.String("out"))
}
