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
// exactly v1 → v1. Beyond that, real-world lists are parsed properly
// (RFC 9110: case-insensitive types, parameters, q-values, q=0 meaning
// "not acceptable"): the acceptable offer with the highest q wins, ties
// going to the more specific range and then to application/json.
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
	best, bestQ, bestSpec := "", 0.0, -1
	for _, part := range strings.Split(header, ",") {
		mr, q, ok := parseRange(part)
		if !ok || q <= 0 {
			continue
		}
		for _, offer := range []string{MediaJSON, MediaV1} {
			spec := specificity(mr, offer)
			if spec < 0 {
				continue
			}
			if q > bestQ || (q == bestQ && spec > bestSpec) {
				best, bestQ, bestSpec = offer, q, spec
			}
		}
	}
	// An explicit q=0 for an offer rules it out even if a wildcard matched.
	if best != "" && excluded(header, best) {
		for _, alt := range []string{MediaJSON, MediaV1} {
			if alt != best && !excluded(header, alt) && acceptable(header, alt) {
				return alt
			}
		}
		return ""
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

// excluded reports whether the header names offer exactly with q=0.
func excluded(header, offer string) bool {
	for _, part := range strings.Split(header, ",") {
		if mr, q, ok := parseRange(part); ok && mr == offer && q == 0 {
			return true
		}
	}
	return false
}

func acceptable(header, offer string) bool {
	for _, part := range strings.Split(header, ",") {
		if mr, q, ok := parseRange(part); ok && q > 0 && specificity(mr, offer) >= 0 {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip.
func acceptsGzip(header string) bool {
	if header == "" {
		return false
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
