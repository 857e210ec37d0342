package scrape

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/upgraph/upgraph/generator/version"
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
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return doc, fmt.Errorf("not a release-metadata document: %w", err)
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
