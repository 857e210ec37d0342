package model

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Image pull specs are checked as operator-registry's
// validateImagePullSpec does, with reference.ParseNormalizedNamed from
// go.podman.io/image/v5/docker/reference (a copy of docker's distribution
// reference grammar) and go-digest's validation of the digest. The
// grammar below is that package's, rebuilt from its pieces.
const (
	refAlphaNumeric    = `[a-z0-9]+`
	refSeparator       = `(?:[._]|__|[-]*)`
	refDomainComponent = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	refTag             = `[\w][\w.-]{0,127}`
	refDigest          = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}`
	refNameComponent   = refAlphaNumeric + `(?:(?:` + refSeparator + refAlphaNumeric + `)+)?`
	refDomain          = refDomainComponent + `(?:(?:\.` + refDomainComponent + `)+)?(?::[0-9]+)?`
	refName            = `(?:` + refDomain + `/)?` + refNameComponent + `(?:(?:/` + refNameComponent + `)+)?`
	refReference       = `^(` + refName + `)(?::(` + refTag + `))?(?:@(` + refDigest + `))?$`
	refNameTotalMax    = 255
)

var (
	referenceRE          = regexp.MustCompile(refReference)
	anchoredIdentifierRE = regexp.MustCompile(`^[a-f0-9]{64}$`)
	digestAnchoredRE     = regexp.MustCompile(`^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$`)
	digestHexRE          = map[string]*regexp.Regexp{
		"sha256": regexp.MustCompile(`^[a-f0-9]{64}$`),
		"sha384": regexp.MustCompile(`^[a-f0-9]{96}$`),
		"sha512": regexp.MustCompile(`^[a-f0-9]{128}$`),
	}
	digestHexLen = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}
)

// parseNormalizedNamed returns reference.ParseNormalizedNamed's error for
// s, nil when it parses.
func parseNormalizedNamed(s string) error {
	if anchoredIdentifierRE.MatchString(s) {
		return fmt.Errorf("invalid repository name (%s), cannot specify 64-byte hexadecimal strings", s)
	}
	domain, remainder := splitDockerDomain(s)
	remoteName := remainder
	if i := strings.IndexByte(remainder, ':'); i > -1 {
		remoteName = remainder[:i]
	}
	if strings.ToLower(remoteName) != remoteName {
		return errors.New("invalid reference format: repository name must be lowercase")
	}
	full := domain + "/" + remainder
	m := referenceRE.FindStringSubmatch(full)
	if m == nil {
		if referenceRE.MatchString(strings.ToLower(full)) {
			return errors.New("repository name must be lowercase")
		}
		return errors.New("invalid reference format")
	}
	if len(m[1]) > refNameTotalMax {
		return fmt.Errorf("repository name must not be more than %d characters", refNameTotalMax)
	}
	if m[3] != "" {
		return validateDigest(m[3])
	}
	return nil
}

// splitDockerDomain is the docker reference package's: a first component
// without '.' or ':' that is not "localhost" is a path on docker.io;
// docker.io paths of one component get "library/".
func splitDockerDomain(name string) (domain, remainder string) {
	i := strings.IndexByte(name, '/')
	if i == -1 || (!strings.ContainsAny(name[:i], ".:") && name[:i] != "localhost") {
		domain, remainder = "docker.io", name
	} else {
		domain, remainder = name[:i], name[i+1:]
	}
	if domain == "index.docker.io" {
		domain = "docker.io"
	}
	if domain == "docker.io" && !strings.ContainsRune(remainder, '/') {
		remainder = "library/" + remainder
	}
	return domain, remainder
}

// validateDigest is go-digest's Digest.Validate with the algorithms a Go
// binary has by default (sha256, sha384, sha512).
func validateDigest(s string) error {
	i := strings.IndexByte(s, ':')
	if i <= 0 || i+1 == len(s) {
		return errors.New("invalid checksum digest format")
	}
	alg, enc := s[:i], s[i+1:]
	re, ok := digestHexRE[alg]
	if !ok {
		if !digestAnchoredRE.MatchString(s) {
			return errors.New("invalid checksum digest format")
		}
		return errors.New("unsupported digest algorithm")
	}
	if len(enc) != digestHexLen[alg] {
		return errors.New("invalid checksum digest length")
	}
	if !re.MatchString(enc) {
		return errors.New("invalid checksum digest format")
	}
	return nil
}
