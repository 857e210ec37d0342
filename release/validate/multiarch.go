package validate

import (
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/tree/version"
)

const archMulti = "multi"

// multiArch is L-multi-arch, for `oc adm upgrade --to-multi-arch`
// (ecosystem.md §8 F3): a single-arch cluster on V asking for a multi
// payload queries arch=multi with its current version, and the CVO needs
// V's node there (else VersionNotFound) with release.openshift.io/
// architecture exactly "multi" (any other value makes the node invalid;
// without it the cluster is not told the payload is multi). So every
// multi release a channel lists must be in that channel's multi graph,
// which is where its per-version file under graph/multi/ comes from, and
// the architecture metadata of every release a channel serves must be
// "multi" on multi releases and absent on the others (the CVO rejects
// any other value on any node). It needs the releases; a release no
// channel lists reaches no cluster and is not checked.
func (c *checker) multiArch(r *report) {
	if c.opts.Releases == nil {
		return
	}
	byKey := map[string][]version.Version{}
	hasMulti := map[string]bool{}
	for _, rel := range c.opts.Releases {
		byKey[rel.Key()] = append(byKey[rel.Key()], rel)
		if rel.Build() == archMulti {
			hasMulti[rel.Key()] = true
		}
	}
	checked := map[string]bool{} // releases whose metadata was checked
	for _, ch := range c.channels {
		if !ch.read {
			continue
		}
		servesMulti := map[string]bool{}
		for _, e := range ch.entries {
			if b := e.v.Build(); b == "" || b == archMulti {
				servesMulti[e.v.Key()] = true
			}
		}
		reported := map[string]bool{}
		for _, e := range ch.entries {
			k := e.v.Key()
			if hasMulti[k] && !servesMulti[k] && !reported[k] {
				reported[k] = true
				r.errorf(ch.file, e.line, "L-multi-arch", "%s+multi is a release, but channel %s lists %s only as %s: no per-version file under graph/multi/%s/ holds it, so a cluster on %s in %s migrating to the multi payload (oc adm upgrade --to-multi-arch, which queries arch=multi for the current version) gets VersionNotFound", k, ch.name, k, e.v, ch.name, k, ch.name)
			}
			if c.opts.Architectures == nil {
				continue
			}
			for _, rel := range byKey[k] {
				if b := e.v.Build(); b != "" && b != rel.Build() || checked[rel.String()] {
					continue
				}
				checked[rel.String()] = true
				archMetadata(r, ch, e, rel, c.opts.Architectures)
			}
		}
	}
}

// archMetadata checks the release.openshift.io/architecture metadata of
// rel, which channel ch serves from its entry e.
func archMetadata(r *report, ch *channelFile, e entry, rel version.Version, md map[string]string) {
	val, ok := md[rel.String()]
	const key = graph.KeyPayloadArch
	switch {
	case rel.Build() == archMulti && !ok:
		r.errorf(ch.file, e.line, "L-multi-arch", "release %s (served by channel %s) has no %s metadata: clusters read a payload's architecture from it, so one migrating to %s (oc adm upgrade --to-multi-arch) is not told it is multi; it must be \"multi\"", rel, ch.name, key, rel.Key())
	case rel.Build() == archMulti && val != archMulti:
		r.errorf(ch.file, e.line, "L-multi-arch", "release %s (served by channel %s) has %s %q: the CVO accepts only \"multi\" and rejects the node otherwise (ResponseInvalid), so clusters on or updating to it get no updates", rel, ch.name, key, val)
	case rel.Build() != archMulti && val == archMulti:
		r.errorf(ch.file, e.line, "L-multi-arch", "release %s (served by channel %s) has %s \"multi\": a multi payload served as %s, which upstream's graph-builder drops; it belongs under arch multi", rel, ch.name, key, rel.Build())
	case rel.Build() != archMulti && ok:
		r.errorf(ch.file, e.line, "L-multi-arch", "release %s (served by channel %s) has %s %q: only multi releases may carry it, and the CVO accepts no value but \"multi\" (ResponseInvalid otherwise)", rel, ch.name, key, val)
	}
}
