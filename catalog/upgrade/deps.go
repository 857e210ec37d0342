package upgrade

import (
	"errors"
	"fmt"
	"strings"

	"github.com/upgraph/upgraph/catalog/model"
)

// Reason codes of OLM v0 with dependencies (FindV0InSet).
const (
	// ReasonUnsatisfiedDependency: OLM v0 stays (or its resolution
	// fails) because the dependencies of the bundles it would install
	// cannot be satisfied by any catalog of the set: every candidate
	// from the installed bundle is passed over, or even the installed
	// bundle's own dependencies fail ("constraints not satisfiable").
	ReasonUnsatisfiedDependency = model.ReasonUnsatisfiedDependency
	// ReasonInvalidDependency: a bundle on the way declares a dependency
	// property OLM v0 cannot read (it fails every resolution that
	// meets it).
	ReasonInvalidDependency = "invalid-dependency"
)

// v0Deps is OLM v0 with dependencies: the catalog set and the
// Subscription's catalog in it.
type v0Deps struct {
	set  *model.V0Set
	home string
}

// FindV0InSet is FindInPackage for OLM v0 with dependencies: the
// Subscription's catalog is home, a member of set, and every resolution
// solves the dependencies of what it installs over the whole set
// (model.V0Set.ResolvePath): each hop lists its dependencies with the
// bundle OLM v0 picks for each (or why none can be), the providers it
// installs and the candidates passed over; a stay for unsatisfiable
// dependencies is the reason unsatisfied-dependency.
func FindV0InSet(set *model.V0Set, home string, q Query) (*Report, error) {
	m := set.Member(home)
	if m == nil {
		return nil, errorf("the catalog set has no catalog %q (it has %s)", home, strings.Join(set.Names(), ", "))
	}
	var p *model.Package
	if m.Catalog != nil {
		p = m.Catalog.Package(q.Package)
	}
	if p == nil {
		return nil, errorf("catalog %s has no package %q", home, q.Package)
	}
	q.OLM = V0
	r, err := find(p, q, nil, &v0Deps{set: set, home: home})
	if r != nil {
		r.Catalog = home
		r.Semantics = model.SemanticsV0Set
		r.setSize = len(set.Names())
	}
	return r, err
}

// walk follows ResolvePath from the installed bundle.
func (d *v0Deps) walk(p *model.Package, ch *model.Channel, from *model.Bundle) walk {
	res := d.set.ResolvePath(model.V0SetQuery{Catalog: d.home, Package: p.Name, Channel: ch.Name, Installed: from.Name})
	w := walk{stop: from, hops: []Hop{}}
	prev := from
	for _, h := range res.PathToHead {
		b := p.Bundle(h.Name)
		if b == nil {
			w.err = fmt.Errorf("entry %s has no olm.bundle", h.Name)
			break
		}
		hp := hop(prev, b, h.Via)
		hp.Dependencies, hp.Providers, hp.PassedOver = h.Dependencies, h.Providers, h.PassedOver
		w.hops = append(w.hops, hp)
		prev = b
	}
	w.stop = prev
	w.prohibited = res.Stranded
	w.held = res.Held
	if res.Error != "" && w.err == nil {
		w.err = errors.New(res.Error)
		w.loop = strings.Contains(res.Error, "loop")
		w.unsat = res.Unsatisfied
		w.depErr = strings.Contains(res.Error, "OLM v0 cannot resolve it")
	}
	return w
}

// HeldReason is the reason OLM v0 stays on the installed bundle (named
// installed) when the dependencies of every candidate from it cannot be
// satisfied.
func HeldReason(installed string, h *model.V0Held) *Reason {
	bundles := []string{installed}
	for _, po := range h.PassedOver {
		bundles = append(bundles, po.Bundle)
	}
	return &Reason{Code: ReasonUnsatisfiedDependency, Bundles: bundles, Message: h.Message}
}

// dependencyReason explains a resolution that fails on dependencies.
func (e explainer) dependencyReason(stop *model.Bundle) *Reason {
	switch {
	case e.w.err == nil || e.w.loop:
		return nil
	case e.w.depErr:
		return &Reason{Code: ReasonInvalidDependency, Bundles: []string{stop.Name},
			Message: fmt.Sprintf("OLM v0 cannot resolve from %s: %v", stop.Name, e.w.err)}
	case len(e.w.unsat) > 0 || strings.Contains(e.w.err.Error(), "constraints not satisfiable"):
		bundles := []string{stop.Name}
		for _, u := range e.w.unsat {
			if u.Bundle != stop.Name {
				bundles = append(bundles, u.Bundle)
			}
		}
		return &Reason{Code: ReasonUnsatisfiedDependency, Bundles: bundles,
			Message: fmt.Sprintf("OLM v0's resolution from %s fails: %v", stop.Name, e.w.err)}
	}
	return nil
}

// depText words a hop's dependencies, providers and passed-over
// candidates for people, one line each, indented under the hop.
func depText(b *strings.Builder, h Hop) {
	for _, d := range h.Dependencies {
		fmt.Fprintf(b, "       needs an operator %s: %s\n", d.Text, depOutcome(d))
	}
	for _, p := range h.Providers {
		fmt.Fprintf(b, "       installs %s (%s) from catalog %s, channel %s, for %s\n", p.Bundle, p.Version, p.Catalog, p.Channel, p.RequiredBy)
		for _, d := range p.Dependencies {
			fmt.Fprintf(b, "         which needs an operator %s: %s\n", d.Text, depOutcome(d))
		}
	}
	for _, po := range h.PassedOver {
		fmt.Fprintf(b, "       passes over %s (%s): %s: %s\n", po.Bundle, po.Version, po.Reason, po.Message)
	}
}

func depOutcome(d model.V0DependencyResult) string {
	if d.Pick == nil {
		return d.Reason + ": " + d.Message
	}
	where := fmt.Sprintf("from catalog %s, channel %s", d.Pick.Catalog, d.Pick.Channel)
	if d.Pick.Installed {
		where = "installed"
	}
	return fmt.Sprintf("%s (%s), %s", d.Pick.Bundle, d.Pick.Version, where)
}
