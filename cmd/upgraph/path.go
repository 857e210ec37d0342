package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/source"
	"github.com/upgraph/upgraph/catalog/treecat"
	"github.com/upgraph/upgraph/catalog/upgrade"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/tools/mirrorset"
	"github.com/upgraph/upgraph/tools/path"
	"github.com/upgraph/upgraph/tree"
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

--id ID or --wariness W names a cluster of a tree with phased rollouts
(docs/rollouts.md): the path is planned on the graph every release offered
(upstream's), and each hop says whether it is available to that cluster's
bucket now, from when, or not at all.

Exits 0 with a path (an empty one when --from is --to), 1 when there is none,
2 on trouble: a version that is not in the graph, an unknown channel or arch,
an unreadable source.

With --catalog and --package it answers for an operator instead: the hops an
OLM runtime takes from the bundle the cluster runs (--from, a version or a
bundle name) to --to (a version or bundle name; default "head", the channel
head), one resolution at a time, in --channel (the Subscription's channel,
or the ClusterExtension's channel filter; default: the package's default
channel when it lists --from, else the only channel listing it), e.g.

    upgraph path --catalog dir:catalog/ --package etcd --from 0.9.2 --olm v0
    upgraph path --source tree --catalog community --package etcd --from 0.9.2

--catalog is a catalog source as generate --catalog reads it (` + catalogSourceSyntax + `),
or the name of a catalog of the tree at --source (operators/NAME/). --olm v0
(the default) follows OLM v0, a Subscription: each hop is the first entry of
the channel, head first along replaces with skipped entries dropped, that
has an edge from the installed bundle; --olm v1 follows OLM v1, a
ClusterExtension: each hop is its pick (successors and the installed bundle,
non-deprecated first, highest version first) until it keeps the installed
bundle. Deprecations (olm.deprecations) of the package, the channel and the
bundles on the way are listed. Without a path, the reason is one of:
stranded (the runtime stops short: no entry it takes has an edge from the
bundle, e.g. its only successor is skipped by OLM v0), skipped-by-v0 (OLM v0
never lands on the target), missing-bundle (the chain goes through a bundle
the catalog lacks), unreachable (the target is not in the channel, or the
runtime moves past it), target-older, channel-invalid (e.g. a skipRange-only
entry made a second head), loop, unsatisfied-dependency (OLM v0 stays, or its
resolution fails, because the dependencies of what it would install cannot be
satisfied), invalid-dependency (a bundle declares a dependency property OLM v0
cannot read); the hops taken before it stops are listed. OLM v0 resolves
dependencies (olm.gvk.required, olm.package.required, olm.label.required,
olm.constraint) as its resolver does, over the catalog (or every catalog of
--catalog-set, by priority): each hop lists each dependency with the bundle OLM
v0 picks for it or why none can be, the providers it installs, and the
candidates it passes over because their dependencies cannot be satisfied.
OLM v1's answers are graph only: it refuses dependencies. Exit statuses as for
releases. docs/operators.md describes the JSON.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "the release the cluster runs (required); with --catalog, the installed bundle: a version or a bundle name"},
			&cli.StringFlag{Name: "to", Usage: "the release to reach (required); with --catalog, a version, a bundle name or \"head\" (the default)"},
			&cli.StringFlag{Name: "channel", Usage: "the channel, e.g. stable-4.16 (required); with --catalog, a channel of --package (optional)"},
			&cli.StringFlag{Name: "arch", Value: policy.DefaultArch, Usage: "the architecture"},
			&cli.StringFlag{Name: "source", Value: ".", Usage: "a tree directory, s3://BUCKET/PREFIX, or the http(s) URL of a static host serving one or of a graph endpoint"},
			&cli.BoolFlag{Name: "via-eus", Usage: "also search the EUS channels between the two releases' minor versions"},
			&cli.BoolFlag{Name: "unconditional-only", Usage: "ignore conditional edges"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
			&cli.StringFlag{Name: "catalog", Usage: "an operator path instead: the catalog, a source (dir:PATH, file:PATH, an image) or the name of a catalog of the tree at --source"},
			catalogSetFlag("an operator path over a catalog set instead: a YAML or JSON file of catalogs {name, source, priority} (sources as --catalog takes them); --catalog then names the installed operator's catalog (optional when one catalog has --package)"),
			&cli.StringFlag{Name: "package", Usage: "with --catalog: the operator package (required)"},
			&cli.StringFlag{Name: "olm", Value: string(upgrade.V0), Usage: "with --catalog: v0 (a Subscription) or v1 (a ClusterExtension)"},
			catalogPlatformFlag(),
		}, append(clusterFlags(), treeFlags()...)...),
		OnUsageError: exitTrouble,
		Action:       answerAction(runPath),
	}
}

// catalogPathFlags are the flags that make path answer for an operator.
var catalogPathFlags = []string{"catalog", "catalog-set", "package", "olm", "catalog-platform"}

// runPath reports whether a path was found.
func runPath(c *cli.Context, log *slog.Logger) (bool, error) {
	if c.NArg() != 0 {
		return false, fmt.Errorf("path takes no arguments, got %q (flags go before them)", c.Args().Slice())
	}
	for _, name := range catalogPathFlags {
		if c.IsSet(name) {
			return runCatalogPath(c, log)
		}
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
	req := path.Request{
		From: c.String("from"), To: c.String("to"), Channel: c.String("channel"), Arch: c.String("arch"),
		ViaEUS: c.Bool("via-eus"), Options: path.Options{UnconditionalOnly: c.Bool("unconditional-only")},
	}
	if err := cliflag.FirstError(req.Check(), tree.CheckLocation("--source", c.String("source"), true), checkTreeFlags(c), checkClusterFlags(c)); err != nil {
		return false, err
	}
	src, err := openGraphSource(c, c.String("source"), log)
	if err != nil {
		return false, fmt.Errorf("--source: %w", err)
	}
	defer src.Close()
	r, err := path.Find(c.Context, src, req)
	if err != nil {
		return false, err
	}
	avail, err := clusterAvailability(c, src, r)
	if err != nil {
		return false, err
	}
	if format == "json" {
		err = writePathJSON(c.App.Writer, r, avail)
	} else if err = r.WriteText(c.App.Writer); err == nil && avail != nil {
		err = writeAvailability(c.App.Writer, avail)
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

// runCatalogPath answers path --catalog: whether the runtime reaches the
// target.
func runCatalogPath(c *cli.Context, log *slog.Logger) (bool, error) {
	for _, name := range []string{"arch", "via-eus", "unconditional-only", "id", "wariness"} {
		if c.IsSet(name) {
			return false, fmt.Errorf("--%s is for release paths, not with --catalog", name)
		}
	}
	olm, err := upgrade.ParseRuntime(c.String("olm"))
	if err != nil {
		return false, fmt.Errorf("--olm: %w", err)
	}
	if c.IsSet("catalog-platform") {
		if err := checkCatalogPlatform(c); err != nil {
			return false, err
		}
	}
	if c.IsSet("catalog-set") {
		if _, err := readCatalogSet(c.String("catalog-set")); err != nil {
			return false, err
		}
	}
	if !c.IsSet("catalog") && !c.IsSet("catalog-set") {
		return false, errors.New("--package, --olm and --catalog-platform need --catalog (the operator catalog) or --catalog-set")
	}
	var arg catalogArg
	if !c.IsSet("catalog-set") {
		var err error
		if arg, err = parseCatalogArg("catalog", c.String("catalog"), c.String("catalog-platform")); err != nil {
			return false, err
		}
	} else if c.IsSet("catalog") && catviews.CheckName(c.String("catalog")) != nil {
		return false, fmt.Errorf("--catalog %q: with --catalog-set, the name of the installed operator's catalog in the set", c.String("catalog"))
	}
	switch pkg := c.String("package"); {
	case !c.IsSet("package"):
		return false, errors.New("--package is required with --catalog")
	case pkg == "":
		return false, errors.New("--package: empty value: want an operator package of the catalog")
	}
	if c.String("from") == "" {
		return false, errors.New("--from is required: the installed bundle, a version or a bundle name")
	}
	if c.IsSet("to") && c.String("to") == "" {
		return false, errors.New("--to: empty value: want a version, a bundle name or head (the default)")
	}
	if c.IsSet("channel") && c.String("channel") == "" {
		return false, errors.New("--channel: empty value (leave it out for the default channel)")
	}
	format := c.String("format")
	if format != "text" && format != "json" {
		return false, fmt.Errorf("--format: want text or json, got %q", format)
	}
	if c.IsSet("catalog-set") {
		return runCatalogSetPath(c, log, olm, format)
	}
	var src *mirror.Source
	if arg.tree {
		if err := cliflag.FirstError(tree.CheckLocation("--source", c.String("source"), false), checkTreeFlags(c)); err != nil {
			return false, err
		}
		if src, err = openGraphSource(c, c.String("source"), log); err != nil {
			return false, fmt.Errorf("--source: %w", err)
		}
		defer src.Close()
	}
	cat, err := loadOperatorCatalog(c, src, arg, []string{c.String("package")}, log)
	if err != nil {
		return false, err
	}
	if olm == upgrade.V0 && arg.tree {
		// OLM v0's dependencies may be provided by any package: the
		// whole catalog (the read above named a missing package).
		if cat, err = loadOperatorCatalog(c, src, arg, nil, log); err != nil {
			return false, err
		}
	}
	q := upgrade.Query{Package: c.String("package"), Channel: c.String("channel"), From: c.String("from"), To: c.String("to"), OLM: olm}
	var r *upgrade.Report
	if olm == upgrade.V0 {
		if cat.Model.Package(q.Package) == nil {
			r, err = upgrade.Find(cat.Model, q) // the error naming the packages it has
		} else {
			name := c.String("catalog")
			r, err = upgrade.FindV0InSet(model.NewV0Set([]model.V0CatalogMember{{Name: name, Catalog: cat.Model}}), name, q)
		}
	} else {
		r, err = upgrade.Find(cat.Model, q)
	}
	if err != nil {
		return false, err
	}
	r.Catalog = c.String("catalog")
	if format == "json" {
		err = r.WriteJSON(c.App.Writer)
	} else {
		err = r.WriteText(c.App.Writer)
	}
	return r.Found, err
}

// runCatalogSetPath answers path --catalog-set: the installed operator's
// catalog (--catalog, or the only one with the package) for OLM v0, the
// whole set for OLM v1.
func runCatalogSetPath(c *cli.Context, log *slog.Logger, olm upgrade.Runtime, format string) (bool, error) {
	file := c.String("catalog-set")
	set, err := readCatalogSet(file)
	if err != nil {
		return false, err
	}
	var src *mirror.Source
	if setNeedsTree(set, "") {
		if err := cliflag.FirstError(tree.CheckLocation("--source", c.String("source"), false), checkTreeFlags(c)); err != nil {
			return false, err
		}
		if src, err = openGraphSource(c, c.String("source"), log); err != nil {
			return false, fmt.Errorf("--source: %w", err)
		}
		defer src.Close()
	}
	pkg := c.String("package")
	var (
		members []upgrade.SetMember
		v0      *model.V0Set
	)
	if olm == upgrade.V0 {
		v0, members, err = loadV0Set(c, src, file, set, "", pkg, log)
	} else {
		members, err = loadSetMembers(c, src, file, set, "", pkg)
	}
	if err != nil {
		return false, err
	}
	home, err := homeCatalog("catalog", c.String("catalog"), file, members, pkg)
	if err != nil {
		return false, err
	}
	q := upgrade.Query{Package: pkg, Channel: c.String("channel"), From: c.String("from"), To: c.String("to"), OLM: olm}
	var r *upgrade.Report
	if v0 != nil {
		r, err = upgrade.FindV0InSet(v0, home, q)
	} else {
		r, err = upgrade.FindInSet(members, home, q)
	}
	if err != nil {
		return false, err
	}
	if format == "json" {
		err = r.WriteJSON(c.App.Writer)
	} else {
		err = r.WriteText(c.App.Writer)
	}
	return r.Found, err
}

// catalogArg is a --catalog value of path and mirror-set: a catalog
// source (NAME=SOURCE names it), or the name of a catalog of the tree at
// --source.
type catalogArg struct {
	flag, value string
	// name is the catalog's name: the tree's catalog, or NAME of
	// NAME=SOURCE ("" for a bare source).
	name string
	tree bool
	spec string
	// setName is the catalog's name in the command's set (mirror-set:
	// NAME of NAME=SOURCE, or of --catalog-set; for a catalog of the tree
	// it may differ from name, the tree's).
	setName string
}

// parseCatalogArg reads a --catalog value: NAME=SOURCE; a bare DNS-1123
// label that names no file or directory is a catalog of the tree; else a
// source, checked as far as it can be without reading it.
func parseCatalogArg(flag, value, platform string) (catalogArg, error) {
	a := catalogArg{flag: flag, value: value}
	if value == "" {
		return a, fmt.Errorf("--%s: empty value: want a catalog source (%s) or a catalog name of the tree at --source", flag, catalogSourceSyntax)
	}
	if name, spec, ok := strings.Cut(value, "="); ok && catviews.CheckName(name) == nil {
		if spec == "" {
			return a, fmt.Errorf("--%s %q: no source after '='", flag, value)
		}
		a.name, a.spec = name, spec
	} else if _, err := os.Stat(value); err != nil && catviews.CheckName(value) == nil {
		a.name, a.tree = value, true
		return a, nil
	} else {
		a.spec = value
	}
	return a, checkCatalogSource(flag, a.spec, platform)
}

// loadOperatorCatalog reads a --catalog: from the tree src (only the
// packages pkgs), or from its source (all of it), and converts it.
// Problems of the catalog do not stop it: a path is answered on an
// invalid catalog too (it says so).
func loadOperatorCatalog(c *cli.Context, src *mirror.Source, a catalogArg, pkgs []string, log *slog.Logger) (*mirrorset.Catalog, error) {
	if a.tree {
		if src == nil || src.Tree == nil {
			return nil, fmt.Errorf("--%s %s: a catalog of a tree, but --source is a graph endpoint, which has no catalogs", a.flag, a.value)
		}
		cfg, sum, err := treecat.Read(c.Context, src.Tree, a.name, pkgs)
		if err != nil {
			return nil, fmt.Errorf("--%s %s: %w", a.flag, a.value, err)
		}
		cat := &mirrorset.Catalog{Name: a.name, Reference: sum.Source.Reference, Config: cfg, Model: model.Convert(cfg),
			Bundles: sum.Counts.Bundles}
		if sum.Source.Kind == string(source.KindImage) {
			cat.Image = true
			if sum.Source.Resolved != "" {
				cat.Reference = sum.Source.Resolved
			}
		}
		return cat, nil
	}
	opts, err := catalogOptions(c, log)
	if err != nil {
		return nil, err
	}
	s, err := source.Parse(a.spec, opts)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", a.flag, err)
	}
	cfg, info, err := s.Load(c.Context)
	if err != nil {
		return nil, fmt.Errorf("--%s %s: %w", a.flag, a.value, err)
	}
	cat := &mirrorset.Catalog{Name: a.name, Reference: s.String(), Config: cfg, Model: model.Convert(cfg)}
	if info.Kind == source.KindImage {
		cat.Image, cat.Reference = true, info.Reference
		if info.Resolved != "" {
			cat.Reference = info.Resolved
		}
	}
	return cat, nil
}
