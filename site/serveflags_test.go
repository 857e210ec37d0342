package site

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPrefixes(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
		err  string
	}{
		{nil, nil, ""},
		{[]string{"", "/api/upgrades_info/"}, []string{"", "/api/upgrades_info"}, ""},
		{[]string{"/ok", "/a//b"}, nil, `--prefix "/a//b": `},
	} {
		got, err := Prefixes(tc.in)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("Prefixes(%q): %v, want %q…", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Prefixes(%q) = %q, %v, want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestServeLimitsCheck(t *testing.T) {
	ok := ServeLimits{Poll: time.Second, CacheMB: 512, ShrinkThreshold: 0.5}
	for _, tc := range []struct {
		name string
		edit func(*ServeLimits)
		want string
	}{
		{"valid", func(*ServeLimits) {}, ""},
		{"poll zero", func(l *ServeLimits) { l.Poll = 0 }, "--poll 0s: want a positive duration"},
		{"cache negative", func(l *ServeLimits) { l.CacheMB = -1 }, "--cache-mb -1: want 0 (no cache) or a positive number of MiB"},
		{"cache huge", func(l *ServeLimits) { l.CacheMB = 1 << 62 }, "--cache-mb "},
		{"threshold above 1", func(l *ServeLimits) { l.ShrinkThreshold = 1.5 }, "--shrink-threshold 1.5: want a fraction from 0 to 1"},
	} {
		l := ok
		tc.edit(&l)
		err := l.Check()
		if (err == nil) != (tc.want == "") || err != nil && !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: Check() = %v, want %q", tc.name, err, tc.want)
		}
	}
}
