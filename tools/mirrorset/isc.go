package mirrorset

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/catalog/upgrade"
)

// ISCAPIVersion is the oc-mirror API the ImageSetConfiguration is
// written for.
const ISCAPIVersion = "mirror.openshift.io/v2alpha1"

// ImageSetConfiguration writes oc-mirror's ImageSetConfiguration
// (v2alpha1, as openshift/oc-mirror 855b64a reads it: mirror.platform
// with architectures and channels[] {name, minVersion, maxVersion,
// shortestPath}, mirror.operators[] {catalog, packages[] {name,
// defaultChannel, channels[] {name, minVersion, maxVersion}}}) for the
// operator plan and the release set, either of which may be nil.
//
// oc-mirror selects a channel's bundles by version range and has no
// field listing bundles, so each channel carries the narrowest range
// holding its kept bundles, and a comment says whether that range is
// exact or which other bundles of the channel it also selects; the exact
// set is the filtered catalog and the image list. A catalog read from a
// directory or file is named as it was given, with a comment: oc-mirror
// reads catalog images (or oci:// layouts).
func ImageSetConfiguration(plan *Plan, rel *ReleaseSet) []byte {
	var b strings.Builder
	b.WriteString("# ImageSetConfiguration written by upgraph mirror-set.\n")
	b.WriteString("# oc-mirror " + ISCAPIVersion + " selects releases and bundles by channel and version range; it has\n")
	b.WriteString("# no field that lists bundles. Comments say where a range is not exact: the exact sets\n")
	b.WriteString("# are images.txt and, for operators, the filtered catalog.\n")
	fmt.Fprintf(&b, "apiVersion: %s\nkind: ImageSetConfiguration\nmirror:\n", ISCAPIVersion)
	if rel != nil {
		b.WriteString("  platform:\n")
		fmt.Fprintf(&b, "    architectures:\n    - %s\n", q(rel.Arch))
		var versions []string
		for _, r := range rel.Releases {
			versions = append(versions, r.Version)
		}
		fmt.Fprintf(&b, "    # upgraph path %s → %s in %s (%s) lands on %s.\n", rel.From, rel.To, rel.Channel, rel.Arch, listOrNone(versions))
		b.WriteString("    # oc-mirror's shortestPath plans its own path from minVersion to maxVersion in each\n")
		b.WriteString("    # channel and also mirrors minVersion, the release the cluster runs.\n")
		if len(rel.Channels) == 0 {
			b.WriteString("    channels: [] # no update: nothing to mirror\n")
		} else {
			b.WriteString("    channels:\n")
		}
		for _, ch := range rel.Channels {
			fmt.Fprintf(&b, "    - name: %s\n      minVersion: %s\n      maxVersion: %s\n      shortestPath: true\n",
				q(ch.Name), q(ch.MinVersion), q(ch.MaxVersion))
		}
	}
	if plan != nil {
		var cats []*CatalogSet
		for _, cs := range plan.Catalogs {
			if len(cs.Packages) > 0 {
				cats = append(cats, cs)
			}
		}
		fmt.Fprintf(&b, "  # %s mirror set: the bundles %s takes from each install to its target.\n", plan.OLM.Title(), plan.OLM.Title())
		if plan.OLM == upgrade.V0 {
			b.WriteString("  # With the providers OLM v0 installs for their dependencies (" + depKinds + "),\n")
			b.WriteString("  # from whichever catalog it picks them, and their own dependencies.\n")
		}
		if len(cats) == 0 {
			b.WriteString("  operators: [] # every install is at its target: nothing to mirror\n")
		} else {
			b.WriteString("  operators:\n")
		}
		for _, cs := range cats {
			fmt.Fprintf(&b, "  - catalog: %s\n", q(cs.Reference))
			if !cs.Image {
				fmt.Fprintf(&b, "    # catalog %s was read from %s, not an image: name the catalog image it was\n", cs.Name, cs.Reference)
				b.WriteString("    # built into (or oci://DIR of an OCI layout of it) for oc-mirror to read it.\n")
			}
			b.WriteString("    packages:\n")
			for _, ps := range cs.Packages {
				fmt.Fprintf(&b, "    - name: %s\n", q(ps.Name))
				if req := plan.requiredBy(cs.Name, ps.Name); len(req) > 0 {
					fmt.Fprintf(&b, "      # a dependency: OLM v0 installs it for %s\n", strings.Join(req, ", "))
				}
				if ps.DefaultChannelWas != "" {
					fmt.Fprintf(&b, "      # the catalog's default channel %s is not kept\n", ps.DefaultChannelWas)
					fmt.Fprintf(&b, "      defaultChannel: %s\n", q(ps.DefaultChannel))
				}
				b.WriteString("      channels:\n")
				for _, ch := range ps.Channels {
					fmt.Fprintf(&b, "      - name: %s\n", q(ch.Name))
					var names []string
					for _, sb := range ch.Bundles {
						names = append(names, sb.Name)
					}
					slices.Reverse(names) // oldest first, as the range reads
					if ch.Range.Exact {
						fmt.Fprintf(&b, "        # exact: the range holds only %s\n", strings.Join(names, ", "))
					} else {
						fmt.Fprintf(&b, "        # NOT exact: the set is %s; the range also selects %s\n",
							strings.Join(names, ", "), strings.Join(ch.Range.AlsoSelects, ", "))
					}
					fmt.Fprintf(&b, "        minVersion: %s\n        maxVersion: %s\n", q(ch.Range.MinVersion), q(ch.Range.MaxVersion))
				}
			}
		}
	}
	return []byte(b.String())
}

// q quotes a YAML scalar: a JSON string is a YAML double-quoted scalar.
func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "no release (no update needed)"
	}
	return strings.Join(s, ", ")
}

// Images is the image list: the operator plan's images and the release
// payloads, sorted, each once, one a line.
func Images(plan *Plan, rel *ReleaseSet) []byte {
	set := map[string]bool{}
	if plan != nil {
		for _, cs := range plan.Catalogs {
			for _, im := range cs.Images {
				set[im] = true
			}
		}
	}
	if rel != nil {
		for _, im := range rel.Images {
			set[im] = true
		}
	}
	var b strings.Builder
	for _, im := range slicesSorted(set) {
		b.WriteString(im + "\n")
	}
	return []byte(b.String())
}

func slicesSorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
