package publish

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/upgraph/upgraph/site"
)

// Rule sets response headers for the objects whose tree path matches
// Pattern. Empty fields leave the header to later rules.
//
// Patterns are globs on the path relative to the prefix: `*` and `?` stay
// within one path segment, `**` spans segments (`a/**/b` also matches
// `a/b`). As in .gitignore, a pattern without a slash matches the base name
// at any depth (`*.json`) and one with a slash is anchored at the root
// (`/index.json`, `graph/**`).
type Rule struct {
	Pattern         string `json:"pattern" yaml:"pattern"`
	ContentType     string `json:"contentType,omitempty" yaml:"contentType"`
	CacheControl    string `json:"cacheControl,omitempty" yaml:"cacheControl"`
	ContentEncoding string `json:"contentEncoding,omitempty" yaml:"contentEncoding"`
}

// Headers are what one object is stored with and later served with.
type Headers struct {
	ContentType     string
	CacheControl    string
	ContentEncoding string
}

// SignatureCacheControl matches what `upgraph serve` sends for signatures:
// a signature's key names the release digest, so its content never changes.
const SignatureCacheControl = "public, max-age=86400"

// IndexCacheControl makes caches revalidate index.json on every use: it is
// the one object whose change tells consumers a new generation is live.
const IndexCacheControl = "no-cache"

// DefaultRules reproduce `upgraph serve`'s headers. Keys other than
// signatures are rewritten in place by every generation, so graphs (and
// whatever else a tree holds) get serve's short max-age
// (site.DefaultCacheControl), not an immutable policy.
func DefaultRules() []Rule {
	return []Rule{
		{Pattern: "/index.json", CacheControl: IndexCacheControl},
		{Pattern: "/signatures/**", ContentType: "application/octet-stream", CacheControl: SignatureCacheControl},
		{Pattern: "*.json", ContentType: "application/json"},
		{Pattern: "*.jsonl", ContentType: "application/jsonl"}, // catalogd's type for catalog blobs
		// The viewer, with the types upgraph serve gives it.
		{Pattern: "*.html", ContentType: "text/html; charset=utf-8"},
		{Pattern: "*.js", ContentType: "text/javascript; charset=utf-8"},
		{Pattern: "*.css", ContentType: "text/css; charset=utf-8"},
		{Pattern: "*.txt", ContentType: "text/plain; charset=utf-8"},
		{Pattern: "*.gz", ContentEncoding: "gzip"},
		{Pattern: "**", CacheControl: site.DefaultCacheControl},
	}
}

// Rules resolve the headers of each object: for each header, the first rule
// that matches the path and sets it wins.
type Rules struct {
	rules []compiledRule
}

type compiledRule struct {
	Rule
	re *regexp.Regexp
}

// NewRules compiles rules, in order, followed by DefaultRules when
// withDefaults is set.
func NewRules(rules []Rule, withDefaults bool) (*Rules, error) {
	if withDefaults {
		rules = append(append([]Rule(nil), rules...), DefaultRules()...)
	}
	rs := &Rules{}
	for i, r := range rules {
		re, err := compileGlob(r.Pattern)
		if err != nil {
			return nil, fmt.Errorf("rule %d (%q): %w", i+1, r.Pattern, err)
		}
		rs.rules = append(rs.rules, compiledRule{Rule: r, re: re})
	}
	return rs, nil
}

// HeadersFile is the format of a --headers file (YAML, or JSON, which YAML
// reads too).
type HeadersFile struct {
	// Rules come before the built-in defaults, so they override them header
	// by header.
	Rules []Rule `yaml:"rules"`
	// Defaults false drops the built-in rules entirely (default true).
	Defaults *bool `yaml:"defaults"`
}

// LoadRules reads a headers file; unknown fields are errors, so a typo
// cannot silently leave a header unset.
func LoadRules(file string) (*Rules, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var hf HeadersFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&hf); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	rs, err := NewRules(hf.Rules, hf.Defaults == nil || *hf.Defaults)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return rs, nil
}

// Resolve returns the headers for the object at tree path p. A gzip
// variant (`x.json.gz`) that no rule gives a content type gets the one of
// the uncompressed name, so it is served as what it decodes to.
func (rs *Rules) Resolve(p string) Headers {
	h := Headers{
		ContentType:     rs.first(p, func(r Rule) string { return r.ContentType }),
		CacheControl:    rs.first(p, func(r Rule) string { return r.CacheControl }),
		ContentEncoding: rs.first(p, func(r Rule) string { return r.ContentEncoding }),
	}
	if base, ok := strings.CutSuffix(p, ".gz"); ok && h.ContentType == "" && base != "" {
		h.ContentType = rs.first(base, func(r Rule) string { return r.ContentType })
	}
	return h
}

func (rs *Rules) first(p string, field func(Rule) string) string {
	for _, r := range rs.rules {
		if v := field(r.Rule); v != "" && r.re.MatchString(p) {
			return v
		}
	}
	return ""
}

// Digest identifies the rules. It is stored on index.json, so a publish
// with other rules (a new --headers file, new defaults) re-uploads every
// object with its new headers.
func (rs *Rules) Digest() string {
	list := make([]Rule, len(rs.rules))
	for i, r := range rs.rules {
		list[i] = r.Rule
	}
	b, _ := json.Marshal(list) // plain strings: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// compileGlob turns a pattern into an anchored regexp over the whole path.
func compileGlob(pattern string) (*regexp.Regexp, error) {
	if pattern == "" || pattern == "/" {
		return nil, fmt.Errorf("empty pattern")
	}
	var b strings.Builder
	b.WriteString("^")
	glob := strings.TrimPrefix(pattern, "/")
	if !strings.Contains(pattern, "/") {
		b.WriteString("(?:.*/)?") // base name at any depth
	}
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; {
		case strings.HasPrefix(glob[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(glob[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(glob[i : i+1])) // bytes: UTF-8 passes through
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
