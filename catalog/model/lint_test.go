package model

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/blang/semver/v4"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// TestLints: each warning of spec §6 O5 fires on a catalog made for it,
// and the catalog stays opm-valid where upstream accepts it.
func TestLints(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   *declcfg.DeclarativeConfig
		rule  string
		msg   string
		valid bool // opm accepts the catalog
	}{
		{"version only tolerant", catalogOf("p", "a", map[string]string{"p.v1": "v1.2"}, newTestChannel("p", "a", ce("p.v1", ""))),
			RuleVersionTolerant, `OLM v0 reads it as 1.2.0`, false},
		{"invalid skipRange silently ignored", catalogOf("p", "a", map[string]string{"p.v1": "1.0.0", "p.v2": "2.0.0"},
			newTestChannel("p", "a", ce("p.v1", ""), cer("p.v2", "p.v1", "< 2.0"))),
			RuleSkipRangeIgnored, `silently ignore the invalid skipRange "< 2.0"`, false},
		{"skipRange above the bundle's version (operator-registry#2090)", catalogOf("p", "a", map[string]string{"p.v1": "1.0.0", "p.v2": "1.2.0"},
			newTestChannel("p", "a", ce("p.v1", ""), cer("p.v2", "p.v1", ">=1.0.0 <1.3.0"))),
			RuleSkipRangeAbove, `admits versions above its own (<1.3.0)`, true},
		{"unbounded skipRange", catalogOf("p", "a", map[string]string{"p.v1": "1.0.0", "p.v2": "1.2.0"},
			newTestChannel("p", "a", ce("p.v1", ""), cer("p.v2", "p.v1", ">=1.0.0"))),
			RuleSkipRangeAbove, `(unbounded)`, true},
		{"skipped bundle unreachable by OLM v0", catalogOf("p", "a", map[string]string{"p.v1": "1.0.0", "p.v2": "2.0.0", "p.v3": "3.0.0"},
			newTestChannel("p", "a", ce("p.v1", ""), ce("p.v2", "p.v1"), ce("p.v3", "p.v1", "p.v2"))),
			RuleV0Unreachable, `never updates a cluster to bundle "p.v2" (skipped by "p.v3" in channel "a")`, true},
		{"install stuck under OLM v0 (operator-registry#1744)", catalogOf("p", "a", map[string]string{"p.v1": "1.0.0", "p.v2": "2.0.0", "p.v3": "3.0.0"},
			newTestChannel("p", "a", ce("p.v1", ""), ce("p.v2", "p.v1", "p.v1"), ce("p.v3", "p.v2", "p.v2"))),
			RuleV0Stuck, `installs on 1 entries never reach the head "p.v3" by one-hop updates: p.v1 (stops at p.v1)`, true},
		{"deprecated head", func() *declcfg.DeclarativeConfig {
			cfg := catalogOf("p", "a", map[string]string{"p.v1": "1.0.0"}, newTestChannel("p", "a", ce("p.v1", "")))
			cfg.Deprecations = []declcfg.Deprecation{{Schema: declcfg.SchemaDeprecations, Package: "p", Entries: []declcfg.DeprecationEntry{
				{Reference: declcfg.PackageScopedReference{Schema: declcfg.SchemaBundle, Name: "p.v1"}, Message: "old"}}}}
			return cfg
		}(), RuleDeprecatedHead, `the head "p.v1" of channel "a" is deprecated ("old")`, true},
		{"invalid maxOpenShiftVersion", func() *declcfg.DeclarativeConfig {
			cfg := catalogOf("p", "a", map[string]string{"p.v1": "1.0.0"}, newTestChannel("p", "a", ce("p.v1", "")))
			cfg.Bundles[0].Properties = append(cfg.Bundles[0].Properties, declcfg.Property{Type: propMaxOpenShift, Value: json.RawMessage(`"4.8.1"`)})
			return cfg
		}(), RuleMaxOpenShift, `must specify only <major>.<minor> version, got invalid value 4.8.1`, true},
		{"maxOpenShiftVersion as a number (YAML 4.20)", func() *declcfg.DeclarativeConfig {
			cfg := catalogOf("p", "a", map[string]string{"p.v1": "1.0.0"}, newTestChannel("p", "a", ce("p.v1", "")))
			cfg.Bundles[0].Properties = append(cfg.Bundles[0].Properties, declcfg.Property{Type: propMaxOpenShift, Value: json.RawMessage(`4.2`)})
			return cfg
		}(), RuleMaxOpenShiftNum, `bundle "p.v1": olm.maxOpenShiftVersion is the number 4.2, not a string: OLM reads 4.2`, true},
		{"downgrade edge", catalogOf("p", "a", map[string]string{"p.v0.1.2": "0.1.2", "p.v0.0.5": "0.0.5"},
			newTestChannel("p", "a", ce("p.v0.1.2", ""), ce("p.v0.0.5", "p.v0.1.2"))),
			RuleDowngradeEdge, `OLM v0 moves a cluster from 0.1.2 down to 0.0.5; OLM v1 keeps 0.1.2`, true},
		{"legacy olm.deprecated", func() *declcfg.DeclarativeConfig {
			cfg := catalogOf("p", "a", map[string]string{"p.v1": "1.0.0"}, newTestChannel("p", "a", ce("p.v1", "")))
			cfg.Bundles[0].Properties = append(cfg.Bundles[0].Properties, declcfg.Property{Type: propLegacyDeprecate, Value: json.RawMessage(`{}`)})
			return cfg
		}(), RuleLegacyDeprecated, `OLM v0 never installs it`, true},
		{"dependency refused by OLM v1", func() *declcfg.DeclarativeConfig {
			cfg := catalogOf("p", "a", map[string]string{"p.v1": "1.0.0", "p.v2": "2.0.0"}, newTestChannel("p", "a", ce("p.v1", ""), ce("p.v2", "p.v1")))
			cfg.Bundles[1].Properties = append(cfg.Bundles[1].Properties,
				declcfg.Property{Type: propGVKRequired, Value: json.RawMessage(`{"group":"g","kind":"K","version":"v1"}`)},
				declcfg.Property{Type: propPackageRequired, Value: json.RawMessage(`{"packageName":"q","versionRange":">=1.0.0"}`)})
			return cfg
		}(), RuleV1Refused, `OLM v1 never installs or updates to bundle "p.v2" (in channel "a"): it declares olm.gvk.required`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Convert(tc.cfg)
			requireProblem(t, c, tc.rule, tc.msg)
			if c.Valid() != tc.valid {
				t.Errorf("Valid() = %v, want %v: %q", c.Valid(), tc.valid, errorsOf(c))
			}
		})
	}
}

// TestLintsQuiet: a plain valid catalog has no problem at all.
func TestLintsQuiet(t *testing.T) {
	c := Convert(catalogOf("p", "a", map[string]string{"p.v1": "1.0.0", "p.v1.1": "1.1.0", "p.v2": "2.0.0"},
		newTestChannel("p", "a", ce("p.v1", ""), ce("p.v1.1", "p.v1"), declcfg.ChannelEntry{Name: "p.v2", Replaces: "p.v1.1", SkipRange: ">=1.0.0 <2.0.0"})))
	if len(c.Problems) != 0 {
		t.Errorf("problems: %v", c.Problems)
	}
}

func TestRangeAdmitsAbove(t *testing.T) {
	v := semver.MustParse("1.2.0")
	for _, tc := range []struct {
		r     string
		above bool
		bound string
	}{
		{"<1.2.0", false, ""},
		{"<=1.2.0", false, ""},
		{">=1.0.0 <1.2.0", false, ""},
		{">=1.0.0 <1.2.1", true, "<1.2.1"},
		{">= 1.0.0 < 1.3.0", true, "<1.3.0"},
		{"<1.0.0 || >=1.1.0 <=1.4.0", true, "<=1.4.0"},
		{">1.0.0", true, "unbounded"},
		{"1.1.0", false, ""},
		{"<1.3.0 >2.0.0", false, ""}, // empty
		{"1.x", false, ""},           // wildcards not judged
	} {
		above, bound := rangeAdmitsAbove(tc.r, v)
		if above != tc.above || bound != tc.bound {
			t.Errorf("%q: %v %q, want %v %q", tc.r, above, bound, tc.above, tc.bound)
		}
	}
}

// TestProblemFormat: text and JSON forms as upgraph validate prints them.
func TestProblemFormat(t *testing.T) {
	cfg := catalogOf("p", "a", map[string]string{"p.v1": "1.0.0", "p.v2": "2.0.0"},
		newTestChannel("p", "a", ce("p.v1", ""), ce("p.v2", "")))
	cfg.Channels[0].Pos = declcfg.Position{File: "p/catalog.yaml", Line: 7}
	c := Convert(cfg)
	var buf bytes.Buffer
	if err := c.Problems.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	const want = `p/catalog.yaml:7: error: invalid channel "a" of package "p": multiple channel heads found in graph: p.v1, p.v2 [F20]` + "\n"
	if buf.String() != want {
		t.Errorf("text = %q, want %q", buf.String(), want)
	}
	buf.Reset()
	if err := c.Problems.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0]["file"] != "p/catalog.yaml" || got[0]["line"] != float64(7) || got[0]["rule"] != "F20" ||
		got[0]["severity"] != "error" || got[0]["package"] != "p" || got[0]["channel"] != "a" {
		t.Errorf("JSON = %s", buf.String())
	}
	buf.Reset()
	if err := Problems(nil).WriteJSON(&buf); err != nil || strings.TrimSpace(buf.String()) != "[]" {
		t.Errorf("empty JSON = %q", buf.String())
	}
	for _, r := range Rules {
		if (r.Severity == Error) != strings.HasPrefix(r.ID, "F") {
			t.Errorf("rule %s: severity %s", r.ID, r.Severity)
		}
	}
}

// TestValidOnly: "publish the valid packages only".
func TestValidOnly(t *testing.T) {
	good := catalogOf("good", "a", map[string]string{"good.v1": "1.0.0"}, newTestChannel("good", "a", ce("good.v1", "")))
	bad := catalogOf("bad", "a", map[string]string{"bad.v1": "1.0.0", "bad.v2": "2.0.0"}, newTestChannel("bad", "a", ce("bad.v1", ""), ce("bad.v2", "")))
	cfg := &declcfg.DeclarativeConfig{
		Packages: append(good.Packages, bad.Packages...),
		Channels: append(append(good.Channels, bad.Channels...), newTestChannel("ghost", "x", ce("ghost.v1", ""))),
		Bundles:  append(good.Bundles, bad.Bundles...),
	}
	c := Convert(cfg)
	if c.Valid() {
		t.Fatal("catalog valid")
	}
	v, skipped := c.ValidOnly()
	if len(v.Packages) != 1 || v.Packages[0].Name != "good" || v.Package("bad") != nil || !v.Valid() {
		t.Errorf("valid part: %+v", v.Packages)
	}
	if len(skipped) != 2 || skipped[0].Package != "bad" || skipped[1].Package != "ghost" ||
		skipped[0].Problems[0].Rule != RuleHead || skipped[1].Problems[0].Rule != RuleChannel {
		t.Errorf("skipped: %+v", skipped)
	}
	if !c.Package("good").Valid() || c.Package("bad").Valid() {
		t.Error("per package verdicts")
	}
}
