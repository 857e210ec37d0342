package model

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/catalog/internal/upstreamoracle"
)

// v0OracleExcluded are the OLM v0 records the model is not compared on,
// each with the reason; the test fails when an exclusion names no record.
var v0OracleExcluded = map[string]string{}

// v0Op is one bundle a resolution installs: the fields compared with
// upstream's cache.Entry.
type v0Op struct{ name, pkg, channel, catalog string }

func (o v0Op) String() string { return fmt.Sprintf("%s/%s/%s/%s", o.catalog, o.pkg, o.channel, o.name) }

func sortOps(ops []v0Op) []v0Op {
	slices.SortFunc(ops, func(a, b v0Op) int {
		return cmp.Or(strings.Compare(a.pkg, b.pkg), strings.Compare(a.name, b.name), strings.Compare(a.catalog, b.catalog), strings.Compare(a.channel, b.channel))
	})
	return ops
}

// modelOps are what V0Set.Resolve installs: each Subscription's next
// bundle and the providers.
func modelOps(r V0Resolution) []v0Op {
	var ops []v0Op
	for _, s := range r.Subscriptions {
		if s.Next != nil {
			ops = append(ops, v0Op{s.Next.Bundle, s.Next.Package, s.Next.Channel, s.Next.Catalog})
		}
	}
	for _, p := range r.Providers {
		ops = append(ops, v0Op{p.Bundle, p.Package, p.Channel, p.Catalog})
	}
	return sortOps(ops)
}

// v0OracleSets builds each recorded set's V0Set once (its providers are
// memoized across queries).
func (o *upstreamOracle) v0Set(t *testing.T, cache map[string]*V0Set, name string) *V0Set {
	if s := cache[name]; s != nil {
		return s
	}
	set, ok := o.rec.Set(name)
	if !ok {
		t.Fatalf("no set %q", name)
	}
	members := make([]V0CatalogMember, 0, len(set.Catalogs))
	for _, ref := range set.Catalogs {
		c, err := o.catalog(ref)
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, V0CatalogMember{Name: ref.Name, Priority: ref.Priority, Catalog: c})
	}
	s := NewV0Set(members)
	cache[name] = s
	return s
}

// upstreamOracleV0 (TestUpstreamOracle/V0) asks V0Set.Resolve every
// recorded OLM v0 query — one namespace's Subscriptions, their installed
// CSVs, over the set's CatalogSources with their priorities — and
// requires operator-lifecycle-manager's answer: exactly the bundles it
// installs (each Subscription's next bundle and every dependency
// provider: name, package, channel and catalog), nothing when every CSV
// stays, or the same error: a dependency OLM v0 cannot read fails with
// upstream's text (the model's names the bundle and property around
// it); a solver failure is "constraints not satisfiable" (its conflict
// list, which upstream orders by map iteration, is not compared).
// Unstable records (the solver takes its anchors in Go map order) accept
// any recorded answer.
func upstreamOracleV0(t *testing.T, o *upstreamOracle) {
	start := time.Now()
	sets := map[string]*V0Set{}
	type tally struct{ compared, moves, stays, providers, errors, unstable, excluded int }
	bySet := map[string]*tally{}
	var disagreements []string
	excludedSeen := map[string]bool{}
	var total tally
	for _, r := range o.rec.V0 {
		tl := bySet[r.Set]
		if tl == nil {
			tl = &tally{}
			bySet[r.Set] = tl
		}
		if reason, ok := v0OracleExcluded[r.ID]; ok {
			excludedSeen[r.ID] = true
			tl.excluded++
			t.Logf("excluded %s: %s", r.ID, reason)
			continue
		}
		vs := o.v0Set(t, sets, r.Set)
		subs := make([]V0Subscription, len(r.Subscriptions))
		for i, s := range r.Subscriptions {
			subs[i] = V0Subscription{Catalog: s.Source, Package: s.Package, Channel: s.Channel, Installed: s.Installed,
				StartingCSV: s.StartingCSV, InstalledProhibited: s.InstalledDeprecated}
		}
		got := vs.Resolve(subs)
		tl.compared++
		type answer struct {
			ops []v0Op
			err string
		}
		answers := []answer{}
		add := func(ops []upstreamoracle.V0Operator, err string) {
			a := answer{err: err}
			for _, op := range ops {
				a.ops = append(a.ops, v0Op{op.Name, op.Package, op.Channel, op.Catalog})
			}
			sortOps(a.ops)
			answers = append(answers, a)
		}
		add(r.Answer.Operators, r.Answer.Error)
		for _, alt := range r.Answer.Alternatives {
			add(alt.Operators, alt.Error)
		}
		gotOps := modelOps(got)
		matched := slices.ContainsFunc(answers, func(a answer) bool {
			if a.err != "" || got.Error != "" {
				return v0ErrorsAgree(a.err, got.Error)
			}
			return slices.Equal(a.ops, gotOps)
		})
		if !matched {
			var want []string
			for _, a := range answers {
				if a.err != "" {
					want = append(want, "error "+shorten(a.err, 120))
				} else {
					want = append(want, fmt.Sprint(a.ops))
				}
			}
			g := fmt.Sprint(gotOps)
			if got.Error != "" {
				g = "error " + shorten(got.Error, 200)
			}
			disagreements = append(disagreements, fmt.Sprintf("%s: upstream %s; upgraph %s", r.ID, strings.Join(want, " | "), g))
			continue
		}
		switch {
		case got.Error != "":
			tl.errors++
		case len(gotOps) == 0:
			tl.stays++
		default:
			tl.moves++
			if len(got.Providers) > 0 {
				tl.providers++
			}
		}
		if r.Answer.Unstable {
			tl.unstable++
		}
	}
	for id := range v0OracleExcluded {
		if !excludedSeen[id] {
			t.Errorf("v0OracleExcluded names %s, which no record has", id)
		}
	}
	for _, name := range sortedSetNames(bySet) {
		tl := bySet[name]
		t.Logf("set %-14s compared %5d: agree %5d moves (%d with dependency providers), %4d stays, %d errors; %d unstable records match one of their recorded runs; %d excluded",
			name, tl.compared, tl.moves, tl.providers, tl.stays, tl.errors, tl.unstable, tl.excluded)
		total.compared += tl.compared
		total.moves += tl.moves
		total.providers += tl.providers
		total.stays += tl.stays
		total.errors += tl.errors
		total.unstable += tl.unstable
		total.excluded += tl.excluded
	}
	t.Logf("OLM v0: %d records, %d compared, %d agree (%d moves, %d of them with dependency providers; %d stays; %d errors; %d unstable), %d disagree, %d excluded; compared in %v",
		len(o.rec.V0), total.compared, total.moves+total.stays+total.errors, total.moves, total.providers, total.stays, total.errors, total.unstable,
		len(disagreements), total.excluded, time.Since(start).Round(time.Millisecond))
	if len(disagreements) > 0 {
		t.Errorf("upgraph disagrees with operator-lifecycle-manager on %d queries:\n  %s", len(disagreements), strings.Join(firstN(disagreements, 40), "\n  "))
	}
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// v0ErrorsAgree compares a recorded error with the model's.
func v0ErrorsAgree(want, got string) bool {
	const unsat = "constraints not satisfiable"
	switch {
	case want == "" || got == "":
		return false
	case strings.HasPrefix(want, unsat):
		return strings.HasPrefix(got, unsat)
	}
	return strings.Contains(got, want)
}
