package upstreamoracle

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// Upgrade constraint policies (ocv1.UpgradeConstraintPolicy).
const (
	CatalogProvided = "CatalogProvided"
	SelfCertified   = "SelfCertified"
)

// catalogView is what query generation needs of a catalog set: per
// package, its channels (sorted by name), each channel's entry names
// (catalog order), the bundle names (sorted), and per catalog the
// channels it holds.
type catalogView struct {
	packages []string
	channels map[string][]string
	entries  map[string]map[string][]string
	bundles  map[string][]string
	// holds[catalog][package] = channels of package in that catalog
	holds map[string]map[string][]string
}

func newView(cats map[string]*declcfg.DeclarativeConfig) catalogView {
	v := catalogView{channels: map[string][]string{}, entries: map[string]map[string][]string{},
		bundles: map[string][]string{}, holds: map[string]map[string][]string{}}
	names := sortedKeys(cats)
	for _, cat := range names {
		cfg := cats[cat]
		v.holds[cat] = map[string][]string{}
		for _, p := range cfg.Packages {
			if !slices.Contains(v.packages, p.Name) {
				v.packages = append(v.packages, p.Name)
			}
		}
		for _, ch := range cfg.Channels {
			if v.entries[ch.Package] == nil {
				v.entries[ch.Package] = map[string][]string{}
			}
			if !slices.Contains(v.channels[ch.Package], ch.Name) {
				v.channels[ch.Package] = append(v.channels[ch.Package], ch.Name)
			}
			for _, e := range ch.Entries {
				if !slices.Contains(v.entries[ch.Package][ch.Name], e.Name) {
					v.entries[ch.Package][ch.Name] = append(v.entries[ch.Package][ch.Name], e.Name)
				}
			}
			v.holds[cat][ch.Package] = append(v.holds[cat][ch.Package], ch.Name)
		}
		for _, b := range cfg.Bundles {
			if !slices.Contains(v.bundles[b.Package], b.Name) {
				v.bundles[b.Package] = append(v.bundles[b.Package], b.Name)
			}
		}
	}
	slices.Sort(v.packages)
	for p := range v.channels {
		slices.Sort(v.channels[p])
		slices.Sort(v.bundles[p])
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// V1Queries are the OLM v1 queries over a set whose catalogs are cats
// (catalog name → its FBC): for every package, every installed bundle
// (and none: a new install) with no channel filter and with each
// channel's filter, CatalogProvided.
func V1Queries(set string, cats map[string]*declcfg.DeclarativeConfig) []V1Query {
	v := newView(cats)
	var out []V1Query
	for _, pkg := range v.packages {
		installs := append([]string{""}, v.bundles[pkg]...)
		filters := [][]string{nil}
		for _, ch := range v.channels[pkg] {
			filters = append(filters, []string{ch})
		}
		for _, inst := range installs {
			for _, f := range filters {
				q := V1Query{Set: set, Package: pkg, Channels: f, UpgradeConstraintPolicy: CatalogProvided}
				if inst != "" {
					q.Installed = &V1Installed{Bundle: inst}
				}
				q.ID = v1ID(q)
				out = append(out, q)
			}
		}
	}
	return out
}

// V1SelfCertifiedQueries are the OLM v1 queries with
// upgradeConstraintPolicy SelfCertified (no successor filter: any up- or
// downgrade) over a set: for every package, every installed bundle, no
// channel filter.
func V1SelfCertifiedQueries(set string, cats map[string]*declcfg.DeclarativeConfig) []V1Query {
	v := newView(cats)
	var out []V1Query
	for _, pkg := range v.packages {
		for _, inst := range v.bundles[pkg] {
			q := V1Query{Set: set, Package: pkg, Installed: &V1Installed{Bundle: inst}, UpgradeConstraintPolicy: SelfCertified}
			q.ID = v1ID(q)
			out = append(out, q)
		}
	}
	return out
}

func v1ID(q V1Query) string {
	inst, chans := "-", "*"
	if q.Installed != nil {
		inst = q.Installed.Bundle
	}
	if len(q.Channels) > 0 {
		chans = strings.Join(q.Channels, ",")
	}
	id := q.Set + "/" + q.Package + "/" + inst + "/" + chans
	if q.UpgradeConstraintPolicy == SelfCertified {
		id += "/self-certified"
	}
	return id
}

// V0Queries are the OLM v0 queries over a set: for every catalog, every
// package and channel it holds, one Subscription to that channel from
// that catalog, with every bundle of the channel installed in turn (and
// none: a new install).
func V0Queries(set string, cats map[string]*declcfg.DeclarativeConfig) []V0Query {
	v := newView(cats)
	var out []V0Query
	for _, cat := range sortedKeys(cats) {
		entries := map[string]map[string][]string{}
		for _, ch := range cats[cat].Channels {
			if entries[ch.Package] == nil {
				entries[ch.Package] = map[string][]string{}
			}
			for _, e := range ch.Entries {
				entries[ch.Package][ch.Name] = append(entries[ch.Package][ch.Name], e.Name)
			}
		}
		for _, pkg := range v.packages {
			chans := slices.Clone(v.holds[cat][pkg])
			slices.Sort(chans)
			for _, ch := range chans {
				names := slices.Clone(entries[pkg][ch])
				slices.Sort(names)
				for _, inst := range append([]string{""}, names...) {
					q := V0Query{Set: set, Subscriptions: []V0Subscription{{Package: pkg, Channel: ch, Source: cat, Installed: inst}}}
					q.ID = v0ID(q)
					out = append(out, q)
				}
			}
		}
	}
	return out
}

func v0ID(q V0Query) string {
	parts := []string{q.Set}
	for _, s := range q.Subscriptions {
		inst := s.Installed
		if inst == "" {
			inst = "-"
		}
		if s.InstalledDeprecated {
			inst += "+deprecated"
		}
		parts = append(parts, s.Source+":"+s.Package+"/"+s.Channel+"/"+inst)
	}
	return strings.Join(parts, "/")
}

// V0DependencyPairQueries are OLM v0 queries with a dependency installed
// too: for every package P of the set with a bundle declaring
// olm.package.required on a package Q of the set, every channel of P and
// bundle p of it installed, together with every bundle q of Q's default
// channel installed (a Subscription to that channel): two Subscriptions,
// both CSVs present.
func V0DependencyPairQueries(set string, cats map[string]*declcfg.DeclarativeConfig) []V0Query {
	var out []V0Query
	for _, cat := range sortedKeys(cats) {
		cfg := cats[cat]
		defaults := map[string]string{}
		for _, p := range cfg.Packages {
			defaults[p.Name] = p.DefaultChannel
		}
		entries := map[string]map[string][]string{}
		for _, ch := range cfg.Channels {
			if entries[ch.Package] == nil {
				entries[ch.Package] = map[string][]string{}
			}
			for _, e := range ch.Entries {
				entries[ch.Package][ch.Name] = append(entries[ch.Package][ch.Name], e.Name)
			}
		}
		requires := map[string][]string{}
		for _, b := range cfg.Bundles {
			for _, p := range b.Properties {
				if p.Type != "olm.package.required" {
					continue
				}
				var v struct {
					PackageName string `json:"packageName"`
				}
				if json.Unmarshal(p.Value, &v) == nil && entries[v.PackageName] != nil && !slices.Contains(requires[b.Package], v.PackageName) {
					requires[b.Package] = append(requires[b.Package], v.PackageName)
				}
			}
		}
		for _, pkg := range sortedKeys(requires) {
			deps := slices.Clone(requires[pkg])
			slices.Sort(deps)
			for _, ch := range sortedKeys(entries[pkg]) {
				names := slices.Clone(entries[pkg][ch])
				slices.Sort(names)
				for _, inst := range names {
					for _, dep := range deps {
						depNames := slices.Clone(entries[dep][defaults[dep]])
						slices.Sort(depNames)
						for _, depInst := range depNames {
							q := V0Query{Set: set, Subscriptions: []V0Subscription{
								{Package: pkg, Channel: ch, Source: cat, Installed: inst},
								{Package: dep, Channel: defaults[dep], Source: cat, Installed: depInst},
							}}
							q.ID = v0ID(q)
							out = append(out, q)
						}
					}
				}
			}
		}
	}
	return out
}
