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
	if plainReference(full) {
		return nil
	}
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

// plainReference reports whether full (a domain, '/', a path) matches
// refReference with a name of at most refNameTotalMax bytes and, if it
// has a digest, a valid sha256 one: without the regular expressions'
// backtracking, for the usual references. False means "not sure": the
// regular expressions decide, and name the error.
func plainReference(full string) bool {
	name, digest, hasDigest := strings.Cut(full, "@")
	if hasDigest {
		alg, hex, ok := strings.Cut(digest, ":")
		if !ok || alg != "sha256" || len(hex) != 64 || !isLowerHex(hex) {
			return false
		}
	}
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		if !plainTag(name[i+1:]) {
			return false
		}
		name = name[:i]
	}
	if len(name) > refNameTotalMax {
		return false
	}
	first, path, ok := strings.Cut(name, "/")
	if !ok || !plainDomain(first) && !plainNameComponent(first) {
		return false
	}
	for c := range strings.SplitSeq(path, "/") {
		if !plainNameComponent(c) {
			return false
		}
	}
	return true
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}

// plainTag: refTag.
func plainTag(s string) bool {
	if len(s) == 0 || len(s) > 128 || !isWordByte(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isWordByte(c) && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

func isLowerAlnum(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' }

// plainNameComponent: refNameComponent, runs of [a-z0-9] separated by
// ".", "_", "__" or dashes.
func plainNameComponent(s string) bool {
	if len(s) == 0 || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s); {
		if isLowerAlnum(s[i]) {
			i++
			continue
		}
		j := i
		switch s[i] {
		case '.':
			j++
		case '_':
			j++
			if s[j] == '_' {
				j++
			}
		case '-':
			for s[j] == '-' {
				j++
			}
		default:
			return false
		}
		if !isLowerAlnum(s[j]) { // the last byte is one: j < len(s)
			return false
		}
		i = j
	}
	return true
}

// plainDomain: refDomain, dot-separated components of letters, digits
// and inner dashes, then an optional port.
func plainDomain(s string) bool {
	host, port, hasPort := strings.Cut(s, ":")
	if hasPort {
		if len(port) == 0 {
			return false
		}
		for i := 0; i < len(port); i++ {
			if !isDigit(port[i]) {
				return false
			}
		}
	}
	for c := range strings.SplitSeq(host, ".") {
		if len(c) == 0 || c[0] == '-' || c[len(c)-1] == '-' {
			return false
		}
		for i := 0; i < len(c); i++ {
			if ch := c[i]; !isWordByte(ch) && ch != '-' || ch == '_' {
				return false
			}
		}
	}
	return true
}
