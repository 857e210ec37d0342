// Package declcfg is the wire format of file-based catalogs (FBC), parsed
// in one place: the blobs of a catalog as operator-registry's
// alpha/declcfg reads them -- olm.package, olm.channel, olm.bundle,
// olm.deprecations and any other schema kept as a Meta -- each with the
// file and line it came from and its exact bytes. The semantics (heads,
// edges, validation, upgrade selection) are in catalog/model.
package declcfg

import "encoding/json"

// The schemas operator-registry knows.
const (
	SchemaPackage      = "olm.package"
	SchemaChannel      = "olm.channel"
	SchemaBundle       = "olm.bundle"
	SchemaDeprecations = "olm.deprecations"
)

// Position is where a blob starts: the file, relative to the catalog's
// root (slash-separated), and its 1-based line.
type Position struct {
	File string `json:"-"`
	Line int    `json:"-"`
}

// Meta is any blob: its schema, package and name as operator-registry
// extracts them (keys matched case-insensitively) and its bytes, compact
// JSON as catalogd serves it.
//
// Blob is exactly what operator-registry's Meta.UnmarshalJSON makes of the
// blob, whatever its source format (JSON or YAML): the value decoded into
// a map[string]any and re-encoded by a json.Encoder without HTML escaping,
// so object keys are sorted at every depth (not in document order), of
// keys equal after decoding the last wins, strings are re-escaped the
// encoding/json way and numbers are float64s printed as encoding/json
// prints them (12345678901234567890 becomes 12345678901234567000). YAML
// is first converted by sigs.k8s.io/yaml (YAML 1.1 scalars: yes, no, on,
// off, y and n are booleans). catalogd stores and serves each blob as
// these bytes followed by one newline, which Blob does not include.
type Meta struct {
	Schema  string
	Package string
	Name    string
	Blob    json.RawMessage
	Pos     Position
}

// Property is a bundle (or package, channel) property.
type Property struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// Icon is a package's icon.
type Icon struct {
	Data      []byte `json:"base64data"`
	MediaType string `json:"mediatype"`
}

type Package struct {
	Schema         string     `json:"schema"`
	Name           string     `json:"name"`
	DefaultChannel string     `json:"defaultChannel"`
	Icon           *Icon      `json:"icon,omitempty"`
	Description    string     `json:"description,omitempty"`
	Properties     []Property `json:"properties,omitempty"`
	Pos            Position   `json:"-"`
}

type Channel struct {
	Schema     string         `json:"schema"`
	Name       string         `json:"name"`
	Package    string         `json:"package"`
	Entries    []ChannelEntry `json:"entries"`
	Properties []Property     `json:"properties,omitempty"`
	Pos        Position       `json:"-"`
}

type ChannelEntry struct {
	Name      string   `json:"name"`
	Replaces  string   `json:"replaces,omitempty"`
	Skips     []string `json:"skips,omitempty"`
	SkipRange string   `json:"skipRange,omitempty"`
}

type RelatedImage struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

type Bundle struct {
	Schema        string         `json:"schema"`
	Name          string         `json:"name"`
	Package       string         `json:"package"`
	Image         string         `json:"image"`
	Properties    []Property     `json:"properties,omitempty"`
	RelatedImages []RelatedImage `json:"relatedImages,omitempty"`
	Pos           Position       `json:"-"`
}

type Deprecation struct {
	Schema  string             `json:"schema"`
	Package string             `json:"package"`
	Entries []DeprecationEntry `json:"entries"`
	Pos     Position           `json:"-"`
}

type DeprecationEntry struct {
	Reference PackageScopedReference `json:"reference"`
	Message   string                 `json:"message"`
}

// PackageScopedReference names what a deprecation entry deprecates: the
// package (Schema olm.package, no Name), a channel or a bundle.
type PackageScopedReference struct {
	Schema string `json:"schema"`
	Name   string `json:"name,omitempty"`
}

// DeclarativeConfig is a whole catalog: every blob in Metas, in load
// order, and the four known schemas decoded. Others are the Metas of
// other schemas. Load order is fs.WalkDir's (each directory's entries
// sorted by name, depth first), then order within each file; the typed
// slices keep it. The typed values' json.RawMessage fields
// (Property.Value) share their bytes with Metas' blobs.
type DeclarativeConfig struct {
	Packages     []Package
	Channels     []Channel
	Bundles      []Bundle
	Deprecations []Deprecation
	Others       []Meta
	// Metas is every blob, known schemas included, in load order.
	Metas []Meta
}
