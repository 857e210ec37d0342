package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/catalog/treecat"
	"github.com/upgraph/upgraph/catalog/upgrade"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/tools/mirrorset"
	"github.com/upgraph/upgraph/tools/path"
	clusterplan "github.com/upgraph/upgraph/tools/plan"
	"github.com/upgraph/upgraph/tree"
	ver "github.com/upgraph/upgraph/tree/version"
)

func planCommand() *cli.Command {
	return &cli.Command{
		Name:  "plan",
		Usage: "a cluster update path with, for each minor it crosses, what every installed operator needs",
		Description: `Plans the cluster's update from --from to --to in --channel (the path upgraph
path prints, read from --source: ` + locationHelp + `) together with its
OLM operators. For each minor the path crosses (4.y → 4.y+1, and 4.22 → 5.0:
the minors are those of the releases on the path, never computed), and each
operator of --operators:

  - whether its installed bundle's olm.maxOpenShiftVersion blocks the hop: OLM
    sets Upgradeable=False while an installed CSV's value is below the next
    minor (compared as major.minor, with 4.23 ≡ 5.0, as OLM does; an invalid
    value blocks too);
  - if it does, the update required before the hop: the first bundle on the
    operator's path in the current minor's catalog (the hops --olm takes in
    its channel, as upgraph path --catalog prints them) whose
    maxOpenShiftVersion allows the next minor; without one the hop is
    blocked, and other channels that have one are named;
  - where the operator stands in the next minor's catalog: its channel's
    path to the head there, or stranded (with the reason), or the channel or
    the package gone;
  - the deprecations ahead in the next minor's catalog (package, channel, the
    installed bundle and the bundles on its path there).

--operators is a YAML or JSON list of {package, channel, version}, the format
of mirror-set --installed (catalog and target are refused: one catalog per
minor, and the plan chooses the updates); channel is optional (the default
channel when it lists the version, else the only one listing it). An entry
listed twice is refused, naming both lines.

--catalogs (comma-separated or repeated) gives the catalog the cluster uses
at each minor, keyed by the minor: v4.21=SOURCE, where SOURCE is a catalog
source as generate --catalog reads it (` + catalogSourceSyntax + `)
or the NAME of a catalog of the tree at --source. Every minor on the path
needs one; others are not read.

--via-eus also searches the EUS channels between the two minors (as for
path), and marks EUS-to-EUS updates: an odd 4.y between two EUS minors is
passed through with the worker pools paused. Operators must still allow it:
OLM checks at every minor, so it is planned as a hop (updates needed there
happen with the workers paused).

--catalog-set FILE replaces --catalogs with the cluster's catalog set: its
catalogs (name, priority, and a source per minor, or one source for all;
docs/operators.md). Each operator of --operators names the catalog it is
installed from (catalog: its Subscription's spec.source; optional when
only one catalog has the package); OLM v0 follows that catalog, OLM v1
resolves across the catalogs of each minor (a higher priority wins, a
tie is an error).

Exits 0 for a plan without blockers, 1 when the cluster cannot take the path
(no path, or an operator that blocks a hop), 2 on trouble. OLM v0 is graph
only (no dependency or GVK resolution; a bundle with the legacy
olm.deprecated property is never a hop); OLM v1 refuses a bundle that
declares a dependency, as operator-controller does, and the plan says "OLM
v1 cannot update X: Y declares ...". docs/operators.md describes the JSON
(schema/cli/plan.schema.json).`,
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

// planCatalog is a --catalogs entry.
type planCatalog struct {
	minor clusterplan.Minor
	key   string
	arg   catalogArg
	// name and priority are a --catalog-set catalog's.
	name     string
	priority int32
}

// runPlan reports whether the plan has no blocker.
func runPlan(c *cli.Context, log *slog.Logger) (bool, error) {
	if c.NArg() != 0 {
		return false, fmt.Errorf("plan takes no arguments, got %q (flags go before them)", c.Args().Slice())
	}
	olm, cats, err := checkPlanFlags(c)
	if err == nil {
		err = checkClusterFlags(c)
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
	avail, err := clusterAvailability(c, src, rel)
	if err != nil {
		return false, err
	}
	minors, err := clusterplan.Minors(rel)
	if err != nil {
		return false, err
	}
	if c.IsSet("catalog-set") {
		if cats, err = setPlanCatalogs(c, minors); err != nil {
			return false, err
		}
	}
	var missing []string
	for _, m := range minors {
		if !slices.ContainsFunc(cats, func(pc planCatalog) bool { return pc.minor == m }) {
			missing = append(missing, m.Key())
		}
	}
	if len(missing) > 0 {
		names := make([]string, len(minors))
		for i, m := range minors {
			names[i] = m.String()
		}
		flag := "--catalogs"
		if c.IsSet("catalog-set") {
			flag = "--catalog-set " + c.String("catalog-set")
		}
		return false, fmt.Errorf("%s: no catalog for %s: the path goes through %s, and each minor needs the catalog the cluster uses then",
			flag, strings.Join(missing, ", "), strings.Join(names, " → "))
	}
	pkgs := make([]string, 0, len(installs))
	for _, in := range installs {
		if !slices.Contains(pkgs, in.Package) {
			pkgs = append(pkgs, in.Package)
		}
	}
	preq := clusterplan.Request{Release: rel, Operators: installs, OLM: olm, ViaEUS: req.ViaEUS}
	var unused []string
	var used []planCatalog
	var reads []catalogRead
	var wantErr error // a tree's summary that cannot be read, after reads
	for _, pc := range cats {
		if !slices.Contains(minors, pc.minor) {
			unused = append(unused, pc.key)
			continue
		}
		want := pkgs
		switch {
		case olm == upgrade.V0:
			// OLM v0 resolves dependencies over every package of the
			// catalog set: read whole catalogs (nil: all.jsonl of a tree).
			want = nil
		case pc.arg.tree && src != nil && src.Tree != nil:
			// A package a minor's catalog no longer publishes is a state
			// of the plan (package-gone), as it is for a directory: read
			// only the packages the tree's catalog has.
			sum, err := treecat.Summary(c.Context, src.Tree, pc.arg.name)
			if err != nil {
				wantErr = fmt.Errorf("--%s %s: %w (in --catalogs %s)", pc.arg.flag, pc.arg.value, err, pc.key)
			} else {
				want = slices.DeleteFunc(slices.Clone(pkgs), func(p string) bool {
					return !slices.ContainsFunc(sum.Packages, func(sp catviews.PackageSummary) bool { return sp.Name == p })
				})
			}
		}
		if wantErr != nil {
			break
		}
		used = append(used, pc)
		reads = append(reads, catalogRead{arg: pc.arg, pkgs: want})
	}
	// The catalogs are read together; the first error, in the order of
	// --catalogs (or of the set, minor by minor), is the one reported.
	loaded, i, err := loadOperatorCatalogs(c, src, reads, readModels, log)
	switch {
	case err != nil:
		return false, fmt.Errorf("%w (in --catalogs %s)", err, used[i].key)
	case wantErr != nil:
		return false, wantErr
	}
	for i, pc := range used {
		source := pc.arg.value
		if pc.name != "" {
			source = pc.arg.spec
			if pc.arg.tree {
				source = pc.arg.name
			}
		}
		preq.Catalogs = append(preq.Catalogs, clusterplan.Catalog{Minor: pc.minor, Key: pc.key, Source: source, Model: loaded[i].Model,
			Name: pc.name, Priority: pc.priority})
	}
	p, err := clusterplan.Compute(preq)
	var perr *clusterplan.Error
	switch {
	case errors.As(err, &perr):
		return false, fmt.Errorf("--operators %s: %w", file, err)
	case err != nil:
		return false, err
	}
	if len(unused) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("--catalogs %s: not on the path, not read.", strings.Join(unused, ", ")))
	}
	switch {
	case c.String("format") == "json" && avail != nil:
		err = writeWithCluster(c.App.Writer, "plan", p, avail)
	case c.String("format") == "json":
		err = p.WriteJSON(c.App.Writer)
	default:
		if err = p.WriteText(c.App.Writer); err == nil && avail != nil {
			err = writeAvailability(c.App.Writer, avail)
		}
	}
	return !p.Blocked, err
}

// checkPlanFlags checks the flags before anything is read, and parses
// --olm and --catalogs.
func checkPlanFlags(c *cli.Context) (upgrade.Runtime, []planCatalog, error) {
	// Checked here rather than with Required, whose error would exit 1,
	// which means "blocked".
	for _, name := range []string{"from", "to", "channel"} {
		if c.String(name) == "" {
			return "", nil, fmt.Errorf("--%s is required", name)
		}
	}
	if format := c.String("format"); format != "text" && format != "json" {
		return "", nil, fmt.Errorf("--format: want text or json, got %q", format)
	}
	if ch := c.String("channel"); !policy.ChannelPattern.MatchString(ch) {
		return "", nil, fmt.Errorf("--channel %q does not match %s", ch, policy.ChannelPattern)
	}
	if arch := c.String("arch"); !policy.ArchPattern.MatchString(arch) {
		return "", nil, fmt.Errorf("--arch %q does not match %s", arch, policy.ArchPattern)
	}
	var ends []clusterplan.Minor
	for _, name := range []string{"from", "to"} {
		if _, err := ver.Parse(c.String(name)); err != nil {
			return "", nil, fmt.Errorf("--%s: %w", name, err)
		}
		m, err := clusterplan.MinorOf(c.String(name))
		if err != nil {
			return "", nil, fmt.Errorf("--%s: %w", name, err)
		}
		ends = append(ends, m)
	}
	olm, err := upgrade.ParseRuntime(c.String("olm"))
	if err != nil {
		return "", nil, fmt.Errorf("--olm: %w", err)
	}
	if c.IsSet("catalog-platform") {
		if err := checkCatalogPlatform(c); err != nil {
			return "", nil, err
		}
	}
	switch file := c.String("operators"); {
	case !c.IsSet("operators"):
		return "", nil, errors.New("--operators is required: the installed operators, a YAML or JSON list of {package, channel, version}")
	case file == "":
		return "", nil, errors.New("--operators: empty value: want a YAML or JSON file")
	default:
		if err := cliflag.CheckPath("operators", file, cliflag.WantFile); err != nil {
			return "", nil, err
		}
	}
	if c.IsSet("catalog-set") {
		if c.IsSet("catalogs") {
			return "", nil, errors.New("--catalogs and --catalog-set: give one")
		}
		if _, err := readCatalogSet(c.String("catalog-set")); err != nil {
			return "", nil, err
		}
		return olm, nil, cliflag.FirstError(tree.CheckLocation("--source", c.String("source"), true), checkTreeFlags(c))
	}
	cats, err := planCatalogs(c)
	if err != nil {
		return "", nil, err
	}
	for _, m := range ends {
		if !slices.ContainsFunc(cats, func(pc planCatalog) bool { return pc.minor == m }) {
			return "", nil, fmt.Errorf("--catalogs: no catalog for %s (the minor of --from or --to): give %s=SOURCE", m.Key(), m.Key())
		}
	}
	return olm, cats, cliflag.FirstError(tree.CheckLocation("--source", c.String("source"), true), checkTreeFlags(c))
}

// setPlanCatalogs are the catalogs of --catalog-set at each of minors:
// every catalog with a source there.
func setPlanCatalogs(c *cli.Context, minors []clusterplan.Minor) ([]planCatalog, error) {
	file := c.String("catalog-set")
	set, err := readCatalogSet(file)
	if err != nil {
		return nil, err
	}
	var out []planCatalog
	for _, m := range minors {
		for i := range set.Catalogs {
			sc := &set.Catalogs[i]
			src := sc.SourceAt(m.Key())
			if src == "" {
				continue
			}
			arg, err := setCatalogArg(file, sc, src, c.String("catalog-platform"))
			if err != nil {
				return nil, err
			}
			if !arg.tree {
				arg.name = sc.Name
			}
			out = append(out, planCatalog{minor: m, key: m.Key(), arg: arg, name: sc.Name, priority: sc.Priority})
		}
	}
	return out, nil
}

// planCatalogs parses --catalogs: vX.Y=SOURCE, each minor once.
func planCatalogs(c *cli.Context) ([]planCatalog, error) {
	values := cliflag.List(c, "catalogs") // comma-separated or repeated
	if !c.IsSet("catalogs") {
		return nil, errors.New("--catalogs is required: the catalog of each minor on the path, vX.Y=SOURCE")
	}
	if len(values) == 0 {
		return nil, errors.New("--catalogs: empty value: want vX.Y=SOURCE, e.g. v4.21=registry.redhat.io/redhat/redhat-operator-index:v4.21")
	}
	var out []planCatalog
	for _, v := range values {
		key, spec, ok := strings.Cut(strings.TrimSpace(v), "=")
		if !ok {
			return nil, fmt.Errorf("--catalogs %q: want vX.Y=SOURCE, e.g. v4.21=registry.redhat.io/redhat/redhat-operator-index:v4.21", v)
		}
		m, err := clusterplan.ParseMinor(key)
		if err != nil {
			return nil, fmt.Errorf("--catalogs %q: %w", v, err)
		}
		if !strings.HasPrefix(key, "v") {
			// The documented key, as --catalog-set and the plan name it.
			return nil, fmt.Errorf("--catalogs %q: write the minor as %s (vX.Y=SOURCE)", v, m.Key())
		}
		if slices.ContainsFunc(out, func(pc planCatalog) bool { return pc.minor == m }) {
			return nil, fmt.Errorf("--catalogs: %s given twice", m.Key())
		}
		if spec == "" {
			return nil, fmt.Errorf("--catalogs %q: no source after '='", v)
		}
		arg, err := parseCatalogArg("catalogs", spec, c.String("catalog-platform"))
		if err != nil {
			return nil, fmt.Errorf("%w (in --catalogs %s)", err, v)
		}
		if !arg.tree {
			arg.name = m.Key()
		}
		out = append(out, planCatalog{minor: m, key: m.Key(), arg: arg})
	}
	return out, nil
}
