// Package sign makes and checks the TUF metadata of signed trees
// (docs/signing.md), with go-tuf's metadata and trustedmetadata packages:
// key directories (Init, Rotate, OpenKeys), the metadata of a generation
// (Keys.Generation: tuf/ with the root chain, targets listing index.json
// and every file it lists with their sizes and sha256, snapshot and
// timestamp, as consistent snapshots, spec §6.2), the timestamp re-signed
// alone (Keys.Timestamp), and TUF's client workflow (spec §5) over any
// tree package tree opens (Verify), whose refusals name the threat they
// stop (Threat).
//
// The metadata is in tuf/, which index.json does not list
// (manifest.MetadataDir says why); signing adds files only.
package sign
