package upgrade

import (
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/upgraph/upgraph/catalog/model"
)

// explainer says why a runtime does not land on the target.
type explainer struct {
	p       *model.Package
	ch      *model.Channel
	olm     Runtime
	from    *model.Bundle
	target  *model.Bundle // nil: the channel has no single head
	headErr error
	w       walk
}

func (e explainer) title() string { return e.olm.Title() }

func (e explainer) explain() *Reason {
	stop := e.w.stop
	if e.w.loop {
		return &Reason{Code: ReasonLoop, Message: e.w.err.Error(), Bundles: []string{stop.Name}}
	}
	if r := e.dependencyReason(stop); r != nil {
		return r
	}
	if e.w.err != nil {
		msg := fmt.Sprintf("%s cannot resolve in channel %s: %v", e.title(), e.ch.Name, e.w.err)
		if r := e.missing(stop); r != nil {
			r.Message = msg + ". " + r.Message
			return r
		}
		return &Reason{Code: ReasonChannelInvalid, Message: msg + e.headHint(), Bundles: e.headNames()}
	}
	if e.target == nil {
		if r := e.missing(stop); r != nil {
			r.Message = fmt.Sprintf("channel %s has no single head (%v). %s", e.ch.Name, e.headErr, r.Message)
			return r
		}
		return &Reason{Code: ReasonChannelInvalid,
			Message: fmt.Sprintf("channel %s has no single head (%v), so there is no head to reach: name a target%s", e.ch.Name, e.headErr, e.headHint()),
			Bundles: e.headNames()}
	}
	t := e.target
	if e.older(t, e.from) {
		return &Reason{Code: ReasonTargetOlder, Bundles: []string{t.Name},
			Message: fmt.Sprintf("%s (%s) is older than the installed %s (%s), and %s", t.Name, t.PackageProperty.Version,
				e.from.Name, e.from.PackageProperty.Version, e.downWording())}
	}
	te := e.ch.Entry(t.Name)
	if te == nil {
		in := make([]string, 0, len(t.Entries))
		for _, en := range t.Entries {
			in = append(in, en.Channel.Name)
		}
		where := "in no channel"
		if len(in) > 0 {
			where = "in " + strings.Join(in, ", ")
		}
		return &Reason{Code: ReasonUnreachable, Bundles: []string{t.Name},
			Message: fmt.Sprintf("%s is not an entry of channel %s (it is %s): %s only moves to entries of the channel it resolves in",
				t.Name, e.ch.Name, where, e.title())}
	}
	if e.olm == V0 && (te.SkippedBy != "" || !te.OnV0Chain) {
		why := fmt.Sprintf("%s skips it in channel %s", te.SkippedBy, e.ch.Name)
		if te.SkippedBy == "" {
			why = fmt.Sprintf("it is off the replaces chain from the head of channel %s", e.ch.Name)
		}
		return &Reason{Code: ReasonSkippedByV0, Bundles: []string{t.Name},
			Message: fmt.Sprintf("OLM v0 never lands on %s: %s, so the resolver leaves it out of the channel's order (only a new install with startingCSV gets it)", t.Name, why)}
	}
	if e.passed(stop, t) {
		return e.passedReason(t)
	}
	if r := e.blocked(stop); r != nil {
		return r
	}
	if r := e.missing(stop); r != nil {
		return r
	}
	return e.stranded(stop)
}

// blocked explains a stop where the runtime's own rules refuse the next
// bundle: OLM v1's post-pick validation or a tie between catalogs, OLM
// v0's Prohibited bundles.
func (e explainer) blocked(stop *model.Bundle) *Reason {
	if e.w.tie != "" {
		return &Reason{Code: ReasonCatalogTie, Bundles: []string{stop.Name},
			Message: fmt.Sprintf("OLM v1 cannot update %s: its best bundle is in several catalogs of the same priority, and operator-controller refuses to choose (%s)", stop.Name, e.w.tie)}
	}
	if ref := e.w.refusal; ref != nil {
		return RefusedReason(stop.Name, ref)
	}
	if pr := e.w.prohibited; pr != nil {
		return ProhibitedReason(stop.Name, pr)
	}
	if h := e.w.held; h != nil {
		return HeldReason(stop.Name, h)
	}
	return nil
}

// RefusedReason is the reason OLM v1 stays on the installed bundle
// (named installed) when operator-controller refuses the bundle it
// resolved (NoDependencyValidation).
func RefusedReason(installed string, ref *model.V1Refusal) *Reason {
	return &Reason{Code: ReasonRefusedByV1, Bundles: []string{installed, ref.Bundle},
		Message: fmt.Sprintf("OLM v1 cannot update %s: %s declares %s, and operator-controller refuses a resolved bundle that declares a dependency, "+
			"with no fallback to an older one (%s)", installed, ref.Bundle, ref.Property, ref.Message)}
}

// ProhibitedReason is the reason OLM v0 stays on the installed bundle
// (named installed) when its next hop is Prohibited.
func ProhibitedReason(installed string, s *model.V0Stranded) *Reason {
	return &Reason{Code: ReasonProhibited, Bundles: []string{installed, s.Bundle},
		Message: fmt.Sprintf("OLM v0 cannot update %s: its next bundle %s has the legacy %s property, which makes it Prohibited: "+
			"the resolver never installs it, so %s stays", installed, s.Bundle, s.Property, installed)}
}

// older reports whether a is a lower version than b.
func (e explainer) older(a, b *model.Bundle) bool {
	return a.VersionOK && b.VersionOK && a.Compare(b) < 0
}

func (e explainer) downWording() string {
	if e.olm == V1 {
		return "OLM v1 never prefers a lower version to the installed one (it sorts candidates highest first and may stay)"
	}
	return "no replaces or skips edge leads down to it (OLM v0 follows edges to lower versions only when an entry names the installed bundle)"
}

// passed reports whether the runtime stopped beyond t: closer to the head
// in OLM v0's order, at a higher version for OLM v1.
func (e explainer) passed(stop, t *model.Bundle) bool {
	if e.olm == V1 {
		return stop.VersionOK && t.VersionOK && stop.Compare(t) > 0
	}
	order, _ := e.ch.V0Chain()
	si := slices.IndexFunc(order, func(en *model.Entry) bool { return en.Name == stop.Name })
	ti := slices.IndexFunc(order, func(en *model.Entry) bool { return en.Name == t.Name })
	return si >= 0 && ti >= 0 && si < ti
}

func (e explainer) passedReason(t *model.Bundle) *Reason {
	rule := "first in the channel's order (head first)"
	if e.olm == V1 {
		rule = "the highest version (non-deprecated first)"
	}
	landed := []*model.Bundle{e.from}
	for _, h := range e.w.hops {
		if b := e.p.Bundle(h.To.Name); b != nil { // nil: a bundle of another catalog of the set
			landed = append(landed, b)
		}
	}
	for i, x := range landed {
		cands := e.candidates(x)
		if j := slices.Index(cands, t.Name); j > 0 {
			takes := "keeps " + x.Name
			bundles := []string{t.Name, x.Name}
			if i+1 < len(landed) {
				takes = "takes " + landed[i+1].Name
				bundles = append(bundles, landed[i+1].Name)
			}
			return &Reason{Code: ReasonUnreachable, Bundles: bundles,
				Message: fmt.Sprintf("from %s, %s is a candidate but %s %s, %s: it moves past %s",
					x.Name, t.Name, e.title(), takes, rule, t.Name)}
		}
	}
	var names []string
	for _, b := range landed[1:] {
		names = append(names, b.Name)
	}
	return &Reason{Code: ReasonUnreachable, Bundles: []string{t.Name},
		Message: fmt.Sprintf("no bundle %s lands on (%s, then %s) has an edge to %s: it moves past it",
			e.title(), e.from.Name, strings.Join(names, ", "), t.Name)}
}

// candidates are the names the runtime chooses from, installed at b, in
// its order (OLM v1: the installed bundle included).
func (e explainer) candidates(b *model.Bundle) []string {
	var out []string
	if e.olm == V1 {
		inst, err := b.InstalledV1(false)
		if err != nil {
			return nil
		}
		for _, c := range e.p.ResolveV1(model.V1Query{Installed: &inst, Channels: []string{e.ch.Name}}).Candidates {
			out = append(out, c.Name)
		}
		return out
	}
	inst := b.InstalledV0()
	cands, _ := e.p.V0Candidates(model.V0Query{Channel: e.ch.Name, Installed: &inst})
	for _, c := range cands {
		out = append(out, c.Name)
	}
	return out
}

// successor is an entry of the channel with an edge from a bundle.
type successor struct {
	entry *model.Entry
	via   []model.Via
}

// successors are the entries of the channel with an edge from b (as
// the runtime matches them: OLM v0 reads the version tolerantly, OLM v1
// strictly), b itself left out, in channel order.
func (e explainer) successors(b *model.Bundle) []successor {
	var version *semver.Version
	if e.olm == V0 {
		if v, err := semver.ParseTolerant(b.PackageProperty.Version); err == nil {
			version = &v
		}
	} else if v, err := semver.Parse(b.PackageProperty.Version); err == nil {
		version = &v
	}
	var out []successor
	for _, en := range e.ch.Entries {
		if en.Name == b.Name {
			continue
		}
		var via []model.Via
		if en.Replaces == b.Name {
			via = append(via, model.Via{Channel: e.ch.Name, Type: model.EdgeReplaces})
		}
		if slices.Contains(en.Skips, b.Name) {
			via = append(via, model.Via{Channel: e.ch.Name, Type: model.EdgeSkips})
		}
		if en.Range != nil && version != nil && en.Range(*version) {
			via = append(via, model.Via{Channel: e.ch.Name, Type: model.EdgeSkipRange, Range: en.SkipRange})
		}
		if len(via) > 0 {
			out = append(out, successor{en, via})
		}
	}
	return out
}

func viaText(via []model.Via) string {
	parts := make([]string, len(via))
	for i, v := range via {
		parts[i] = string(v.Type)
		if v.Range != "" {
			parts[i] += " " + v.Range
		}
	}
	return strings.Join(parts, ", ")
}

// stranded explains a stop short of the target with no missing bundle.
func (e explainer) stranded(stop *model.Bundle) *Reason {
	where := fmt.Sprintf("%s stops at %s (%s)", e.title(), stop.Name, stop.PackageProperty.Version)
	if len(e.w.hops) > 0 {
		where += fmt.Sprintf(" after %d hop(s)", len(e.w.hops))
	}
	succ := e.successors(stop)
	if len(succ) == 0 {
		ver := stop.PackageProperty.Version
		msg := fmt.Sprintf("%s: no entry of channel %s replaces or skips it, or has a skipRange holding %s", where, e.ch.Name, ver)
		if e.w.none != "" {
			msg += fmt.Sprintf(" (and it is not in the channel: OLM v1 reports %q)", e.w.none)
		}
		return &Reason{Code: ReasonStranded, Bundles: []string{stop.Name}, Message: msg}
	}
	bundles := []string{stop.Name}
	var parts []string
	for _, s := range succ {
		bundles = append(bundles, s.entry.Name)
		ver := ""
		if s.entry.Bundle != nil {
			ver = " (" + s.entry.Bundle.PackageProperty.Version + ")"
		}
		what := fmt.Sprintf("%s%s [%s]", s.entry.Name, ver, viaText(s.via))
		switch {
		case e.olm == V1 && s.entry.Bundle != nil && s.entry.Bundle.Deprecation != nil && stop.Deprecation == nil:
			what += " is deprecated"
		case e.olm == V1 && s.entry.Bundle != nil && e.older(s.entry.Bundle, stop):
			what += " is a lower version"
		case e.olm == V0 && s.entry.SkippedBy != "":
			what += " is skipped by " + s.entry.SkippedBy
		case e.olm == V0 && !s.entry.OnV0Chain:
			what += " is off the replaces chain from the head"
		}
		parts = append(parts, what)
	}
	var msg string
	if e.olm == V1 {
		msg = fmt.Sprintf("%s: OLM v1 keeps it, preferring it to its successors in channel %s: %s", where, e.ch.Name, strings.Join(parts, "; "))
	} else {
		msg = fmt.Sprintf("%s: its successors in channel %s are entries the resolver drops from the channel's order: %s (stranded after a skip, operator-registry#1744)",
			where, e.ch.Name, strings.Join(parts, "; "))
	}
	return &Reason{Code: ReasonStranded, Message: msg, Bundles: bundles}
}

// missing explains a stop by entries above it whose replaces names a
// bundle the package lacks: the chain down to the installed bundle goes
// through bundles the catalog does not have.
func (e explainer) missing(stop *model.Bundle) *Reason {
	var parts, bundles []string
	for _, en := range e.ch.Entries {
		if en.Replaces == "" || e.p.Bundle(en.Replaces) != nil || en.Bundle == nil {
			continue
		}
		if stop.VersionOK && en.Bundle.VersionOK && en.Bundle.Compare(stop) <= 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s (%s) replaces %s", en.Name, en.Bundle.PackageProperty.Version, en.Replaces))
		bundles = append(bundles, en.Replaces)
	}
	if len(parts) == 0 {
		return nil
	}
	return &Reason{Code: ReasonMissingBundle, Bundles: bundles,
		Message: fmt.Sprintf("%s stops at %s (%s): in channel %s, %s, which the catalog lacks: the bundles between them are missing (a partially mirrored catalog?)",
			e.title(), stop.Name, stop.PackageProperty.Version, e.ch.Name, strings.Join(parts, "; "))}
}

// heads are the entries of the channel no replaces or skips of the
// channel names.
func (e explainer) heads() []*model.Entry {
	incoming := map[string]bool{}
	for _, en := range e.ch.Entries {
		if en.Replaces != "" {
			incoming[en.Replaces] = true
		}
		for _, s := range en.Skips {
			incoming[s] = true
		}
	}
	var out []*model.Entry
	for _, en := range e.ch.Entries {
		if !incoming[en.Name] {
			out = append(out, en)
		}
	}
	return out
}

func (e explainer) headNames() []string {
	var out []string
	for _, h := range e.heads() {
		out = append(out, h.Name)
	}
	slices.Sort(out)
	return out
}

// headHint explains several heads made by entries with only a skipRange
// (operator-registry#822).
func (e explainer) headHint() string {
	hs := e.heads()
	if len(hs) < 2 {
		return ""
	}
	var only []string
	for _, h := range hs {
		if h.Replaces == "" && len(h.Skips) == 0 && h.SkipRange != "" {
			only = append(only, h.Name)
		}
	}
	if len(only) == 0 {
		return ""
	}
	return fmt.Sprintf("; %s has only a skipRange, which gives no entry an incoming edge, so it is a head beside the others (operator-registry#822): it also needs replaces (or skips) of the previous head",
		strings.Join(only, ", "))
}
