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
// the catalogs of the namespace's catalog set, and a resolution whose
// dependency no bundle provides fails. So at each hop, the bundle the
// operator runs once the cluster is at the next minor must have every
// dependency provided by some bundle of the next minor's catalog set
// (and an update required before the hop, by the current minor's):
// otherwise the hop is blocked, naming the dependency. This is an
// existence check per dependency (model.Dependency.Matches over every
// bundle of another package): conflicts between providers, which the
// solver may also hit, are not checked here. The provider named is the
// first in OLM v0's preference order as far as it is modelled here: the
// operator's own catalog, then by priority (higher first) and name; in a
// catalog, packages whose default channel provides it first, then by
// package and channel name; in a channel, the newest matching bundle.

// DependencyCheck is one dependency of a bundle against a catalog set.
type DependencyCheck struct {
	Type           string `json:"type"`
	Text           string `json:"text"`
	FailureMessage string `json:"failureMessage,omitempty"`
	// Provider is the bundle OLM v0 would take first for it; nil when no
	// bundle of the set provides it (Message says so).
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

// checkDependencies checks b's dependencies against the catalogs of set
// (for OLM v0): the checks, and a message naming those no bundle
// provides ("" when all are).
func checkDependencies(b *model.Bundle, set catalogsAt) ([]DependencyCheck, string) {
	deps, err := b.V0Dependencies()
	if err != nil {
		return nil, fmt.Sprintf("OLM v0 refuses %s: %v", b.Name, err)
	}
	if len(deps) == 0 {
		return nil, ""
	}
	pkgName := ""
	if b.Package != nil {
		pkgName = b.Package.Name
	}
	cats := orderedCatalogs(set)
	var names []string
	for _, c := range cats {
		names = append(names, catalogName(c))
	}
	var out []DependencyCheck
	var missing []string
	for _, d := range deps {
		dc := DependencyCheck{Type: d.Type, Text: d.Text, FailureMessage: d.FailureMessage}
		dc.Provider = firstProvider(d, pkgName, cats)
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

// dependenciesAtHop checks, for OLM v0, the dependencies of what the
// operator runs after the hop in the next minor's set (and of an update
// required before it in the current one); it blocks oh when one is
// provided by no bundle. It reports whether the update is refused.
func dependenciesAtHop(oh *OperatorHop, s *opState, cur, next catalogsAt, olm upgrade.Runtime, update *model.Bundle) bool {
	if olm != upgrade.V0 || s.bundle == nil {
		return false
	}
	if update != nil {
		checks, missing := checkDependencies(update, cur)
		oh.UpdateDependencies = checks
		if missing != "" {
			oh.State, oh.Update = StateBlocked, nil
			oh.Message += fmt.Sprintf("; but OLM v0 cannot install %s in the %s catalogs: %s", update.Name, cur.home.Key, missing)
			return true
		}
	}
	checks, missing := checkDependencies(s.bundle, next)
	oh.Dependencies = checks
	if missing != "" {
		oh.State = StateBlocked
		oh.Message += fmt.Sprintf("; after the hop, OLM v0 cannot satisfy the dependencies of %s in the %s catalogs: %s", s.bundle.Name, next.home.Key, missing)
	}
	return false
}
