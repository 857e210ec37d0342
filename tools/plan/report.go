package plan

import (
	"fmt"
	"io"
	"strings"

	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/upgrade"
	"github.com/upgraph/upgraph/internal/english"
	"github.com/upgraph/upgraph/internal/jsonw"
)

// WriteJSON writes the plan as indented JSON, ending in a newline (as
// the path reports).
func (p *Plan) WriteJSON(w io.Writer) error {
	return jsonw.WriteIndented(w, p)
}

// WriteText writes the plan for people: a summary, the cluster path, one
// section per hop with one paragraph per operator, the blockers and the
// notes.
func (p *Plan) WriteText(w io.Writer) error {
	var b strings.Builder
	rel := p.Release
	where := fmt.Sprintf("in %s (%s)", strings.Join(rel.Channels, " + "), rel.Arch)
	if rel.UnconditionalOnly {
		where += ", unconditional edges only"
	}
	switch {
	case !rel.Found:
		fmt.Fprintf(&b, "No update path from %s to %s %s: BLOCKED.\n", p.From, p.To, where)
	default:
		verdict := "no blockers"
		if p.Blocked {
			verdict = fmt.Sprintf("BLOCKED (%s)", english.Count(len(p.Blockers), "blocker"))
		}
		fmt.Fprintf(&b, "Plan %s → %s %s, operators with %s: %s\n", p.From, p.To, where, p.OLM.Title(), verdict)
	}
	fmt.Fprintf(&b, "Minors: %s\nCatalogs:\n", strings.Join(p.Minors, " → "))
	for _, c := range p.Catalogs {
		if c.Name != "" {
			fmt.Fprintf(&b, "  %s %s (priority %d) = %s\n", c.Key, c.Name, c.Priority, c.Source)
			continue
		}
		fmt.Fprintf(&b, "  %s = %s\n", c.Key, c.Source)
	}

	if rel.Found {
		fmt.Fprintf(&b, "\nCluster path: %s, %d conditional, %s:\n", english.Count(len(rel.Hops), "hop"), rel.ConditionalHops, english.Count(len(p.Hops), "minor hop"))
		for i, h := range rel.Hops {
			fmt.Fprintf(&b, "%3d. %s → %s", i+1, h.From, h.To)
			if h.Conditional {
				names := make([]string, len(h.Risks))
				for j, r := range h.Risks {
					names[j] = r.Name
				}
				fmt.Fprintf(&b, "  conditional: %s", strings.Join(names, ", "))
			}
			if len(rel.Channels) > 1 {
				fmt.Fprintf(&b, "  [%s]", strings.Join(h.Channels, ", "))
			}
			b.WriteByte('\n')
		}
	}

	for i, h := range p.Hops {
		state := "ok"
		if h.Blocked {
			state = "BLOCKED"
		}
		fmt.Fprintf(&b, "\nHop %d: %s → %s (%s → %s): %s\n", i+1, h.From, h.To, h.ReleaseFrom, h.ReleaseTo, state)
		if e := h.EUS; e != nil {
			msg := fmt.Sprintf("EUS-to-EUS %s → %s, step 1: into %s, where the worker pools stay paused.", e.From, e.To, e.Intermediate)
			if e.Step == 2 {
				msg = fmt.Sprintf("EUS-to-EUS %s → %s, step 2: out of %s; updates required here happen with the worker pools paused.",
					e.From, e.To, e.Intermediate)
			}
			fmt.Fprintf(&b, "  %s\n", english.Wrap(msg, 96, "  "))
		}
		fmt.Fprintf(&b, "  %s\n", english.Wrap(fmt.Sprintf("OLM blocks the hop while an installed bundle's olm.maxOpenShiftVersion is below %s; updates come from %s, then %s.",
			checkText(h), h.FromCatalog, h.ToCatalog), 96, "  "))
		if len(h.Operators) == 0 {
			b.WriteString("  (no operators listed)\n")
		}
		for _, o := range h.Operators {
			writeOperator(&b, o, h, p.OLM)
		}
	}

	if len(p.Blockers) > 0 {
		b.WriteString("\nBlockers:\n")
		for _, bl := range p.Blockers {
			if bl.Hop == "" {
				fmt.Fprintf(&b, "  - %s\n", bl.Message)
				continue
			}
			fmt.Fprintf(&b, "  - %s: %s (%s) %s:\n    %s\n", bl.Hop, bl.Package, bl.Channel, upgrade.RefText(bl.Installed.Ref), english.Wrap(bl.Message, 92, "    "))
		}
	}
	if len(p.Notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range p.Notes {
			fmt.Fprintf(&b, "  - %s\n", english.Wrap(n, 96, "    "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// checkText is the minor OLM compares maxOpenShiftVersion with on hop h,
// nextY of the cluster's minor: the hop's target when they are the same
// release (4.23 ≡ 5.0); for a hop that skips that minor, upgraph's
// stricter requirement of the target as well (Allows), since OLM checks
// only the next minor and the operator would run on the target.
func checkText(h Hop) string {
	checks, err1 := ParseMinor(h.OLMChecks)
	to, err2 := ParseMinor(h.To)
	switch {
	case err1 != nil || err2 != nil || checks == to:
		return h.OLMChecks
	case checks.Normalize() == to.Normalize():
		return fmt.Sprintf("%s (≡ %s)", h.OLMChecks, h.To)
	}
	return fmt.Sprintf("%s, the next minor after %s; the hop skips %s, so upgraph also requires %s (its policy, stricter than OLM's: the operator would run on %s)",
		h.OLMChecks, h.From, h.OLMChecks, h.To, h.To)
}

func writeOperator(b *strings.Builder, o OperatorHop, h Hop, olm upgrade.Runtime) {
	head := map[string]string{
		StateCompatible:     "compatible",
		StateUpdateRequired: "UPDATE before the hop",
		StateBlocked:        "BLOCKED",
	}[o.State]
	fmt.Fprintf(b, "\n  %s (%s) %s, %s: %s\n", o.Package, o.Channel, upgrade.RefText(o.Installed.Ref), maxText(o.Installed), head)
	if e := o.Installed.MaxOpenShiftVersionError; e != "" {
		fmt.Fprintf(b, "    %s\n", english.Wrap(e, 92, "    "))
	}
	switch o.State {
	case StateUpdateRequired:
		fmt.Fprintf(b, "    update to %s, %s, in %s:\n", upgrade.RefText(o.Update.To.Ref), maxText(o.Update.To), h.FromCatalog)
		writeHops(b, o.Update.Hops, "      ")
	case StateBlocked:
		fmt.Fprintf(b, "    %s\n", english.Wrap(o.Message, 92, "    "))
		for _, oc := range o.OtherChannels {
			fmt.Fprintf(b, "    %s\n", english.Wrap(fmt.Sprintf("channel %s would reach %s, %s, in %s: a way out if the subscription may change channel",
				oc.Channel, upgrade.RefText(oc.To.Ref), maxText(oc.To), english.Count(len(oc.Hops), "hop")), 92, "    "))
		}
	}
	n := o.Next
	para(b, "    "+n.Catalog+": ", nextText(o, olm))
	for _, d := range o.Dependencies {
		if d.Provider != nil {
			para(b, "    dependency in "+n.Catalog+": ", fmt.Sprintf("an operator %s: %s from catalog %s (channel %s)", d.Text, d.Provider.Bundle, d.Provider.Catalog, d.Provider.Channel))
		}
	}
	for _, d := range o.Deprecations {
		para(b, "    deprecated in "+n.Catalog+": ", d.String())
	}
}

// nextText says where the operator stands in the next catalog.
func nextText(o OperatorHop, olm upgrade.Runtime) string {
	n := o.Next
	inst := o.Installed.Ref
	if o.Update != nil {
		inst = o.Update.To.Ref
	}
	switch n.State {
	case NextPackageGone:
		return fmt.Sprintf("no package %s: the operator gets no update there", o.Package)
	case NextChannelGone:
		return fmt.Sprintf("no channel %s (the package has %s; default %s): the operator gets no update there until its channel is changed",
			o.Channel, strings.Join(n.Channels, ", "), n.DefaultChannel)
	}
	rt := n.Route
	where := fmt.Sprintf("%s is in %s", inst.Name, o.Channel)
	if !n.InChannel {
		where = fmt.Sprintf("%s is not in %s", inst.Name, o.Channel)
	}
	switch {
	case n.State == NextReachesHead && len(rt.Hops) == 0:
		return where + ", at its head"
	case n.State == NextReachesHead && !n.InChannel:
		return fmt.Sprintf("%s, but %s has an edge from it: %s to the head %s", where, rt.Hops[0].To.Name, english.Count(len(rt.Hops), "hop"), upgrade.RefText(*rt.Head))
	case n.State == NextReachesHead:
		return fmt.Sprintf("%s; %s to the head %s", where, english.Count(len(rt.Hops), "hop"), upgrade.RefText(*rt.Head))
	}
	msg := fmt.Sprintf("%s; STRANDED: %s does not reach the head", where, olm.Title())
	if rt.Head != nil {
		msg += " " + upgrade.RefText(*rt.Head)
	}
	if rt.Reason != nil {
		msg += fmt.Sprintf("; %s: %s", rt.Reason.Code, rt.Reason.Message)
	}
	return msg
}

func writeHops(b *strings.Builder, hops []upgrade.Hop, indent string) {
	for i, h := range hops {
		fmt.Fprintf(b, "%s%d. %s → %s  via %s", indent, i+1, upgrade.RefText(h.From), upgrade.RefText(h.To), viaText(h.Via))
		if h.Deprecated != "" {
			b.WriteString("  [deprecated]")
		}
		b.WriteByte('\n')
	}
}

func viaText(via []model.Via) string {
	var parts []string
	for _, v := range via {
		s := string(v.Type)
		if v.Range != "" {
			s += " " + v.Range
		}
		if !strings.Contains(strings.Join(parts, "\x00"), s) {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return "(the installed version)"
	}
	return strings.Join(parts, ", ")
}

// maxText writes a bundle's olm.maxOpenShiftVersion for people.
func maxText(b Bundle) string {
	switch {
	case b.MaxOpenShiftVersionError != "":
		return "invalid maxOpenShiftVersion"
	case b.MaxOpenShiftVersion == "":
		return "no maxOpenShiftVersion"
	}
	if m, err := ParseMinor(b.MaxOpenShiftVersion); err == nil {
		return "maxOpenShiftVersion " + equiv(m)
	}
	return "maxOpenShiftVersion " + b.MaxOpenShiftVersion
}

// para writes prefix and text, wrapped at 100 columns, continued six
// columns in.
func para(b *strings.Builder, prefix, text string) {
	width := max(100-len(prefix), 40)
	b.WriteString(prefix + english.Wrap(text, width, "      ") + "\n")
}
