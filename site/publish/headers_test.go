package publish_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/site/publish"
)

func TestDefaultRules(t *testing.T) {
	rules, err := publish.NewRules(nil, true)
	if err != nil {
		t.Fatal(err)
	}
	json, graphCC := "application/json", site.DefaultCacheControl
	tests := []struct {
		path string
		want publish.Headers
	}{
		{"index.json", publish.Headers{ContentType: json, CacheControl: "no-cache"}},
		{"graph/amd64/fast-4.16.json", publish.Headers{ContentType: json, CacheControl: graphCC}},
		{"graph/amd64/fast-4.16/4.16.0.json", publish.Headers{ContentType: json, CacheControl: graphCC}},
		{"graph/amd64/index/index.json", publish.Headers{ContentType: json, CacheControl: graphCC}}, // a channel named "index"
		{"graph/empty.json", publish.Headers{ContentType: json, CacheControl: graphCC}},
		{"graph/amd64/fast-4.16.json.gz", publish.Headers{ContentType: json, CacheControl: graphCC, ContentEncoding: "gzip"}},
		{"signatures/sha256=" + strings.Repeat("a", 64) + "/signature-1",
			publish.Headers{ContentType: "application/octet-stream", CacheControl: "public, max-age=86400"}},
		{"schema/graph.schema.json", publish.Headers{ContentType: json, CacheControl: graphCC}},
		{"other/x.bin", publish.Headers{CacheControl: graphCC}},
	}
	for _, tt := range tests {
		if got := rules.Resolve(tt.path); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.path, got, tt.want)
		}
	}
}

func TestLoadRules(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		path    string
		want    publish.Headers
		wantErr string
	}{
		{name: "override one header", file: "rules:\n  - pattern: graph/**\n    cacheControl: max-age=5\n",
			path: "graph/a/b.json", want: publish.Headers{ContentType: "application/json", CacheControl: "max-age=5"}},
		{name: "json", file: `{"rules":[{"pattern":"*.json","contentType":"text/plain"}]}`,
			path: "graph/a/b.json", want: publish.Headers{ContentType: "text/plain", CacheControl: site.DefaultCacheControl}},
		{name: "no defaults", file: "defaults: false\nrules:\n  - pattern: '**'\n    cacheControl: no-store\n",
			path: "index.json", want: publish.Headers{CacheControl: "no-store"}},
		{name: "double star spans zero directories", file: "rules:\n  - pattern: graph/**/4.16.0.json\n    cacheControl: x\n",
			path: "graph/4.16.0.json", want: publish.Headers{ContentType: "application/json", CacheControl: "x"}},
		{name: "single star stays in a segment", file: "rules:\n  - pattern: graph/*.json\n    cacheControl: x\n",
			path: "graph/a/b.json", want: publish.Headers{ContentType: "application/json", CacheControl: site.DefaultCacheControl}},
		{name: "question mark", file: "rules:\n  - pattern: /graph/?/b.json\n    cacheControl: x\n",
			path: "graph/a/b.json", want: publish.Headers{ContentType: "application/json", CacheControl: "x"}},
		{name: "dots are literal", file: "rules:\n  - pattern: '*.json'\n    cacheControl: x\n",
			path: "graph/ajson", want: publish.Headers{CacheControl: site.DefaultCacheControl}},
		{name: "unknown field", file: "rules:\n  - pattern: '*'\n    cache-control: x\n", wantErr: "field cache-control not found"},
		{name: "empty pattern", file: "rules:\n  - cacheControl: x\n", wantErr: "rule 1 (\"\"): empty pattern"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "headers.yaml")
			if err := os.WriteFile(f, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			rules, err := publish.LoadRules(f)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), f) {
					t.Fatalf("error %v, want one naming %s and saying %q", err, f, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := rules.Resolve(tt.path); got != tt.want {
				t.Errorf("%s: %+v, want %+v", tt.path, got, tt.want)
			}
		})
	}
}
