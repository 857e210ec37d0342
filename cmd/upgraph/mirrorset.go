package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/catalog/treecat"
	"github.com/upgraph/upgraph/catalog/upgrade"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/internal/jsonw"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/tools/mirrorset"
	"github.com/upgraph/upgraph/tools/path"
	"github.com/upgraph/upgraph/tree"
)

func mirrorSetCommand() *cli.Command {
	return &cli.Command{
		Name:  "mirror-set",
		Usage: "the minimal set of bundles and release payloads to mirror so that operators and the cluster can update",
		Description: help("mirror-set") + catalogSourceSyntax + `),
or the NAME of a catalog of the tree at --source. The bundle a cluster runs
is not mirrored (it is installed already).

Either part may be left out: --installed alone plans operators, --from, --to
and --channel alone the cluster. --out is created; an existing one must be
empty or hold a previous mirror-set (mirror-set.json), which is replaced.

Exits 0 when every install and the cluster reach their targets, 1 when one
does not (nothing is written; the reasons are printed, as by upgraph path), 2
on trouble.`,
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
	operators := c.IsSet("installed")
	release := c.IsSet("from") || c.IsSet("to") || c.IsSet("channel")
	if err := checkMirrorSetFlags(c, operators, release); err != nil {
		return false, err
	}
	olm, _ := upgrade.ParseRuntime(c.String("olm"))
	installs, err := readInstalled(c.String("installed"), operators)
	if err != nil {
		return false, err
	}
	var args []catalogArg
	priority := map[string]int32{}
	needTree := release
	if c.IsSet("catalog-set") {
		if c.IsSet("catalog") {
			return false, errors.New("--catalog and --catalog-set: give one")
		}
		file := c.String("catalog-set")
		set, err := readCatalogSet(file)
		if err != nil {
			return false, err
		}
		for i := range set.Catalogs {
			sc := &set.Catalogs[i]
			if sc.Source == "" {
				return false, fmt.Errorf("--catalog-set %s: line %d: catalog %s: mirror-set needs one source, not minors", file, sc.Line, sc.Name)
			}
			a, err := setCatalogArg(file, sc, sc.Source, c.String("catalog-platform"))
			if err != nil {
				return false, err
			}
			a.setName = sc.Name
			priority[sc.Name] = sc.Priority
			needTree = needTree || a.tree
			args = append(args, a)
		}
	}
	for _, v := range c.StringSlice("catalog") {
		a, err := parseCatalogArg("catalog", v, c.String("catalog-platform"))
		if err != nil {
			return false, err
		}
		if a.name == "" {
			a.name = "catalog"
			if len(c.StringSlice("catalog")) > 1 {
				return false, fmt.Errorf("--catalog %s: with several catalogs, name each: NAME=SOURCE", v)
			}
		}
		a.setName = a.name
		if slices.ContainsFunc(args, func(b catalogArg) bool { return b.name == a.name }) {
			return false, fmt.Errorf("--catalog: catalog name %q given twice", a.name)
		}
		needTree = needTree || a.tree
		args = append(args, a)
	}
	var src *mirror.Source
	if needTree {
		if err := cliflag.FirstError(tree.CheckLocation("--source", c.String("source"), release), checkTreeFlags(c)); err != nil {
			return false, err
		}
		if src, err = openGraphSource(c, c.String("source"), log); err != nil {
			return false, fmt.Errorf("--source: %w", err)
		}
		defer src.Close()
	}
	rep := &mirrorset.Report{Files: []string{}}
	if operators {
		var reads []catalogRead
		var wantErr error // a tree's summary that cannot be read, after reads
		for _, a := range args {
			var pkgs []string
			for _, in := range installs {
				// Over a catalog set, OLM v1 looks for every package in
				// every catalog.
				if in.Catalog == a.setName || (in.Catalog == "" && len(args) == 1) || c.IsSet("catalog-set") {
					if !slices.Contains(pkgs, in.Package) {
						pkgs = append(pkgs, in.Package)
					}
				}
			}
			if olm == upgrade.V0 {
				// OLM v0 resolves dependencies over every package of the
				// catalogs: read them whole (nil: all.jsonl of a tree).
				pkgs = nil
			} else if a.tree && c.IsSet("catalog-set") {
				// Read only the packages the tree's catalog has: a
				// package it lacks is a catalog of the set without it.
				sum, err := treecat.Summary(c.Context, src.Tree, a.name)
				if err != nil {
					wantErr = fmt.Errorf("--%s %s: %w", a.flag, a.value, err)
					break
				}
				pkgs = slices.DeleteFunc(pkgs, func(p string) bool {
					return !slices.ContainsFunc(sum.Packages, func(sp catviews.PackageSummary) bool { return sp.Name == p })
				})
			}
			reads = append(reads, catalogRead{arg: a, pkgs: pkgs})
		}
		// The catalogs are read together; the first error in the order
		// of the catalogs is the one reported.
		cats, _, err := loadOperatorCatalogs(c, src, reads, !readModels, log)
		switch {
		case err != nil:
			return false, err
		case wantErr != nil:
			return false, wantErr
		}
		for i, cat := range cats {
			cat.Name, cat.Priority = reads[i].arg.setName, priority[reads[i].arg.setName]
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
		data, err := jsonw.Indented(rep)
		if err != nil {
			return false, err
		}
		_, err = c.App.Writer.Write(data)
		return found, err
	}
	return found, rep.WriteText(c.App.Writer, c.String("out"))
}

// checkMirrorSetFlags checks the flags before anything is read.
func checkMirrorSetFlags(c *cli.Context, operators, release bool) error {
	if !operators && !release {
		return errors.New("nothing to plan: give --installed (with --catalog) for operators, or --from, --to and --channel for the cluster")
	}
	if _, err := upgrade.ParseRuntime(c.String("olm")); err != nil {
		return fmt.Errorf("--olm: %w", err)
	}
	if c.IsSet("catalog-platform") {
		if err := checkCatalogPlatform(c); err != nil {
			return err
		}
	}
	if format := c.String("format"); format != "text" && format != "json" {
		return fmt.Errorf("--format: want text or json, got %q", format)
	}
	switch {
	case operators && c.String("installed") == "":
		return errors.New("--installed: empty value: want a YAML or JSON file")
	case operators:
		if err := cliflag.CheckPath("installed", c.String("installed"), cliflag.WantFile); err != nil {
			return err
		}
		if !c.IsSet("catalog") && !c.IsSet("catalog-set") {
			return errors.New("--installed needs --catalog (or --catalog-set): the catalog(s) the operators come from")
		}
	case c.IsSet("catalog") || c.IsSet("catalog-set") || c.IsSet("olm") || c.IsSet("catalog-platform"):
		return errors.New("--catalog, --catalog-set, --olm and --catalog-platform need --installed (the operators to plan)")
	}
	if c.IsSet("catalog") && len(c.StringSlice("catalog")) == 0 {
		return errors.New("--catalog: empty value")
	}
	if release {
		for _, name := range []string{"from", "to", "channel"} {
			if c.String(name) == "" {
				return fmt.Errorf("--%s is required for the cluster's path (with --from, --to and --channel)", name)
			}
		}
		req := path.Request{From: c.String("from"), To: c.String("to"), Channel: c.String("channel"), Arch: c.String("arch")}
		if err := req.Check(); err != nil {
			return err
		}
	} else {
		for _, name := range []string{"arch", "via-eus", "unconditional-only"} {
			if c.IsSet(name) {
				return fmt.Errorf("--%s is for the cluster's path: give --from, --to and --channel", name)
			}
		}
	}
	return checkMirrorSetOut(c.String("out"), c.IsSet("out"))
}

// checkMirrorSetOut checks --out: not the root, and a missing directory,
// an empty one or one holding a previous mirror-set.
func checkMirrorSetOut(out string, set bool) error {
	switch {
	case !set:
		return errors.New("--out is required: the directory to write")
	case out == "":
		return errors.New("--out: empty path")
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if filepath.Dir(abs) == abs {
		return fmt.Errorf("--out %s: the root directory", out)
	}
	st, err := os.Stat(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--out: %w", err)
	case !st.IsDir():
		return fmt.Errorf("--out %s: exists and is not a directory", out)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if len(ents) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(out, mirrorset.ReportFile)); err != nil {
		return fmt.Errorf("--out %s: not empty and holds no %s (a previous mirror-set): give a new directory", out, mirrorset.ReportFile)
	}
	return nil
}

func readInstalled(file string, operators bool) ([]mirrorset.Install, error) {
	if !operators {
		return nil, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--installed: %w", err)
	}
	installs, err := mirrorset.ParseInstalls(data)
	if err != nil {
		return nil, fmt.Errorf("--installed %s: %w", file, err)
	}
	return installs, nil
}
