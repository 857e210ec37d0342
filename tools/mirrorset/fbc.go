package mirrorset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/upgrade"
)

// File is a file of a filtered catalog; Path is relative to its root.
type File struct {
	Path string
	Data []byte
}

// FBC returns the filtered catalog of cs: one file per kept package,
// P/catalog.json, a JSON stream of its blobs, one a line, in the
// catalog's order: the olm.package blob (defaultChannel rewritten when
// its channel is dropped), the kept channels with only the kept entries
// (each entry as it was), the kept bundles as they were, the
// olm.deprecations entries of what is kept, and the package's other
// blobs. Blobs are the catalog's bytes (operator-registry's encoding)
// except for those rewritten, re-encoded the same way.
func (cs *CatalogSet) FBC() ([]File, error) {
	var files []File
	for _, ps := range cs.Packages {
		data, err := cs.packageBlobs(ps)
		if err != nil {
			return nil, fmt.Errorf("catalog %s package %s: %w", cs.Name, ps.Name, err)
		}
		files = append(files, File{Path: ps.Name + "/catalog.json", Data: data})
	}
	return files, nil
}

// kept returns the entries ps keeps per channel name (a kept channel
// has a set, maybe empty) and the bundles it keeps.
func (ps *PackageSet) kept() (entries map[string]map[string]bool, bundles map[string]bool) {
	entries, bundles = map[string]map[string]bool{}, map[string]bool{}
	for _, ch := range ps.Channels {
		entries[ch.Name] = map[string]bool{}
		for _, b := range ch.Bundles {
			entries[ch.Name][b.Name] = true
			bundles[b.Name] = true
		}
	}
	return entries, bundles
}

func (cs *CatalogSet) packageBlobs(ps *PackageSet) ([]byte, error) {
	entries, bundles := ps.kept()
	var out bytes.Buffer
	for i := range cs.cat.Config.Metas {
		m := &cs.cat.Config.Metas[i]
		var blob []byte
		var err error
		switch {
		case m.Schema == declcfg.SchemaPackage:
			if m.Name != ps.Name {
				continue
			}
			blob = m.Blob
			if ps.DefaultChannelWas != "" {
				blob, err = setMember(m.Blob, "defaultChannel", ps.DefaultChannel)
			}
		case m.Package != ps.Name:
			continue
		case m.Schema == declcfg.SchemaChannel:
			keep := entries[m.Name]
			if keep == nil {
				continue
			}
			blob, err = filterList(m.Blob, "entries", func(e json.RawMessage) (bool, error) {
				name, err := member(e, "name")
				return keep[name], err
			})
		case m.Schema == declcfg.SchemaBundle:
			if !bundles[m.Name] {
				continue
			}
			blob = m.Blob
		case m.Schema == declcfg.SchemaDeprecations:
			blob, err = filterList(m.Blob, "entries", func(e json.RawMessage) (bool, error) {
				var d struct {
					Reference struct {
						Schema string `json:"schema"`
						Name   string `json:"name"`
					} `json:"reference"`
				}
				if err := json.Unmarshal(e, &d); err != nil {
					return false, err
				}
				switch d.Reference.Schema {
				case declcfg.SchemaChannel:
					return entries[d.Reference.Name] != nil, nil
				case declcfg.SchemaBundle:
					return bundles[d.Reference.Name], nil
				}
				return true, nil
			})
			if err == nil && blob == nil {
				continue // nothing left
			}
		default:
			blob = m.Blob
		}
		if err != nil {
			return nil, fmt.Errorf("%s blob %q: %w", m.Schema, m.Name, err)
		}
		out.Write(blob)
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}

// encode re-encodes v as operator-registry's blobs are: compact, keys
// sorted, no HTML escaping.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// key returns the key of obj matching name as operator-registry matches
// the members of its types: case-insensitively ("" when none does).
func key(obj map[string]json.RawMessage, name string) string {
	if _, ok := obj[name]; ok {
		return name
	}
	for k := range obj {
		if strings.EqualFold(k, name) {
			return k
		}
	}
	return ""
}

func member(blob json.RawMessage, name string) (string, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(blob, &obj); err != nil {
		return "", err
	}
	k := key(obj, name)
	if k == "" {
		return "", nil
	}
	var s string
	err := json.Unmarshal(obj[k], &s)
	return s, err
}

func setMember(blob json.RawMessage, name, value string) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(blob, &obj); err != nil {
		return nil, err
	}
	k := key(obj, name)
	if k == "" {
		k = name
	}
	v, err := encode(value)
	if err != nil {
		return nil, err
	}
	obj[k] = v
	return encode(obj)
}

// filterList returns blob with the list member name holding only the
// elements keep accepts, each as it was; nil when none is left.
func filterList(blob json.RawMessage, name string, keep func(json.RawMessage) (bool, error)) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(blob, &obj); err != nil {
		return nil, err
	}
	k := key(obj, name)
	if k == "" {
		return nil, fmt.Errorf("no %s", name)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(obj[k], &list); err != nil {
		return nil, err
	}
	kept := make([]json.RawMessage, 0, len(list))
	for _, e := range list {
		ok, err := keep(e)
		if err != nil {
			return nil, err
		}
		if ok {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		return nil, nil
	}
	if len(kept) == len(list) {
		return blob, nil
	}
	v, err := encode(kept)
	if err != nil {
		return nil, err
	}
	obj[k] = v
	return encode(obj)
}

// LoadFiles loads a filtered catalog's files as declcfg loads a
// directory (files by path).
func LoadFiles(ctx context.Context, files []File) (*declcfg.DeclarativeConfig, error) {
	out := &declcfg.DeclarativeConfig{}
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	for _, f := range sorted {
		cfg, err := declcfg.LoadReader(ctx, bytes.NewReader(f.Data), f.Path)
		if err != nil {
			return nil, err
		}
		out.Packages = append(out.Packages, cfg.Packages...)
		out.Channels = append(out.Channels, cfg.Channels...)
		out.Bundles = append(out.Bundles, cfg.Bundles...)
		out.Deprecations = append(out.Deprecations, cfg.Deprecations...)
		out.Others = append(out.Others, cfg.Others...)
		out.Metas = append(out.Metas, cfg.Metas...)
	}
	return out, nil
}

// Filtered converts the filtered catalog of cs, as FBC writes it (the
// files loaded back).
func (cs *CatalogSet) Filtered(ctx context.Context) (*model.Catalog, error) {
	files, err := cs.FBC()
	if err != nil {
		return nil, err
	}
	cfg, err := LoadFiles(ctx, files)
	if err != nil {
		return nil, err
	}
	return model.Convert(cfg), nil
}

// Config is the filtered catalog of cs as typed blobs, selected from the
// catalog's as FBC selects them (without encoding and decoding them):
// what model.Convert reads.
func (cs *CatalogSet) Config() *declcfg.DeclarativeConfig {
	out := &declcfg.DeclarativeConfig{}
	src := cs.cat.Config
	for _, ps := range cs.Packages {
		entries, bundles := ps.kept()
		for _, p := range src.Packages {
			if p.Name == ps.Name {
				p.DefaultChannel = ps.DefaultChannel
				out.Packages = append(out.Packages, p)
			}
		}
		for _, ch := range src.Channels {
			if keep := entries[ch.Name]; ch.Package == ps.Name && keep != nil {
				ch.Entries = slices.DeleteFunc(slices.Clone(ch.Entries), func(e declcfg.ChannelEntry) bool { return !keep[e.Name] })
				out.Channels = append(out.Channels, ch)
			}
		}
		for _, b := range src.Bundles {
			if b.Package == ps.Name && bundles[b.Name] {
				out.Bundles = append(out.Bundles, b)
			}
		}
		for _, d := range src.Deprecations {
			if d.Package != ps.Name {
				continue
			}
			d.Entries = slices.DeleteFunc(slices.Clone(d.Entries), func(e declcfg.DeprecationEntry) bool {
				switch e.Reference.Schema {
				case declcfg.SchemaChannel:
					return entries[e.Reference.Name] == nil
				case declcfg.SchemaBundle:
					return !bundles[e.Reference.Name]
				}
				return false
			})
			if len(d.Entries) > 0 {
				out.Deprecations = append(out.Deprecations, d)
			}
		}
	}
	return out
}

// verify checks every filtered catalog: upgraph's validation (opm
// validate's verdict) accepts it, and each install with a path takes
// the same hops in it, up to its target.
func (p *Plan) verify() error {
	filtered := map[string]*model.Catalog{}
	for _, cs := range p.Catalogs {
		m, err := cs.Filtered(context.Background())
		cs.filtered = m
		if err != nil {
			return fmt.Errorf("catalog %s: the filtered catalog: %w (a bug)", cs.Name, err)
		}
		if !m.Valid() {
			var msgs []string
			for _, pr := range m.Problems {
				if pr.Severity == model.Error {
					msgs = append(msgs, pr.Message)
				}
			}
			return fmt.Errorf("catalog %s: the filtered catalog is invalid (a bug): %s", cs.Name, strings.Join(msgs, "; "))
		}
		filtered[cs.Name] = m
	}
	for _, in := range p.Installs {
		if !in.Found {
			continue
		}
		if err := Replay(filtered[in.Catalog], in, p.OLM); err != nil {
			return fmt.Errorf("%s: %w (a bug)", in.Install, err)
		}
		if err := ReplayDependencies(filtered, in); err != nil {
			return fmt.Errorf("%s: %w (a bug)", in.Install, err)
		}
	}
	return nil
}

// Replay checks that the runtime takes install's hops in catalog m, as
// planned: up to the target, the same bundles; at the target, when the
// channel keeps nothing above it, no further hop.
func Replay(m *model.Catalog, in InstallPlan, olm upgrade.Runtime) error {
	if len(in.Path) == 0 {
		return nil // already there: nothing to mirror, nothing to replay
	}
	p := m.Package(in.Package)
	if p == nil {
		return fmt.Errorf("the filtered catalog has no package %s", in.Package)
	}
	ch := p.Channel(in.Channel)
	if ch == nil {
		return fmt.Errorf("the filtered catalog has no channel %s", in.Channel)
	}
	// The installed bundle need not be in the filtered catalog: the
	// runtime knows it from the cluster (name and version).
	hops, err := walkFrom(p, ch, in.From, olm)
	if err != nil {
		return err
	}
	n := min(len(hops), len(in.Path))
	if !slices.Equal(hops[:n], in.Path[:n]) || len(hops) < len(in.Path) {
		return fmt.Errorf("%s takes %v in the filtered catalog, %v in the whole one", olm.Title(), hops, in.Path)
	}
	if head, err := ch.Head(); err == nil && head.Name == in.Path[len(in.Path)-1] && len(hops) != len(in.Path) {
		return fmt.Errorf("%s goes on past the head of the filtered channel: %v", olm.Title(), hops)
	}
	return nil
}

// walkFrom is the runtime's hops from an installed bundle known by name
// and version (it may be absent from the catalog).
func walkFrom(p *model.Package, ch *model.Channel, from upgrade.Ref, olm upgrade.Runtime) ([]string, error) {
	var out []string
	seen := map[string]bool{from.Name: true}
	cur := from
	for range len(p.Bundles) + 1 {
		var next string
		if olm == upgrade.V1 {
			version := cur.Version
			inst := model.Installed{Name: cur.Name, Version: version}
			if b := p.Bundle(cur.Name); b != nil {
				var err error
				if inst, err = b.InstalledV1(false); err != nil {
					return nil, err
				}
			}
			res := p.ResolveV1(model.V1Query{Installed: &inst, Channels: []string{ch.Name}})
			if res.Error != "" || res.Pick == nil || res.Pick.Installed {
				break
			}
			next = res.Pick.Name
		} else {
			inst := model.Installed{Name: cur.Name, Version: cur.Version}
			h, err := p.V0Next(model.V0Query{Channel: ch.Name, Installed: &inst})
			if err != nil {
				return nil, err
			}
			if h == nil {
				break
			}
			next = h.Name
		}
		if seen[next] {
			return nil, fmt.Errorf("%s loops at %s", olm.Title(), next)
		}
		seen[next] = true
		out = append(out, next)
		b := p.Bundle(next)
		cur = upgrade.Ref{Name: b.Name, Version: b.PackageProperty.Version, Release: b.PackageProperty.Release}
	}
	return out, nil
}
