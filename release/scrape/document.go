package scrape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/upgraph/upgraph/tree/version"
)

// MetadataPath is where a release image carries its release-metadata.
const MetadataPath = "release-manifests/release-metadata"

// metadataKind is the only document kind upstream accepts.
const metadataKind = "cincinnati-metadata-v0"

// maxMetadataSize bounds what is read of one release-metadata file; real
// ones are a few hundred bytes.
const maxMetadataSize = 1 << 20

// ReleaseMetadata is the release-metadata document of a release image
// (spec §2.7).
type ReleaseMetadata struct {
	Kind     string            `json:"kind"`
	Version  string            `json:"version"`
	Previous []string          `json:"previous,omitempty"`
	Next     []string          `json:"next,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// parseMetadata validates a document as upstream does: any problem makes
// the layer count as not carrying release-metadata.
func parseMetadata(data []byte) (ReleaseMetadata, error) {
	var doc ReleaseMetadata
	// Field by field with exact names: encoding/json would also take
	// "Version" for "version", which upstream's serde does not.
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&fields); err != nil {
		return doc, fmt.Errorf("not a release-metadata document: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return doc, fmt.Errorf("not a release-metadata document: data after the JSON object")
	}
	for name, dst := range map[string]any{"kind": &doc.Kind, "version": &doc.Version, "previous": &doc.Previous, "next": &doc.Next, "metadata": &doc.Metadata} {
		if raw, ok := fields[name]; ok {
			if err := json.Unmarshal(raw, dst); err != nil {
				return doc, fmt.Errorf("not a release-metadata document: %s: %w", name, err)
			}
		}
	}
	if doc.Kind != metadataKind {
		return doc, fmt.Errorf("kind %q, want %q", doc.Kind, metadataKind)
	}
	if _, err := version.Parse(doc.Version); err != nil {
		return doc, fmt.Errorf("version: %w", err)
	}
	for _, list := range [][]string{doc.Previous, doc.Next} {
		for _, s := range list {
			if _, err := version.Parse(s); err != nil {
				return doc, fmt.Errorf("previous/next %q: %w", s, err)
			}
		}
	}
	return doc, nil
}
