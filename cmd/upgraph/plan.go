package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/catalog/upgrade"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/tools/mirrorset"
	"github.com/upgraph/upgraph/tools/opcat"
	"github.com/upgraph/upgraph/tools/path"
	clusterplan "github.com/upgraph/upgraph/tools/plan"
	"github.com/upgraph/upgraph/tree"
)

func planCommand() *cli.Command {
	return &cli.Command{
		Name:        "plan",
		Usage:       "a cluster update path with, for each minor it crosses, what every installed operator needs",
		Description: help("plan"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "the release the cluster runs (required)"},
			&cli.StringFlag{Name: "to", Usage: "the release to reach (required)"},
			&cli.StringFlag{Name: "channel", Usage: "the cluster's channel, e.g. stable-4.22 (required)"},
			&cli.StringFlag{Name: "arch", Value: policy.DefaultArch, Usage: "the architecture"},
			&cli.StringFlag{Name: "source", Value: ".", Usage: "the tree (or graph endpoint) the release graphs, and the catalogs named by NAME, are read from"},
			&cli.BoolFlag{Name: "via-eus", Usage: "also search the EUS channels between the two releases' minor versions, and mark EUS-to-EUS updates"},
			&cli.BoolFlag{Name: "unconditional-only", Usage: "ignore conditional edges"},
			&cli.StringFlag{Name: "operators", Usage: "the installed operators: a YAML or JSON list of {package, channel, version} (required)"},
			&cli.StringSliceFlag{Name: "catalogs", Usage: "the catalog of each minor on the path: vX.Y=SOURCE (a source, or NAME of the tree at --source), comma-separated or repeated (required, or --catalog-set)"},
			catalogSetFlag("the cluster's catalog set instead of --catalogs: a YAML or JSON file of catalogs {name, priority, minors: {vX.Y: SOURCE}} (or one source for every minor)"),
			&cli.StringFlag{Name: "olm", Value: string(upgrade.V0), Usage: "the OLM runtime the operators update with: v0 (Subscriptions) or v1 (ClusterExtensions)"},
			catalogPlatformFlag(),
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
		}, append(clusterFlags(), treeFlags()...)...),
		OnUsageError: exitTrouble,
		Action:       answerAction(runPlan),
	}
}

// runPlan reports whether the plan has no blocker.
func runPlan(c *cli.Context, log *slog.Logger) (bool, error) {
	if c.NArg() != 0 {
		return false, fmt.Errorf("plan takes no arguments, got %q (flags go before them)", c.Args().Slice())
	}
	olm, cats, err := checkPlanFlags(c)
	if err == nil {
		err = cluster(c).Check()
	}
	if err != nil {
		return false, err
	}
	file := c.String("operators")
	data, err := os.ReadFile(file)
	if err != nil {
		return false, fmt.Errorf("--operators: %w", err)
	}
	// The keys plan takes: no target (plan chooses the updates), and a
	// catalog only from a catalog set (one catalog per minor otherwise).
	keys := []string{"package", "channel", "version"}
	if c.IsSet("catalog-set") {
		keys = append([]string{"catalog"}, keys...)
	}
	installs, err := mirrorset.ParseInstallsWith(data, keys)
	if err != nil {
		return false, fmt.Errorf("--operators %s: %w", file, err)
	}
	src, err := openGraphSource(c, c.String("source"), log)
	if err != nil {
		return false, fmt.Errorf("--source: %w", err)
	}
	defer src.Close()
	req := path.Request{From: c.String("from"), To: c.String("to"), Channel: c.String("channel"), Arch: c.String("arch"),
		ViaEUS: c.Bool("via-eus"), Options: path.Options{UnconditionalOnly: c.Bool("unconditional-only")}}
	rel, err := path.Find(c.Context, src, req)
	if err != nil {
		return false, err
	}
	avail, err := path.Availability(src, c.String("source"), rel, cluster(c))
	if err != nil {
		return false, err
	}
	minors, err := clusterplan.Minors(rel)
	if err != nil {
		return false, err
	}
	flag := "--catalogs"
	if c.IsSet("catalog-set") {
		flag = "--catalog-set " + c.String("catalog-set")
		set, err := opcat.ReadSet(c.String("catalog-set"))
		if err != nil {
			return false, err
		}
		if cats, err = clusterplan.SetGiven(c.String("catalog-set"), set, minors, c.String("catalog-platform")); err != nil {
			return false, err
		}
	}
	p, err := clusterplan.ComputeGiven(c.Context, clusterplan.Request{Release: rel, Operators: installs, OLM: olm, ViaEUS: req.ViaEUS}, cats,
		clusterplan.GivenOptions{Source: src, Flag: flag, OperatorsFile: file, SourceOptions: catalogOpts(c, log)})
	if err != nil {
		return false, err
	}
	return !p.Blocked, path.WriteWithCluster(c.App.Writer, c.String("format"), "plan", p, avail)
}

// checkPlanFlags checks the flags before anything is read
// (clusterplan.Flags.Check, then --source's), and parses --olm and
// --catalogs.
func checkPlanFlags(c *cli.Context) (upgrade.Runtime, []clusterplan.Given, error) {
	olm, cats, err := clusterplan.Flags{
		From: c.String("from"), To: c.String("to"), Channel: c.String("channel"), Arch: c.String("arch"), Format: c.String("format"),
		OLM: c.String("olm"), Platform: c.String("catalog-platform"), Operators: c.String("operators"),
		CatalogSet: c.String("catalog-set"), Catalogs: cliflag.List(c, "catalogs"), Set: c.IsSet,
	}.Check()
	if err != nil {
		return "", nil, err
	}
	return olm, cats, cliflag.FirstError(tree.CheckLocation("--source", c.String("source"), true), checkTreeFlags(c))
}
