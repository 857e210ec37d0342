package site

import (
	"strconv"
	"strings"
)

// Media types a graph is served as; the body is the same for both.
const (
	MediaJSON = "application/json"
	MediaV1   = "application/vnd.redhat.cincinnati.v1+json"
)

// negotiate picks the response media type for an Accept header, or ""
// when nothing acceptable is offered (406).
//
// Every value upstream accepts gives upstream's answer: no header → v1,
// exactly "application/json", "*/*", "*" or "application/*" → JSON,
// exactly v1 → v1. Beyond that, real-world lists are parsed as RFC 9110
// §12.5.1 says: case-insensitive types, parameters and q-values, each
// offer taking the quality of the most specific range that matches it
// (so "*/*, application/*;q=0" accepts nothing), q=0 meaning "not
// acceptable". The offer with the highest quality wins; on a tie, the one
// named by the more specific range, then the one whose range comes first.
func negotiate(header string, present bool) string {
	if !present {
		return MediaV1
	}
	switch header {
	case MediaJSON, "*/*", "*", "application/*":
		return MediaJSON
	case MediaV1:
		return MediaV1
	}
	type choice struct {
		q        float64
		spec     int // specificity of the deciding range
		position int // of the deciding range in the header
	}
	var best string
	var bestChoice choice
	for _, offer := range []string{MediaJSON, MediaV1} {
		c := choice{spec: -1}
		for i, part := range strings.Split(header, ",") {
			mr, q, ok := parseRange(part)
			if !ok {
				continue
			}
			if spec := specificity(mr, offer); spec > c.spec {
				c = choice{q: q, spec: spec, position: i}
			}
		}
		if c.spec < 0 || c.q <= 0 {
			continue
		}
		better := c.q > bestChoice.q ||
			(c.q == bestChoice.q && (c.spec > bestChoice.spec || (c.spec == bestChoice.spec && c.position < bestChoice.position)))
		if best == "" || better {
			best, bestChoice = offer, c
		}
	}
	return best
}

// parseRange reads "type/subtype;param=…;q=0.5" into its lower-case range
// and q (default 1).
func parseRange(s string) (string, float64, bool) {
	params := strings.Split(s, ";")
	mr := strings.ToLower(strings.TrimSpace(params[0]))
	if mr == "" {
		return "", 0, false
	}
	if mr == "*" { // not RFC, but upstream accepts a bare "*"
		mr = "*/*"
	}
	if !strings.Contains(mr, "/") {
		return "", 0, false
	}
	q := 1.0
	for _, p := range params[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || f < 0 || f > 1 {
			return "", 0, false
		}
		q = f
	}
	return mr, q, true
}

// specificity is how closely range mr matches offer: 2 exact, 1 type/*,
// 0 */*, -1 no match.
func specificity(mr, offer string) int {
	switch {
	case mr == offer:
		return 2
	case mr == "application/*":
		return 1
	case mr == "*/*":
		return 0
	}
	return -1
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip.
func acceptsGzip(header string) bool {
	switch header {
	case "":
		return false
	case "gzip":
		// What Go's Transport, and so every cluster, sends: answered
		// without splitting (allocating) on every request.
		return true
	}
	gzipQ, starQ := -1.0, -1.0
	for _, part := range strings.Split(header, ",") {
		params := strings.Split(part, ";")
		coding := strings.ToLower(strings.TrimSpace(params[0]))
		q := 1.0
		for _, p := range params[1:] {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		switch coding {
		case "gzip", "x-gzip":
			gzipQ = q
		case "*":
			starQ = q
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}
