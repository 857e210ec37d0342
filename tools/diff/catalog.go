package diff

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/tree"
)

// CatalogDiff is an operator catalog (operators/NAME/ of a tree) that
// differs. A catalog on one side only (Added, Removed) lists its packages
// in Packages; a Changed one has the packages added, removed and changed.
type CatalogDiff struct {
	Name     string        `json:"name"`
	Status   Status        `json:"status"`
	Packages NameChanges   `json:"packages,omitzero"`
	Changed  []PackageDiff `json:"changedPackages,omitempty"`
}

// PackageDiff is a package on both sides that differs.
type PackageDiff struct {
	Package string `json:"package"`
	// DefaultChannel is set when it changed.
	DefaultChannel *Move `json:"defaultChannel,omitempty"`
	// Deprecated is the message of a package deprecated in NEW only.
	Deprecated string        `json:"deprecated,omitempty"`
	Channels   NameChanges   `json:"channels,omitzero"`
	Changed    []ChannelDiff `json:"changedChannels,omitempty"`
}

// Move is a value that changed, such as a channel head ("" for none).
type Move struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// ChannelDiff is a package × channel graph on both sides that differs.
type ChannelDiff struct {
	Channel string `json:"channel"`
	// Head is set when the channel head moved.
	Head    *Move         `json:"head,omitempty"`
	Bundles BundleChanges `json:"bundles,omitzero"`
	Edges   CatalogEdges  `json:"edges,omitzero"`
	// Deprecated is the message of a channel deprecated in NEW only;
	// DeprecatedBundles the entries deprecated in NEW only.
	Deprecated        string                   `json:"deprecated,omitempty"`
	DeprecatedBundles []views.DeprecatedBundle `json:"deprecatedBundles,omitempty"`
	// Stranded are the entries on both sides from which OLM v0 reached the
	// channel head in OLD (next/P/CH/B.json's olmV0.reachesHead) and does
	// not in NEW: installs of them are newly stranded.
	Stranded []StrandedBundle `json:"stranded,omitempty"`
	// Refused are the entries on both sides whose OLM v1 resolution
	// (next/P/CH/B.json's olmV1) was not refused in OLD and is in NEW:
	// operator-controller resolves an install of them to a bundle that
	// declares a dependency and fails, staying where it is.
	Refused []RefusedBundle `json:"refusedByV1,omitempty"`
}

// BundleChanges are channel entries one side has.
type BundleChanges struct {
	Added   []model.GraphRef `json:"added,omitempty"`
	Removed []model.GraphRef `json:"removed,omitempty"`
}

// CatalogEdges are typed upgrade edges one side has.
type CatalogEdges struct {
	Added   []model.GraphEdge `json:"added,omitempty"`
	Removed []model.GraphEdge `json:"removed,omitempty"`
}

// StrandedBundle is an install OLM v0 no longer moves to the head: Old is
// its path to the head in OLD, Error OLM v0's error in NEW if any,
// Prohibited the Prohibited bundle (legacy olm.deprecated) its updates
// stop before in NEW, if that is why.
type StrandedBundle struct {
	model.GraphRef
	Old        []string          `json:"oldPathToHead"`
	Error      string            `json:"error,omitempty"`
	Prohibited *model.V0Stranded `json:"prohibited,omitempty"`
	// Held is set when OLM v0 stays short of the head in NEW because no
	// candidate's dependencies can be satisfied there (next/'s
	// olmV0.held): NEW leaves the install unsatisfiable.
	Held *model.V0Held `json:"held,omitempty"`
}

// RefusedBundle is an install OLM v1 can no longer update: in NEW its
// resolution picks a bundle that declares a dependency (Refusal, the
// controller's message), with no fallback. OldPick is what OLM v1 picked
// in OLD ("" when it picked nothing or failed: OldError), Catalog the
// catalog of the tree the refused bundle comes from when other catalogs
// have the package too (next/'s olmV1Catalog).
type RefusedBundle struct {
	model.GraphRef
	Refusal  model.V1Refusal `json:"refusal"`
	Catalog  string          `json:"catalog,omitempty"`
	OldPick  string          `json:"oldPick,omitempty"`
	OldError string          `json:"oldError,omitempty"`
}

func (c *ChannelDiff) empty() bool {
	return c.Head == nil && len(c.Bundles.Added)+len(c.Bundles.Removed)+len(c.Edges.Added)+len(c.Edges.Removed)+
		len(c.DeprecatedBundles)+len(c.Stranded)+len(c.Refused) == 0 && c.Deprecated == ""
}

func (p *PackageDiff) empty() bool {
	return p.DefaultChannel == nil && p.Deprecated == "" && len(p.Channels.Added)+len(p.Channels.Removed)+len(p.Changed) == 0
}

// catalogSide reads one side's catalogs.
type catalogSide struct {
	t tree.Tree
}

func (s catalogSide) names() []string {
	if s.t == nil {
		return nil
	}
	var ns []string
	for _, c := range s.t.Manifest().Catalogs {
		ns = append(ns, c.Name)
	}
	return ns
}

// wholePath is the names of the hops of OLM v0's path of a next/ file
// of the channel directory next: a file lists at most
// model.FileListMax of them, and when it is cut (PathToHeadTotal) the
// last listed hop's file continues the path, up to the total.
func (s catalogSide) wholePath(ctx context.Context, next string, v model.V0Result) ([]string, error) {
	total := max(v.PathToHeadTotal, len(v.PathToHead))
	out := make([]string, 0, total)
	for page := v.PathToHead; len(out) < total && len(page) > 0; {
		for _, h := range page[:min(len(page), total-len(out))] {
			out = append(out, h.Name)
		}
		if len(out) < total {
			var more model.InstalledView
			if err := s.read(ctx, next+views.EncodeName(out[len(out)-1])+".json", &more); err != nil {
				return nil, err
			}
			page = more.OLMV0.PathToHead
		}
	}
	return out, nil
}

func (s catalogSide) read(ctx context.Context, name string, v any) error {
	data, err := s.t.ReadFile(ctx, name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s of %s: %w", name, s.t, err)
	}
	return nil
}

// compareCatalogs compares the operator catalogs of two trees. An
// endpoint serves release graphs only: against one, catalogs are not
// compared (rather than reported removed or added).
func compareCatalogs(ctx context.Context, old, new *Source) ([]CatalogDiff, error) {
	if old.Tree == nil || new.Tree == nil {
		return nil, nil
	}
	sides := [2]catalogSide{{old.Tree}, {new.Tree}}
	var on, nn []string = sides[0].names(), sides[1].names()
	all := slices.Concat(on, nn)
	slices.Sort(all)
	all = slices.Compact(all)
	var out []CatalogDiff
	for _, name := range all {
		var sums [2]*views.Summary
		for i, s := range sides {
			if slices.Contains([][]string{on, nn}[i], name) {
				sums[i] = &views.Summary{}
				if err := s.read(ctx, views.Dir(name)+views.SummaryFile, sums[i]); err != nil {
					return nil, fmt.Errorf("catalog %s: %w", name, err)
				}
			}
		}
		switch {
		case sums[0] == nil:
			out = append(out, CatalogDiff{Name: name, Status: Added, Packages: NameChanges{Added: packageNames(sums[1])}})
		case sums[1] == nil:
			out = append(out, CatalogDiff{Name: name, Status: Removed, Packages: NameChanges{Removed: packageNames(sums[0])}})
		default:
			d, err := compareCatalog(ctx, sides, name, sums)
			if err != nil {
				return nil, fmt.Errorf("catalog %s: %w", name, err)
			}
			if len(d.Packages.Added)+len(d.Packages.Removed)+len(d.Changed) > 0 {
				out = append(out, d)
			}
		}
	}
	return out, nil
}

func packageNames(s *views.Summary) []string {
	ns := []string{}
	for _, p := range s.Packages {
		ns = append(ns, p.Name)
	}
	slices.Sort(ns)
	return ns
}

func compareCatalog(ctx context.Context, sides [2]catalogSide, name string, sums [2]*views.Summary) (CatalogDiff, error) {
	d := CatalogDiff{Name: name, Status: Changed}
	var pkgs [2]map[string]*views.PackageSummary
	for i, s := range sums {
		pkgs[i] = map[string]*views.PackageSummary{}
		for j := range s.Packages {
			pkgs[i][s.Packages[j].Name] = &s.Packages[j]
		}
	}
	names := slices.Concat(packageNames(sums[0]), packageNames(sums[1]))
	slices.Sort(names)
	for _, pn := range slices.Compact(names) {
		op, np := pkgs[0][pn], pkgs[1][pn]
		switch {
		case op == nil:
			d.Packages.Added = append(d.Packages.Added, pn)
		case np == nil:
			d.Packages.Removed = append(d.Packages.Removed, pn)
		default:
			pd, err := comparePackage(ctx, sides, views.Dir(name), op, np)
			if err != nil {
				return d, fmt.Errorf("package %s: %w", pn, err)
			}
			if !pd.empty() {
				d.Changed = append(d.Changed, pd)
			}
		}
	}
	return d, nil
}

func comparePackage(ctx context.Context, sides [2]catalogSide, dir string, op, np *views.PackageSummary) (PackageDiff, error) {
	d := PackageDiff{Package: op.Name}
	if op.DefaultChannel != np.DefaultChannel {
		d.DefaultChannel = &Move{op.DefaultChannel, np.DefaultChannel}
	}
	if op.Deprecated == "" && np.Deprecated != "" {
		d.Deprecated = np.Deprecated
	}
	chans := [2]map[string]*views.ChannelSummary{{}, {}}
	var names []string
	for i, p := range []*views.PackageSummary{op, np} {
		for j := range p.Channels {
			chans[i][p.Channels[j].Name] = &p.Channels[j]
			names = append(names, p.Channels[j].Name)
		}
	}
	slices.Sort(names)
	// A bundle that newly declares a dependency or the legacy
	// olm.deprecated property changes what the runtimes do without
	// changing any channel graph: the package's warnings name such
	// bundles (model.RuleV1Refused, RuleLegacyDeprecated).
	// A bundle that declares dependencies (OLM v0 resolves them over the
	// catalog set) may become unsatisfiable when another package or
	// catalog changes, its own graph unchanged: its channels' installs
	// are compared whenever the package declares any (the summary's
	// declaresDependencies, every form; a tree written before it has
	// only OLM v1's refusal warnings, which miss an olm.label.required
	// alone).
	runtimeChanged := !slices.Equal(refusalWarnings(op), refusalWarnings(np)) || declaresDependencies(op) || declaresDependencies(np)
	for _, cn := range slices.Compact(names) {
		oc, nc := chans[0][cn], chans[1][cn]
		switch {
		case oc == nil:
			d.Channels.Added = append(d.Channels.Added, cn)
		case nc == nil:
			d.Channels.Removed = append(d.Channels.Removed, cn)
		default:
			cd, err := compareChannel(ctx, sides, dir, oc, nc, runtimeChanged)
			if err != nil {
				return d, fmt.Errorf("channel %s: %w", cn, err)
			}
			if !cd.empty() {
				d.Changed = append(d.Changed, cd)
			}
		}
	}
	return d, nil
}

// declaresDependencies says whether a bundle of p declares an OLM v0
// dependency: the summary says so, or (a tree written before it did)
// the package's model.RuleV1Refused warnings name one.
func declaresDependencies(p *views.PackageSummary) bool {
	return p.DeclaresDependencies || slices.ContainsFunc(p.Warnings, func(w views.Warning) bool { return w.Rule == model.RuleV1Refused })
}

// refusalWarnings are the package's warnings that name a bundle a
// runtime refuses to install, sorted.
func refusalWarnings(p *views.PackageSummary) []views.Warning {
	var out []views.Warning
	for _, w := range p.Warnings {
		if w.Rule == model.RuleV1Refused || w.Rule == model.RuleLegacyDeprecated {
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(a, b views.Warning) int {
		return cmp.Or(cmp.Compare(a.Bundle, b.Bundle), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message))
	})
	return out
}

// compareChannel compares a channel on both sides: its graph, and when
// the graph or what the runtimes refuse (runtimeChanged) differs, the
// installs newly stranded (OLM v0) or refused (OLM v1).
func compareChannel(ctx context.Context, sides [2]catalogSide, dir string, oc, nc *views.ChannelSummary, runtimeChanged bool) (ChannelDiff, error) {
	d := ChannelDiff{Channel: oc.Name}
	var raw [2][]byte
	var gs [2]model.ChannelGraph
	for i, path := range []string{oc.Graph, nc.Graph} {
		data, err := sides[i].t.ReadFile(ctx, dir+path)
		if err != nil {
			return d, err
		}
		if err := json.Unmarshal(data, &gs[i]); err != nil {
			return d, fmt.Errorf("%s%s of %s: %w", dir, path, sides[i].t, err)
		}
		raw[i] = data
	}
	if bytes.Equal(raw[0], raw[1]) && !runtimeChanged {
		return d, nil
	}
	og, ng := &gs[0], &gs[1]
	if og.Head != ng.Head {
		d.Head = &Move{og.Head, ng.Head}
	}
	if og.Deprecated == "" && ng.Deprecated != "" {
		d.Deprecated = ng.Deprecated
	}
	nodes := [2]map[string]model.GraphNode{{}, {}}
	for i, g := range gs {
		for _, n := range g.Nodes {
			nodes[i][n.Name] = n
		}
	}
	ref := func(n model.GraphNode) model.GraphRef {
		return model.GraphRef{Name: n.Name, Version: n.Version, Release: n.Release}
	}
	for _, n := range ng.Nodes {
		o, ok := nodes[0][n.Name]
		if !ok {
			d.Bundles.Added = append(d.Bundles.Added, ref(n))
		}
		if n.Deprecated != "" && o.Deprecated == "" {
			d.DeprecatedBundles = append(d.DeprecatedBundles, views.DeprecatedBundle{Name: n.Name, Message: n.Deprecated})
		}
	}
	for _, n := range og.Nodes {
		if _, ok := nodes[1][n.Name]; !ok {
			d.Bundles.Removed = append(d.Bundles.Removed, ref(n))
		}
	}
	d.Edges.Added, d.Edges.Removed = edgeDifference(ng.AllEdges(), og.AllEdges()), edgeDifference(og.AllEdges(), ng.AllEdges())
	// Installs newly stranded or refused: entries on both sides.
	for _, n := range og.Nodes {
		if _, ok := nodes[1][n.Name]; !ok {
			continue
		}
		var vs [2]model.InstalledView
		for i, next := range []string{oc.Next, nc.Next} {
			if err := sides[i].read(ctx, dir+next+views.EncodeName(n.Name)+".json", &vs[i]); err != nil {
				return d, err
			}
		}
		if vs[0].OLMV0.ReachesHead && !vs[1].OLMV0.ReachesHead {
			old, err := sides[0].wholePath(ctx, dir+oc.Next, vs[0].OLMV0)
			if err != nil {
				return d, err
			}
			s := StrandedBundle{GraphRef: ref(n), Old: old, Error: vs[1].OLMV0.Error, Prohibited: vs[1].OLMV0.Stranded, Held: vs[1].OLMV0.Held}
			d.Stranded = append(d.Stranded, s)
		}
		if o, nw := vs[0].OLMV1, vs[1].OLMV1; o.Refusal == nil && nw.Refusal != nil {
			r := RefusedBundle{GraphRef: ref(n), Refusal: *nw.Refusal, Catalog: vs[1].OLMV1Catalog}
			switch {
			case o.Pick != nil:
				r.OldPick = o.Pick.Name
			default:
				r.OldError = o.Error
			}
			d.Refused = append(d.Refused, r)
		}
	}
	return d, nil
}

// edgeDifference returns the edges of a that b lacks, sorted.
func edgeDifference(a, b []model.GraphEdge) []model.GraphEdge {
	var out []model.GraphEdge
	for _, e := range a {
		if !slices.Contains(b, e) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, compareCatalogEdges)
	return out
}

func compareCatalogEdges(a, b model.GraphEdge) int {
	return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Range, b.Range))
}

// sections are a catalog's headings and lines, for the text and markdown
// renderings: the catalog itself (packages added and removed), then each
// changed package (default channel, deprecation, channels), then each
// changed channel.
type section struct {
	title string
	lines []line
}

func (c *CatalogDiff) sections() []section {
	title := "catalog " + c.Name
	if c.Status != Changed {
		title += " (" + string(c.Status) + ")"
	}
	top := section{title: title}
	for _, p := range c.Packages.Removed {
		top.lines = append(top.lines, line{sign: '-', text: "package " + p})
	}
	for _, p := range c.Packages.Added {
		top.lines = append(top.lines, line{sign: '+', text: "package " + p})
	}
	var out []section
	if len(top.lines) > 0 {
		out = append(out, top)
	}
	for _, p := range c.Changed {
		s := section{title: "catalog " + c.Name + " package " + p.Package}
		if p.DefaultChannel != nil {
			s.lines = append(s.lines, line{sign: '~', text: "default channel " + p.DefaultChannel.Old + " → " + p.DefaultChannel.New})
		}
		if p.Deprecated != "" {
			s.lines = append(s.lines, line{sign: '+', text: "deprecated: " + strconv.Quote(p.Deprecated)})
		}
		for _, ch := range p.Channels.Removed {
			s.lines = append(s.lines, line{sign: '-', text: "channel " + ch})
		}
		for _, ch := range p.Channels.Added {
			s.lines = append(s.lines, line{sign: '+', text: "channel " + ch})
		}
		if len(s.lines) > 0 {
			out = append(out, s)
		}
		for _, ch := range p.Changed {
			out = append(out, section{title: "catalog " + c.Name + " package " + p.Package + " channel " + ch.Channel, lines: ch.lines()})
		}
	}
	return out
}

func (c *ChannelDiff) lines() []line {
	var ls []line
	if c.Head != nil {
		ls = append(ls, line{sign: '~', text: "head " + orNone(c.Head.Old) + " → " + orNone(c.Head.New)})
	}
	if c.Deprecated != "" {
		ls = append(ls, line{sign: '+', text: "deprecated: " + strconv.Quote(c.Deprecated)})
	}
	for _, b := range c.Bundles.Removed {
		ls = append(ls, line{sign: '-', text: "bundle " + refText(b)})
	}
	for _, b := range c.Bundles.Added {
		ls = append(ls, line{sign: '+', text: "bundle " + refText(b)})
	}
	for _, e := range c.Edges.Removed {
		ls = append(ls, line{sign: '-', text: "edge " + edgeText(e)})
	}
	for _, e := range c.Edges.Added {
		ls = append(ls, line{sign: '+', text: "edge " + edgeText(e)})
	}
	for _, b := range c.DeprecatedBundles {
		ls = append(ls, line{sign: '+', text: "deprecated bundle " + b.Name + ": " + strconv.Quote(b.Message)})
	}
	for _, s := range c.Stranded {
		text := "install newly stranded " + refText(s.GraphRef) + ": OLM v0 no longer reaches the head (it did via " + strings.Join(s.Old, " → ") + ")"
		if s.Error != "" {
			text += " (" + s.Error + ")"
		}
		if s.Prohibited != nil {
			text += ": " + s.Prohibited.Message
		}
		if s.Held != nil {
			text += ": its dependencies are unsatisfiable: " + s.Held.Message
		}
		ls = append(ls, line{sign: '-', text: text})
	}
	for _, r := range c.Refused {
		text := "install newly refused by OLM v1 " + refText(r.GraphRef) + ": it resolves to " + r.Refusal.Bundle
		if r.Catalog != "" {
			text += " (catalog " + r.Catalog + ")"
		}
		text += ", which declares " + r.Refusal.Property + "; operator-controller fails the resolution with no fallback"
		switch {
		case r.OldPick != "" && r.OldPick == r.Name:
			text += " (it stayed on the installed bundle before)"
		case r.OldPick != "":
			text += " (it updated to " + r.OldPick + " before)"
		case r.OldError != "":
			text += " (before: " + r.OldError + ")"
		}
		text += ": " + strconv.Quote(r.Refusal.Message)
		ls = append(ls, line{sign: '-', text: text})
	}
	return ls
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func refText(r model.GraphRef) string {
	v := r.Version
	if r.Release != "" {
		v += " release " + r.Release
	}
	return r.Name + " (" + v + ")"
}

func edgeText(e model.GraphEdge) string {
	t := string(e.Type)
	if e.Range != "" {
		t += " " + strconv.Quote(e.Range)
	}
	return e.From + " → " + e.To + " [" + t + "]"
}
