package mirrorset

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/upgrade"
)

// OLM v0 dependencies (spec/olm-resolution.md §2). OLM v0 resolves each
// bundle's olm.gvk.required, olm.package.required, olm.label.required and
// olm.constraint over every catalog of the set, and installs a provider
// for each (model.V0Set); a Subscription's update whose dependencies
// cannot be satisfied is not taken. So for OLM v0 a mirror set holds the
// closure: per install, every resolution of its path
// (V0Set.ResolvePath, up to the resolution landing on the target) — the
// providers it installs, from whichever catalog of the set OLM v0 picks
// them, their own dependencies' providers (recursively: a resolution
// holds them all), and the providers' own moves along their channels
// (OLM v0 subscribes each provider to its catalog and channel). Each
// provider's channel then keeps what keepChannel keeps for any hop: the
// bundle and the replaces chain to the other kept ones (or a skipper of
// it, when OLM v0 picks an entry off the chain), nothing else.

// WhyDependency: OLM v0 installs it as a provider of a dependency along
// some install's path, or moves such a provider to it.
const WhyDependency = "dependency"

// ReasonDependencies: with its dependencies, OLM v0 does not take the
// install to its target (a dependency no catalog of the set provides, or
// a candidate passed over for it).
const ReasonDependencies = "dependencies"

// DependencyPick is a bundle OLM v0 installs beside an install's path: a
// provider of a dependency, or a provider's move along its channel.
type DependencyPick struct {
	// At is the bundle of the path whose resolution installs it (the
	// installed bundle for the first).
	At      string `json:"at"`
	Catalog string `json:"catalog"`
	Package string `json:"package"`
	Channel string `json:"channel"`
	Bundle  string `json:"bundle"`
	Version string `json:"version"`
	// RequiredBy is the bundle whose dependency picked it ("" for a
	// provider's own move).
	RequiredBy string `json:"requiredBy,omitempty"`
}

// v0Set is the catalogs as OLM v0 sees them: every catalog a
// CatalogSource with its priority.
func v0Set(cats []*Catalog) *model.V0Set {
	members := make([]model.V0CatalogMember, 0, len(cats))
	for _, c := range cats {
		members = append(members, model.V0CatalogMember{Name: c.Name, Priority: c.Priority, Catalog: c.Model})
	}
	return model.NewV0Set(members)
}

// withDependencies checks install ip (its graph-only path found) against
// OLM v0's resolution with dependencies and returns the picks beside its
// path; ip loses Found, with the reason, when the dependencies stop it
// short of its target.
func withDependencies(set *model.V0Set, ip *InstallPlan) []DependencyPick {
	if len(ip.Path) == 0 {
		return nil // already there: nothing to mirror
	}
	res := set.ResolvePath(model.V0SetQuery{Catalog: ip.Catalog, Package: ip.Package, Channel: ip.Channel, Installed: ip.From.Name})
	var path []string
	for _, h := range res.PathToHead {
		path = append(path, h.Name)
	}
	n := len(ip.Path)
	if len(path) < n || !slices.Equal(path[:n], ip.Path) {
		why := ""
		switch {
		case res.Error != "":
			why = res.Error
		case res.Held != nil:
			why = res.Held.Message
		default:
			why = fmt.Sprintf("it takes %s", strings.Join(path, " → "))
		}
		ip.Found = false
		ip.Reason = &upgrade.Reason{Code: ReasonDependencies, Bundles: path,
			Message: fmt.Sprintf("with dependencies (%s), OLM v0 does not take %s in the catalog set: %s", depKinds, strings.Join(append([]string{ip.From.Name}, ip.Path...), " → "), why)}
		return nil
	}
	var out []DependencyPick
	at, moved := ip.From.Name, 0
	for _, r := range res.Resolutions {
		if moved == n {
			break // the target is reached: later resolutions are past it
		}
		for i, sr := range r.Subscriptions {
			if i == 0 || sr.Next == nil {
				continue
			}
			p := sr.Next
			out = append(out, DependencyPick{At: at, Catalog: p.Catalog, Package: p.Package, Channel: p.Channel, Bundle: p.Bundle, Version: p.Version})
		}
		for _, p := range r.Providers {
			out = append(out, DependencyPick{At: at, Catalog: p.Catalog, Package: p.Package, Channel: p.Channel, Bundle: p.Bundle, Version: p.Version, RequiredBy: p.RequiredBy})
		}
		if len(r.Subscriptions) > 0 && r.Subscriptions[0].Next != nil {
			at = r.Subscriptions[0].Next.Bundle
			moved++
		}
	}
	return out
}

// depKinds names the dependency properties modelled.
const depKinds = "olm.gvk.required, olm.package.required, olm.label.required, olm.constraint"

// ReplayDependencies checks that every bundle OLM v0 installs beside
// install's path is in the filtered catalog of its catalog, in its
// channel (filtered by catalog name). With the candidates of each
// dependency in the filtered catalogs a subset of the whole set's, in
// the same order, holding the one picked, OLM v0 picks it again; the
// real resolver checks that on the shared catalog (oracle_deps_test.go).
func ReplayDependencies(filtered map[string]*model.Catalog, in InstallPlan) error {
	for _, d := range in.Dependencies {
		m := filtered[d.Catalog]
		var ch *model.Channel
		if m != nil {
			if p := m.Package(d.Package); p != nil {
				ch = p.Channel(d.Channel)
			}
		}
		if ch == nil || ch.Entry(d.Bundle) == nil {
			return fmt.Errorf("OLM v0 installs %s from catalog %s (package %s, channel %s) at %s, which the filtered catalog lacks", d.Bundle, d.Catalog, d.Package, d.Channel, d.At)
		}
	}
	return nil
}

// requiredBy names, sorted, the bundles whose dependencies make OLM v0
// install a bundle of package pkg from catalog cat along some install's
// path ("<pkg> moves" for a provider's own move).
func (p *Plan) requiredBy(cat, pkg string) []string {
	seen := map[string]bool{}
	for _, in := range p.Installs {
		for _, d := range in.Dependencies {
			if d.Catalog != cat || d.Package != pkg {
				continue
			}
			by := d.RequiredBy
			if by == "" {
				by = "its own update of " + d.Bundle
			}
			seen[by] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}
