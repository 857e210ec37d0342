package synth

// Architectures synth knows about, in the order releases are sorted.
const (
	ArchAMD64   = "amd64"
	ArchARM64   = "arm64"
	ArchMulti   = "multi"
	ArchPPC64LE = "ppc64le"
	ArchS390X   = "s390x"
)

// archIntro is an architecture and the first 4.y minor it shipped in.
type archIntro struct {
	arch         string
	major, minor uint64
}

// archIntros lists every architecture, sorted by name, with the minor that
// introduced it.
func archIntros() []archIntro {
	return []archIntro{
		{ArchAMD64, 0, 0},
		{ArchARM64, 4, 9},
		{ArchMulti, 4, 11},
		{ArchPPC64LE, 4, 3},
		{ArchS390X, 0, 0},
	}
}

// archesFor returns the architectures v was released for, sorted by name.
// Versions whose pre-release is exactly "s390x" (legacy naming such as
// 4.2.10-s390x) only exist for s390x.
func archesFor(v version) []string {
	if v.Prerelease() == ArchS390X {
		return []string{ArchS390X}
	}
	var out []string
	for _, a := range archIntros() {
		if v.Major() > a.major || v.Major() == a.major && v.Minor() >= a.minor {
			out = append(out, a.arch)
		}
	}
	return out
}
