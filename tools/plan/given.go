package plan

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/catalog/catalogset"
	"github.com/upgraph/upgraph/catalog/source"
	"github.com/upgraph/upgraph/catalog/treecat"
	"github.com/upgraph/upgraph/catalog/upgrade"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/tools/opcat"
)

// Given is a catalog given for a minor: one of plan's --catalogs
// vX.Y=SOURCE, or a catalog of its --catalog-set with a source at the
// minor.
type Given struct {
	Minor Minor
	Key   string
	Arg   opcat.Arg
	// Name and Priority are a --catalog-set catalog's.
	Name     string
	Priority int32
}

// GivenOptions say where the given catalogs are read and how messages
// name them.
type GivenOptions struct {
	// Source is where the path was planned: a catalog of the tree is
	// read from it.
	Source *mirror.Source
	// Flag names the catalogs given ("--catalogs", or "--catalog-set
	// FILE"); OperatorsFile the installed operators' file.
	Flag, OperatorsFile string
	// SourceOptions says how a catalog source is read; called only when
	// one is.
	SourceOptions func() (source.Options, error)
}

// ComputeGiven reads the catalogs given for the minors of req.Release
// (only the packages of req.Operators) into req.Catalogs and computes the
// plan. Every minor the path crosses needs a catalog; one given for a
// minor it does not cross is not read, and a note says so.
func ComputeGiven(ctx context.Context, req Request, given []Given, o GivenOptions) (*Plan, error) {
	minors, err := Minors(req.Release)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, m := range minors {
		if !slices.ContainsFunc(given, func(g Given) bool { return g.Minor == m }) {
			missing = append(missing, m.Key())
		}
	}
	if len(missing) > 0 {
		names := make([]string, len(minors))
		for i, m := range minors {
			names[i] = m.String()
		}
		return nil, fmt.Errorf("%s: no catalog for %s: the path goes through %s, and each minor needs the catalog the cluster uses then",
			o.Flag, strings.Join(missing, ", "), strings.Join(names, " → "))
	}
	pkgs := make([]string, 0, len(req.Operators))
	for _, in := range req.Operators {
		if !slices.Contains(pkgs, in.Package) {
			pkgs = append(pkgs, in.Package)
		}
	}
	src := o.Source
	var unused []string
	var used []Given
	var reads []opcat.Read
	var wantErr error // a tree's summary that cannot be read, after reads
	for _, g := range given {
		if !slices.Contains(minors, g.Minor) {
			unused = append(unused, g.Key)
			continue
		}
		want := pkgs
		switch {
		case req.OLM == upgrade.V0:
			// OLM v0 resolves dependencies over every package of the
			// catalog set: read whole catalogs (nil: all.jsonl of a tree).
			want = nil
		case g.Arg.Tree && src != nil && src.Tree != nil:
			// A package a minor's catalog no longer publishes is a state
			// of the plan (package-gone), as it is for a directory: read
			// only the packages the tree's catalog has.
			sum, err := treecat.Summary(ctx, src.Tree, g.Arg.Name)
			if err != nil {
				wantErr = fmt.Errorf("--%s %s: %w (in --catalogs %s)", g.Arg.Flag, g.Arg.Value, err, g.Key)
			} else {
				want = slices.DeleteFunc(slices.Clone(pkgs), func(p string) bool {
					return !slices.ContainsFunc(sum.Packages, func(sp catviews.PackageSummary) bool { return sp.Name == p })
				})
			}
		}
		if wantErr != nil {
			break
		}
		used = append(used, g)
		reads = append(reads, opcat.Read{Arg: g.Arg, Pkgs: want})
	}
	// The catalogs are read together; the first error, in the order of
	// --catalogs (or of the set, minor by minor), is the one reported.
	loaded, i, err := opcat.LoadAll(ctx, src, reads, true, o.SourceOptions)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w (in --catalogs %s)", err, used[i].Key)
	case wantErr != nil:
		return nil, wantErr
	}
	for i, g := range used {
		source := g.Arg.Value
		if g.Name != "" {
			source = g.Arg.Spec
			if g.Arg.Tree {
				source = g.Arg.Name
			}
		}
		req.Catalogs = append(req.Catalogs, Catalog{Minor: g.Minor, Key: g.Key, Source: source, Model: loaded[i].Model,
			Name: g.Name, Priority: g.Priority})
	}
	p, err := Compute(req)
	var perr *Error
	switch {
	case errors.As(err, &perr):
		return nil, fmt.Errorf("--operators %s: %w", o.OperatorsFile, err)
	case err != nil:
		return nil, err
	}
	if len(unused) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("--catalogs %s: not on the path, not read.", strings.Join(unused, ", ")))
	}
	return p, nil
}

// ParseGiven parses plan's --catalogs values: vX.Y=SOURCE, each minor
// once; SOURCE is a catalog source or the name of a catalog of the tree
// (opcat.ParseArg), read with --catalog-platform platform.
func ParseGiven(values []string, platform string) ([]Given, error) {
	var out []Given
	for _, v := range values {
		key, spec, ok := strings.Cut(strings.TrimSpace(v), "=")
		if !ok {
			return nil, fmt.Errorf("--catalogs %q: want vX.Y=SOURCE, e.g. v4.21=registry.redhat.io/redhat/redhat-operator-index:v4.21", v)
		}
		m, err := ParseMinor(key)
		if err != nil {
			return nil, fmt.Errorf("--catalogs %q: %w", v, err)
		}
		if !strings.HasPrefix(key, "v") {
			// The documented key, as --catalog-set and the plan name it.
			return nil, fmt.Errorf("--catalogs %q: write the minor as %s (vX.Y=SOURCE)", v, m.Key())
		}
		if slices.ContainsFunc(out, func(pc Given) bool { return pc.Minor == m }) {
			return nil, fmt.Errorf("--catalogs: %s given twice", m.Key())
		}
		if spec == "" {
			return nil, fmt.Errorf("--catalogs %q: no source after '='", v)
		}
		arg, err := opcat.ParseArg("catalogs", spec, platform)
		if err != nil {
			return nil, fmt.Errorf("%w (in --catalogs %s)", err, v)
		}
		if !arg.Tree {
			arg.Name = m.Key()
		}
		out = append(out, Given{Minor: m, Key: m.Key(), Arg: arg})
	}
	return out, nil
}

// SetGiven are the catalogs of the catalog set read from file (plan
// --catalog-set) at each of minors: every catalog with a source there,
// with its name and priority.
func SetGiven(file string, set *catalogset.Set, minors []Minor, platform string) ([]Given, error) {
	var out []Given
	for _, m := range minors {
		for i := range set.Catalogs {
			sc := &set.Catalogs[i]
			src := sc.SourceAt(m.Key())
			if src == "" {
				continue
			}
			arg, err := opcat.SetArg(file, sc, src, platform)
			if err != nil {
				return nil, err
			}
			if !arg.Tree {
				arg.Name = sc.Name
			}
			out = append(out, Given{Minor: m, Key: m.Key(), Arg: arg, Name: sc.Name, Priority: sc.Priority})
		}
	}
	return out, nil
}
