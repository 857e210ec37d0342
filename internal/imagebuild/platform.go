package imagebuild

import (
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// DefaultPlatforms are the architectures OpenShift releases are built for,
// so the image runs wherever the clusters it serves graphs to run.
var DefaultPlatforms = []v1.Platform{
	{OS: "linux", Architecture: "amd64"},
	{OS: "linux", Architecture: "arm64"},
	{OS: "linux", Architecture: "ppc64le"},
	{OS: "linux", Architecture: "s390x"},
}

// goarchVariant pins each GOARCH's instruction-set level to the go
// command's default, so a GOAMD64=v3 (or similar) in the caller's
// environment can neither change the binary's bytes nor stop it from
// running on the baseline machines of its architecture.
var goarchVariant = map[string]string{
	"amd64":   "GOAMD64=v1",
	"arm64":   "GOARM64=v8.0",
	"ppc64le": "GOPPC64=power8",
}
