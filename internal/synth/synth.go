package synth

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io/fs"
	"strings"
)

// Kind is the document kind of every synthesised release.
const Kind = "cincinnati-metadata-v0"

// PayloadRepo is the image repository synthesised payloads point into.
const PayloadRepo = "quay.io/openshift-release-dev/ocp-release"

// Metadata keys set on synthesised releases.
const (
	MetadataURL          = "url"
	MetadataDescription  = "description"
	MetadataArchitecture = "release.openshift.io/architecture"
)

// Release is one release-metadata document (metadata:DIR input format).
// Version carries no build metadata; consumers append "+<arch>".
type Release struct {
	Kind     string            `json:"kind"`
	Version  string            `json:"version"`
	Previous []string          `json:"previous,omitempty"`
	Next     []string          `json:"next,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
	Payload  string            `json:"payload"`
	Arch     string            `json:"arch"`
}

// FromGraphData reads the channels of the graph-data tree in fsys (root =
// the graph-data dir) and returns the synthesised releases, sorted by
// (version precedence, arch).
//
// Each version is released for the architectures that existed at its minor
// (amd64 and s390x always, ppc64le from 4.3, arm64 from 4.9, multi from
// 4.11; legacy "-s390x" pre-releases for s390x only). A release's Previous
// lists, in ascending precedence, every lower version of the same minor and
// every GA (non-pre-release) version of the previous minor released for the
// same arch: the usual OpenShift shape, where clusters on a previous minor
// update from its z-streams, not from its release candidates. The previous
// minor of X.Y is the highest major.minor below it among the versions the
// channels name, whatever its major: 4.22 for 5.0, as real 5.0 release
// metadata lists 4.22 releases, and 4.11 for 4.13 when no 4.12 is named.
// Every Previous slice is freshly allocated.
func FromGraphData(fsys fs.FS) ([]Release, error) {
	vs, err := channelVersions(fsys)
	if err != nil {
		return nil, err
	}
	return synthesise(vs), nil
}

// archLine is the ascending list of versions released for one arch, with
// the index of the first version of every minor.
type archLine struct {
	versions   []string
	minorStart map[minorKey]int
}

type minorKey struct{ major, minor uint64 }

func keyOf(v version) minorKey { return minorKey{v.Major(), v.Minor()} }

// synthesise builds the releases for vs, which must be sorted by precedence
// and distinct.
func synthesise(vs []version) []Release {
	lines := make(map[string]*archLine)
	total := 0
	// prevMinor maps every major.minor of vs to the next lower one in vs,
	// across majors (5.0 → 4.22): vs is sorted, so minors come in order.
	prevMinor := make(map[minorKey]minorKey)
	for i := 1; i < len(vs); i++ {
		if a, b := keyOf(vs[i-1]), keyOf(vs[i]); a != b {
			prevMinor[b] = a
		}
	}
	for _, v := range vs {
		for _, a := range archesFor(v) {
			l := lines[a]
			if l == nil {
				l = &archLine{minorStart: make(map[minorKey]int)}
				lines[a] = l
			}
			if _, ok := l.minorStart[keyOf(v)]; !ok {
				l.minorStart[keyOf(v)] = len(l.versions)
			}
			l.versions = append(l.versions, v.str)
			total++
		}
	}

	releases := make([]Release, 0, total)
	pos := make(map[string]int, len(lines))
	for _, v := range vs {
		url := erratumURL(v)
		for _, a := range archesFor(v) {
			i := pos[a]
			pos[a]++
			releases = append(releases, newRelease(v, a, url, lines[a].previous(v, i, prevMinor)))
		}
	}
	return releases
}

// previous returns a copy of the versions preceding index i (which holds v)
// that belong to v's minor, or to the one before it (prevMinor) and are GA.
// The line holds no minor between the two, so the previous minor's
// versions, when the arch has any, run up to the first of v's minor.
func (l *archLine) previous(v version, i int, prevMinor map[minorKey]minorKey) []string {
	k := keyOf(v)
	same := l.minorStart[k]
	var out []string
	if pk, ok := prevMinor[k]; ok {
		if s, ok := l.minorStart[pk]; ok {
			for _, p := range l.versions[s:same] {
				if !strings.Contains(p, "-") {
					out = append(out, p)
				}
			}
		}
	}
	return append(out, l.versions[same:i]...)
}

// newRelease builds the document for version v on arch.
func newRelease(v version, arch, url string, previous []string) Release {
	md := map[string]string{
		MetadataURL:         url,
		MetadataDescription: "",
	}
	if arch == ArchMulti {
		md[MetadataArchitecture] = ArchMulti
	}
	digest := sha256.Sum256([]byte(v.str + "+" + arch))
	return Release{
		Kind:     Kind,
		Version:  v.str,
		Previous: previous,
		Metadata: md,
		Payload:  PayloadRepo + "@sha256:" + hex.EncodeToString(digest[:]),
		Arch:     arch,
	}
}

// erratumURL derives a plausible, deterministic errata URL from v, of the
// form https://access.redhat.com/errata/RH[BSE]A-YYYY:NNNN.
func erratumURL(v version) string {
	h := sha256.Sum256([]byte(v.str))
	year := min(2019+v.Minor(), 9999)
	number := 1000 + binary.BigEndian.Uint32(h[:4])%99000
	kind := "B"
	switch h[4] % 8 {
	case 5, 6:
		kind = "S"
	case 7:
		kind = "E"
	}
	return fmt.Sprintf("https://access.redhat.com/errata/RH%sA-%d:%d", kind, year, number)
}
