package plan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/upgrade"
)

// OLM v0 dependencies (issue 25, spec/olm-resolution.md §2): OLM v0
// resolves every installed bundle's olm.gvk.required,
// olm.package.required, olm.label.required and olm.constraint over all
// the catalogs of the namespace's catalog set, and a resolution it
// cannot satisfy fails. So at each hop, the bundle the operator runs
// once the cluster is at the next minor is resolved over the next
// minor's catalog set with the model's solver (model.V0Set.Resolve: a
// Subscription to the operator's catalog and channel pinned to that
// bundle, as startingCSV pins a new install), and an update required
// before the hop over the current minor's: when the resolution fails —
// a dependency no bundle provides, or providers that conflict with each
// other (one bundle per package and per GVK) — the hop is blocked,
// naming the dependency and the catalogs as the model says them. The
// providers named are the model's picks (OLM v0's preference order:
// the operator's catalog, then by priority and name; each catalog's
// default channel first; each channel in sortChannel order), the same
// `upgraph path` shows. Modelled: the operator alone in its namespace
// (no other installed operator as an installed CSV). When the bundle is
// not an entry of its channel in its catalog there (the channel or the
// package is gone, or the entry was removed), the model cannot pin it;
// the check falls back to whether some bundle of the set provides each
// dependency (firstProvider), and says so.

// DependencyCheck is one dependency of a bundle against a catalog set.
type DependencyCheck struct {
	Type           string `json:"type"`
	Text           string `json:"text"`
	FailureMessage string `json:"failureMessage,omitempty"`
	// Provider is the bundle OLM v0 picks for it; nil when the
	// resolution cannot satisfy it (Message says why).
	Provider *Provider `json:"provider,omitempty"`
	Message  string    `json:"message,omitempty"`
}

// Provider is a bundle that satisfies a dependency.
type Provider struct {
	Catalog string `json:"catalog"`
	Package string `json:"package"`
	Channel string `json:"channel"`
	Bundle  string `json:"bundle"`
	Version string `json:"version"`
}

// v0Set is the minor's catalog set as the model resolves over it (one
// per minor, shared by every operator: it memoizes providers).
func (cs catalogsAt) v0Set() *model.V0Set {
	if cs.set != nil && *cs.set != nil {
		return *cs.set
	}
	all := cs.all
	if len(all) == 0 && cs.home != nil {
		all = []*Catalog{cs.home}
	}
	members := make([]model.V0CatalogMember, 0, len(all))
	for _, c := range all {
		members = append(members, model.V0CatalogMember{Name: catalogName(c), Priority: c.Priority, Catalog: c.Model})
	}
	s := model.NewV0Set(members)
	if cs.set != nil {
		*cs.set = s
	}
	return s
}

// checkDependencies resolves b, installed from the operator's catalog
// and channel, over set (for OLM v0): the checks, and a message naming
// what cannot be satisfied ("" when the resolution succeeds).
func checkDependencies(b *model.Bundle, channel string, set catalogsAt) ([]DependencyCheck, string) {
	deps, err := b.V0Dependencies()
	if err != nil {
		return nil, fmt.Sprintf("OLM v0 refuses %s: %v", b.Name, err)
	}
	if len(deps) == 0 {
		return nil, ""
	}
	home := set.home
	pkg := home.Model.Package(b.Package.Name)
	if pkg == nil || pkg.Channel(channel) == nil || pkg.Channel(channel).Entry(b.Name) == nil || !slices.Contains(set.all, home) {
		return existenceCheck(b, deps, set)
	}
	res := set.v0Set().Resolve([]model.V0Subscription{{Catalog: catalogName(home), Package: b.Package.Name, Channel: channel, StartingCSV: b.Name}})
	if res.Error == "" {
		return checksOf(res.Subscriptions[0].Dependencies), ""
	}
	// The resolution fails: the pinned bundle's diagnosis says which
	// dependencies have no pick, and why (no provider in the set, or
	// providers that cannot be installed together).
	var out []DependencyCheck
	var msgs []string
	names := strings.Join(set.v0Set().Names(), ", ")
	for _, u := range res.Unsatisfied {
		if u.Bundle != b.Name {
			continue
		}
		out = checksOf(u.Dependencies)
		for _, d := range u.Dependencies {
			switch {
			case d.Pick != nil:
			case d.Reason == model.ReasonNoProvider:
				m := fmt.Sprintf("%s requires an operator %s: no bundle in catalogs %s provides it", b.Name, d.Text, names)
				if d.FailureMessage != "" {
					m += " (" + d.FailureMessage + ")"
				}
				msgs = append(msgs, m)
			default:
				msgs = append(msgs, fmt.Sprintf("%s requires an operator %s: %s", b.Name, d.Text, d.Message))
			}
		}
		if len(msgs) == 0 {
			msgs = append(msgs, u.Message)
		}
	}
	if len(msgs) == 0 {
		msgs = append(msgs, fmt.Sprintf("OLM v0's resolution of %s fails: %s", b.Name, res.Error))
	}
	return out, strings.Join(msgs, "; ")
}

func checksOf(drs []model.V0DependencyResult) []DependencyCheck {
	var out []DependencyCheck
	for _, d := range drs {
		dc := DependencyCheck{Type: d.Type, Text: d.Text, FailureMessage: d.FailureMessage, Message: d.Message}
		if p := d.Pick; p != nil {
			dc.Provider = &Provider{Catalog: p.Catalog, Package: p.Package, Channel: p.Channel, Bundle: p.Bundle, Version: p.Version}
		}
		out = append(out, dc)
	}
	return out
}

// existenceCheck is the fallback for a bundle the model cannot pin:
// each dependency provided by some bundle of the set.
func existenceCheck(b *model.Bundle, deps []model.Dependency, set catalogsAt) ([]DependencyCheck, string) {
	cats := orderedCatalogs(set)
	var names []string
	for _, c := range cats {
		names = append(names, catalogName(c))
	}
	var out []DependencyCheck
	var missing []string
	for _, d := range deps {
		dc := DependencyCheck{Type: d.Type, Text: d.Text, FailureMessage: d.FailureMessage}
		dc.Provider = firstProvider(d, b.Package.Name, cats)
		if dc.Provider == nil {
			dc.Message = fmt.Sprintf("%s requires an operator %s: no bundle in catalogs %s provides it", b.Name, d.Text, strings.Join(names, ", "))
			if d.FailureMessage != "" {
				dc.Message += " (" + d.FailureMessage + ")"
			}
			missing = append(missing, dc.Message)
		}
		out = append(out, dc)
	}
	return out, strings.Join(missing, "; ")
}

func catalogName(c *Catalog) string { return cmp.Or(c.Name, c.Key) }

// orderedCatalogs: the home catalog, then by priority (higher first)
// and name (cache.go sortableSnapshots).
func orderedCatalogs(set catalogsAt) []*Catalog {
	all := set.all
	if len(all) == 0 && set.home != nil {
		all = []*Catalog{set.home}
	}
	out := slices.Clone(all)
	if set.home != nil && !slices.Contains(out, set.home) {
		out = append(out, set.home)
	}
	slices.SortStableFunc(out, func(a, b *Catalog) int {
		if (a == set.home) != (b == set.home) {
			if a == set.home {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.Priority, a.Priority), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// firstProvider is the first bundle of another package than self that
// satisfies d, in the order above.
func firstProvider(d model.Dependency, self string, cats []*Catalog) *Provider {
	for _, c := range cats {
		var best *Provider
		bestRank := [2]string{}
		for _, p := range c.Model.Packages {
			if p.Name == self {
				continue
			}
			for _, ch := range p.Channels {
				var top *model.Bundle
				for _, e := range ch.Entries {
					if e.Bundle != nil && d.Matches(e.Bundle) && (top == nil || e.Bundle.Compare(top) > 0) {
						top = e.Bundle
					}
				}
				if top == nil {
					continue
				}
				def := "1"
				if ch.Name == p.DefaultChannelName {
					def = "0"
				}
				rank := [2]string{def, p.Name + "\x00" + ch.Name}
				if best == nil || rank[0] < bestRank[0] || (rank[0] == bestRank[0] && rank[1] < bestRank[1]) {
					best = &Provider{Catalog: catalogName(c), Package: p.Name, Channel: ch.Name, Bundle: top.Name, Version: top.PackageProperty.Version}
					bestRank = rank
				}
			}
		}
		if best != nil {
			return best
		}
	}
	return nil
}

// dependenciesAtHop resolves, for OLM v0, what the operator runs after
// the hop over the next minor's set (and an update required before it
// over the current one's); it blocks oh when the resolution fails. It
// reports whether the update is refused.
func dependenciesAtHop(oh *OperatorHop, s *opState, cur, next catalogsAt, olm upgrade.Runtime, update *model.Bundle) bool {
	if olm != upgrade.V0 || s.bundle == nil {
		return false
	}
	if update != nil {
		checks, missing := checkDependencies(update, s.channel, cur)
		oh.UpdateDependencies = checks
		if missing != "" {
			oh.State, oh.Update = StateBlocked, nil
			oh.Message += fmt.Sprintf("; but OLM v0 cannot install %s in the %s catalogs: %s", update.Name, cur.home.Key, missing)
			return true
		}
	}
	checks, missing := checkDependencies(s.bundle, s.channel, next)
	oh.Dependencies = checks
	if missing != "" {
		oh.State = StateBlocked
		oh.Message += fmt.Sprintf("; after the hop, OLM v0 cannot satisfy the dependencies of %s in the %s catalogs: %s", s.bundle.Name, next.home.Key, missing)
	}
	return false
}
