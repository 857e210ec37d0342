package upstreamoracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// The split catalog set: the shared catalog's packages spread over three
// catalogs so that resolution across catalogs meets every case of
// operator-controller's Resolve and OLM v0's catalog preference: a
// package in one catalog, in two with different priorities, in two with
// the same priority (a tie), deprecated in the preferred catalog only
// (wholly, or its channel heads), and split by channel.
const (
	SplitA = "cat-a"
	SplitB = "cat-b"
	SplitC = "cat-c"
)

// SplitSet is the split catalog set (cat-a and cat-b tie on priority).
func SplitSet() CatalogSet {
	return CatalogSet{
		Name:            "split",
		GlobalNamespace: "set-split",
		Catalogs: []CatalogRef{
			{Name: SplitA, Priority: 10, Source: "split/" + SplitA},
			{Name: SplitB, Priority: 10, Source: "split/" + SplitB},
			{Name: SplitC, Priority: 0, Source: "split/" + SplitC},
		},
	}
}

// WholeSet is the shared catalog alone.
func WholeSet() CatalogSet {
	return CatalogSet{
		Name:            "whole",
		GlobalNamespace: "set-whole",
		Catalogs:        []CatalogRef{{Name: "community", Priority: 0, Source: "shared"}},
	}
}

// SplitMode is how one package is spread over the split catalogs.
type SplitMode int

const (
	// OnlyA: the whole package in cat-a.
	OnlyA SplitMode = iota
	// AOverC: the whole package in cat-a (priority 10) and cat-c (0).
	AOverC
	// ATieB: the whole package in cat-a and cat-b, equal priority.
	ATieB
	// BDeprecatedC: in cat-b with every bundle deprecated
	// (olm.deprecations) and in cat-c as is.
	BDeprecatedC
	// BHeadsDeprecatedC: in cat-b with each channel's heads deprecated
	// and in cat-c as is.
	BHeadsDeprecatedC
	// ChannelsAC: the default channel (and its bundles) in cat-a, the
	// other channels in cat-c (whose olm.package names the first of them,
	// by name, as default channel); a one-channel package goes to cat-c
	// alone.
	ChannelsAC
	splitModes
)

func (m SplitMode) String() string {
	return [...]string{"only-a", "a-over-c", "a-tie-b", "b-deprecated-c", "b-heads-deprecated-c", "channels-a-c"}[m]
}

// ModeOf is the split rule: packages sorted by name, the i-th (from 0)
// gets mode i mod 6.
func ModeOf(sortedPackages []string, pkg string) SplitMode {
	i := slices.Index(sortedPackages, pkg)
	return SplitMode(i % int(splitModes))
}

// Split spreads cfg (the shared catalog) over cat-a, cat-b and cat-c by
// ModeOf. It returns each catalog's blobs per package, in cfg's load
// order; blobs are cfg's bytes except the olm.package blob of a
// ChannelsAC package in cat-c (another default channel) and the added or
// extended olm.deprecations blobs in cat-b.
func Split(cfg *declcfg.DeclarativeConfig) (map[string]map[string][][]byte, error) {
	var pkgs []string
	for _, p := range cfg.Packages {
		pkgs = append(pkgs, p.Name)
	}
	slices.Sort(pkgs)
	out := map[string]map[string][][]byte{SplitA: {}, SplitB: {}, SplitC: {}}
	add := func(cat, pkg string, blob []byte) { out[cat][pkg] = append(out[cat][pkg], blob) }

	channels := map[string][]declcfg.Channel{}
	for _, ch := range cfg.Channels {
		channels[ch.Package] = append(channels[ch.Package], ch)
	}
	defaults := map[string]string{}
	for _, p := range cfg.Packages {
		defaults[p.Name] = p.DefaultChannel
	}
	deprecations := map[string]*declcfg.Deprecation{}
	for i := range cfg.Deprecations {
		deprecations[cfg.Deprecations[i].Package] = &cfg.Deprecations[i]
	}

	for _, pkg := range pkgs {
		mode := ModeOf(pkgs, pkg)
		metas := packageMetas(cfg, pkg)
		switch mode {
		case OnlyA, AOverC, ATieB:
			cats := map[SplitMode][]string{OnlyA: {SplitA}, AOverC: {SplitA, SplitC}, ATieB: {SplitA, SplitB}}[mode]
			for _, m := range metas {
				for _, c := range cats {
					add(c, pkg, m.Blob)
				}
			}
		case BDeprecatedC, BHeadsDeprecatedC:
			var names []string
			if mode == BDeprecatedC {
				for _, m := range metas {
					if m.Schema == "olm.bundle" {
						names = append(names, m.Name)
					}
				}
			} else {
				for _, ch := range channels[pkg] {
					names = append(names, heads(ch)...)
				}
			}
			dep, err := deprecationBlob(pkg, deprecations[pkg], names)
			if err != nil {
				return nil, err
			}
			for _, m := range metas {
				add(SplitC, pkg, m.Blob)
				if m.Schema != "olm.deprecations" {
					add(SplitB, pkg, m.Blob)
				}
			}
			add(SplitB, pkg, dep)
		case ChannelsAC:
			var others []string
			for _, ch := range channels[pkg] {
				if ch.Name != defaults[pkg] {
					others = append(others, ch.Name)
				}
			}
			slices.Sort(others)
			if len(others) == 0 {
				for _, m := range metas {
					add(SplitC, pkg, m.Blob)
				}
				continue
			}
			inChannel := func(names []string) map[string]bool {
				set := map[string]bool{}
				for _, ch := range channels[pkg] {
					if slices.Contains(names, ch.Name) {
						for _, e := range ch.Entries {
							set[e.Name] = true
						}
					}
				}
				return set
			}
			aBundles, cBundles := inChannel([]string{defaults[pkg]}), inChannel(others)
			for _, m := range metas {
				switch m.Schema {
				case "olm.package":
					add(SplitA, pkg, m.Blob)
					blob, err := withDefaultChannel(m.Blob, others[0])
					if err != nil {
						return nil, fmt.Errorf("package %s: %w", pkg, err)
					}
					add(SplitC, pkg, blob)
				case "olm.channel":
					if m.Name == defaults[pkg] {
						add(SplitA, pkg, m.Blob)
					} else {
						add(SplitC, pkg, m.Blob)
					}
				case "olm.bundle":
					if aBundles[m.Name] {
						add(SplitA, pkg, m.Blob)
					}
					if cBundles[m.Name] {
						add(SplitC, pkg, m.Blob)
					}
				default:
					add(SplitA, pkg, m.Blob)
					add(SplitC, pkg, m.Blob)
				}
			}
		}
	}
	return out, nil
}

// packageMetas are the blobs of pkg: its olm.package blob and the blobs
// whose package is pkg, in load order.
func packageMetas(cfg *declcfg.DeclarativeConfig, pkg string) []declcfg.Meta {
	var out []declcfg.Meta
	for _, m := range cfg.Metas {
		if (m.Schema == "olm.package" && m.Name == pkg) || (m.Schema != "olm.package" && m.Package == pkg) {
			out = append(out, m)
		}
	}
	return out
}

// heads are the entries of ch that no other entry replaces or skips.
func heads(ch declcfg.Channel) []string {
	replaced := map[string]bool{}
	for _, e := range ch.Entries {
		if e.Replaces != "" {
			replaced[e.Replaces] = true
		}
		for _, s := range e.Skips {
			replaced[s] = true
		}
	}
	var out []string
	for _, e := range ch.Entries {
		if !replaced[e.Name] {
			out = append(out, e.Name)
		}
	}
	return out
}

func deprecationBlob(pkg string, old *declcfg.Deprecation, bundles []string) ([]byte, error) {
	d := declcfg.Deprecation{Schema: "olm.deprecations", Package: pkg}
	if old != nil {
		d.Entries = slices.Clone(old.Entries)
	}
	seen := map[string]bool{}
	for _, e := range d.Entries {
		if e.Reference.Schema == "olm.bundle" {
			seen[e.Reference.Name] = true
		}
	}
	for _, b := range bundles {
		if seen[b] {
			continue
		}
		seen[b] = true
		d.Entries = append(d.Entries, declcfg.DeprecationEntry{
			Reference: declcfg.PackageScopedReference{Schema: "olm.bundle", Name: b},
			Message:   fmt.Sprintf("%s is deprecated in %s (upgraph oracle split)", b, SplitB),
		})
	}
	return json.Marshal(d)
}

func withDefaultChannel(blob []byte, channel string) ([]byte, error) {
	var v map[string]json.RawMessage
	if err := json.Unmarshal(blob, &v); err != nil {
		return nil, err
	}
	c, err := json.Marshal(channel)
	if err != nil {
		return nil, err
	}
	v["defaultChannel"] = c
	return json.Marshal(v)
}

// WriteSplit writes Split's catalogs under dir: dir/<catalog>/<package>/catalog.json,
// each blob on its own line.
func WriteSplit(dir string, split map[string]map[string][][]byte) error {
	for cat, pkgs := range split {
		for pkg, blobs := range pkgs {
			var buf bytes.Buffer
			for _, b := range blobs {
				buf.Write(b)
				buf.WriteByte('\n')
			}
			p := filepath.Join(dir, cat, pkg, "catalog.json")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
