package manifest

import (
	"regexp"
	"strings"
)

// MetadataDir holds a signed tree's TUF metadata (docs/signing.md): the
// root chain N.root.json, N.targets.json, N.snapshot.json and
// timestamp.json. It is the one part of a tree index.json does not list,
// deliberately: targets.json lists index.json's size and sha256, so
// index.json cannot list targets.json (each would have to contain the
// other's digest), and timestamp.json is re-signed on its own (upgraph
// sign --timestamp) without the tree changing. Every program that carries
// a tree checks and carries these names too; verifying them is package
// tree/sign's work.
const MetadataDir = "tuf"

// metadataName is a file name TUF's consistent snapshots (spec §6.2) give
// a tree's metadata: versioned roles, and the unversioned timestamp.
var metadataName = regexp.MustCompile(`^(?:[1-9][0-9]{0,18}\.(?:root|targets|snapshot)|timestamp)\.json$`)

// IsMetadata reports whether name (slash-separated, relative to the tree)
// is a TUF metadata file of MetadataDir, which index.json does not list.
func IsMetadata(name string) bool {
	base, ok := strings.CutPrefix(name, MetadataDir+"/")
	return ok && IsMetadataName(base)
}

// IsMetadataName reports whether base is the name of a file of
// MetadataDir.
func IsMetadataName(base string) bool { return metadataName.MatchString(base) }
