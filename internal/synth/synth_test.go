package synth

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"gopkg.in/yaml.v3"
)

func TestArches(t *testing.T) {
	all := []string{"amd64", "arm64", "multi", "ppc64le", "s390x"}
	tests := []struct {
		version string
		want    []string
	}{
		{"4.1.0", []string{"amd64", "s390x"}},
		{"4.2.36", []string{"amd64", "s390x"}},
		{"4.2.10-s390x", []string{"s390x"}},
		{"4.3.0-rc.1", []string{"amd64", "ppc64le", "s390x"}},
		{"4.8.57", []string{"amd64", "ppc64le", "s390x"}},
		{"4.9.0", []string{"amd64", "arm64", "ppc64le", "s390x"}},
		{"4.10.3", []string{"amd64", "arm64", "ppc64le", "s390x"}},
		{"4.11.0-fc.3", all},
		{"4.16.3", all},
		{"5.0.0-ec.0", all},
	}
	versions := make([]string, len(tests))
	for i, tt := range tests {
		versions[i] = tt.version
	}
	got := map[string][]string{}
	for _, r := range mustReleases(t, channelTree(map[string][]string{"c.yaml": versions})) {
		got[r.Version] = append(got[r.Version], r.Arch)
	}
	for _, tt := range tests {
		if !slices.Equal(got[tt.version], tt.want) {
			t.Errorf("%s: arches %v, want %v", tt.version, got[tt.version], tt.want)
		}
	}
}

func TestPrevious(t *testing.T) {
	fsys := channelTree(map[string][]string{
		"stable-4.9.yaml":  {"4.8.1", "4.8.0", "4.9.0", "4.9.1"},
		"fast-4.10.yaml":   {"4.9.1", "4.10.0", "4.9.0-rc.0"},
		"stable-4.8.yaml":  {"4.7.3", "4.8.0"},
		"stable-4.13.yaml": {"4.13.0", "4.13.1", "4.11.5"},
	})
	tests := []struct {
		id   string
		want []string
	}{
		{"4.7.3+amd64", nil},
		{"4.8.0+amd64", []string{"4.7.3"}},
		{"4.8.1+ppc64le", []string{"4.7.3", "4.8.0"}},
		{"4.9.0-rc.0+amd64", []string{"4.8.0", "4.8.1"}},
		{"4.9.1+amd64", []string{"4.8.0", "4.8.1", "4.9.0-rc.0", "4.9.0"}},
		// 4.8 was never released for arm64.
		{"4.9.1+arm64", []string{"4.9.0-rc.0", "4.9.0"}},
		// Only the previous minor, not 4.8 or 4.7, and only its GA releases.
		{"4.10.0+amd64", []string{"4.9.0", "4.9.1"}},
		{"4.11.5+multi", nil},
		// 4.12 is missing: the previous minor present is 4.11.
		{"4.13.0+amd64", []string{"4.11.5"}},
		{"4.13.1+multi", []string{"4.11.5", "4.13.0"}},
	}
	rs := byID(mustReleases(t, fsys))
	for _, tt := range tests {
		r, ok := rs[tt.id]
		if !ok {
			t.Errorf("%s: missing", tt.id)
			continue
		}
		if !slices.Equal(r.Previous, tt.want) {
			t.Errorf("%s: previous %v, want %v", tt.id, r.Previous, tt.want)
		}
	}
}

// TestPreviousAcrossMajors: the minor before 5.0 is 4.22, the highest
// one below it, as real 5.0 release metadata lists 4.22 releases; 5.1
// follows 5.0 and 4.22 follows 4.21 as before.
func TestPreviousAcrossMajors(t *testing.T) {
	fsys := channelTree(map[string][]string{
		"stable-4.21.yaml":    {"4.21.0", "4.21.1"},
		"candidate-4.22.yaml": {"4.21.1", "4.22.0-rc.0", "4.22.0", "4.22.1"},
		"candidate-5.0.yaml":  {"4.22.0", "4.22.1", "5.0.0-ec.0", "5.0.0-ec.1", "5.0.0"},
		"candidate-5.1.yaml":  {"5.0.0", "5.1.0-ec.0", "5.1.0"},
	})
	tests := []struct {
		id   string
		want []string
	}{
		{"4.21.0+amd64", nil},
		{"4.22.0-rc.0+amd64", []string{"4.21.0", "4.21.1"}},
		{"4.22.1+s390x", []string{"4.21.0", "4.21.1", "4.22.0-rc.0", "4.22.0"}},
		// 5.0 updates from 4.22's GA releases, not its release candidates.
		{"5.0.0-ec.0+amd64", []string{"4.22.0", "4.22.1"}},
		{"5.0.0-ec.1+multi", []string{"4.22.0", "4.22.1", "5.0.0-ec.0"}},
		{"5.0.0+arm64", []string{"4.22.0", "4.22.1", "5.0.0-ec.0", "5.0.0-ec.1"}},
		// Not 4.22: the previous minor of 5.1 is 5.0.
		{"5.1.0-ec.0+ppc64le", []string{"5.0.0"}},
		{"5.1.0+amd64", []string{"5.0.0", "5.1.0-ec.0"}},
	}
	rs := byID(mustReleases(t, fsys))
	for _, tt := range tests {
		r, ok := rs[tt.id]
		if !ok {
			t.Errorf("%s: missing", tt.id)
			continue
		}
		if !slices.Equal(r.Previous, tt.want) {
			t.Errorf("%s: previous %v, want %v", tt.id, r.Previous, tt.want)
		}
	}
}

func TestLegacyS390X(t *testing.T) {
	fsys := channelTree(map[string][]string{
		"stable-4.2.yaml": {"4.2.10", "4.2.10-s390x", "4.2.9"},
	})
	got := mustReleases(t, fsys)
	var ids []string
	for _, r := range got {
		ids = append(ids, r.Version+"+"+r.Arch)
	}
	wantIDs := []string{"4.2.9+amd64", "4.2.9+s390x", "4.2.10-s390x+s390x", "4.2.10+amd64", "4.2.10+s390x"}
	if !slices.Equal(ids, wantIDs) {
		t.Fatalf("releases %v, want %v", ids, wantIDs)
	}
	rs := byID(got)
	for id, want := range map[string][]string{
		"4.2.10-s390x+s390x": {"4.2.9"},
		"4.2.10+amd64":       {"4.2.9"},
		"4.2.10+s390x":       {"4.2.9", "4.2.10-s390x"},
	} {
		if p := rs[id].Previous; !slices.Equal(p, want) {
			t.Errorf("%s: previous %v, want %v", id, p, want)
		}
	}
}

func TestVersions(t *testing.T) {
	fsys := channelTree(map[string][]string{
		"a.yaml":  {"4.2.14+amd64", "4.2.14", "4.10.0", "4.9.0"},
		"b.yaaml": {"4.3.0-0.hotfix-2020-09-30-133631", "4.3.0"},
		"c.yml":   {"4.99.0"},
		"d.json":  {"4.98.0"},
	})
	fsys["channels/e.yaml"] = &fstest.MapFile{Data: []byte(
		"name: e\nfeeder:\n  name: f\n  filter: 4.*\ntombstones:\n- 4.97.0\nversions:\n- 4.4.0-rc.1\n")}
	fsys["channels/sub.yaml/x.yaml"] = &fstest.MapFile{Data: []byte("versions: [4.96.0]\n")}
	fsys["channels/empty.yaml"] = &fstest.MapFile{}
	fsys["blocked-edges/x.yaml"] = &fstest.MapFile{Data: []byte("to: 4.95.0\n")}

	got, err := Versions(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"4.2.14", "4.3.0-0.hotfix-2020-09-30-133631", "4.3.0", "4.4.0-rc.1", "4.9.0", "4.10.0"}
	if !slices.Equal(got, want) {
		t.Errorf("Versions = %v, want %v", got, want)
	}
}

func TestIsYAMLName(t *testing.T) {
	for name, want := range map[string]bool{
		"a.yaml": true, "a.yaaaml": true, "a.b.yaml": true,
		"a.yml": false, "a.yaml~": false, "a.YAML": false, "yaml": false, "a.json": false,
	} {
		if got := isYAMLName(name); got != want {
			t.Errorf("isYAMLName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name     string
		fsys     fstest.MapFS
		contains []string
		is       error
		as       func(error) bool
	}{
		{
			name:     "no channels dir",
			fsys:     fstest.MapFS{"version": &fstest.MapFile{Data: []byte("1.0.0\n")}},
			contains: []string{"channels"},
			is:       fs.ErrNotExist,
		},
		{
			name: "malformed yaml",
			fsys: fstest.MapFS{
				"channels/ok.yaml":  &fstest.MapFile{Data: []byte("versions: [4.1.0]\n")},
				"channels/bad.yaml": &fstest.MapFile{Data: []byte("name: bad\nversions:\n- 4.1.0\n- : : [\n")},
			},
			contains: []string{"channels/bad.yaml", "yaml: line 3"},
		},
		{
			name: "wrong type",
			fsys: fstest.MapFS{
				"channels/typed.yaml": &fstest.MapFile{Data: []byte("name: typed\nversions: 4.1.0\n")},
			},
			contains: []string{"channels/typed.yaml", "line 2"},
			as:       func(err error) bool { var te *yaml.TypeError; return errors.As(err, &te) },
		},
		{
			name: "invalid version",
			fsys: fstest.MapFS{
				"channels/v.yaml": &fstest.MapFile{Data: []byte("name: v\nversions:\n- 4.1.0\n- v4.1\n")},
			},
			contains: []string{"channels/v.yaml:4", `"v4.1"`},
		},
		{
			name: "non-scalar version",
			fsys: fstest.MapFS{
				"channels/n.yaml": &fstest.MapFile{Data: []byte("versions:\n- {a: b}\n")},
			},
			contains: []string{"channels/n.yaml:2", "scalar"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromGraphData(tt.fsys)
			if err == nil {
				t.Fatal("FromGraphData succeeded, want error")
			}
			if _, verr := Versions(tt.fsys); verr == nil || verr.Error() != err.Error() {
				t.Errorf("Versions error %v, want %v", verr, err)
			}
			for _, s := range tt.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			if tt.as != nil && !tt.as(err) {
				t.Errorf("error %v does not wrap the expected type", err)
			}
		})
	}
}

func TestReleaseFields(t *testing.T) {
	payloadRE := regexp.MustCompile(`^quay\.io/openshift-release-dev/ocp-release@sha256:[0-9a-f]{64}$`)
	urlRE := regexp.MustCompile(`^https://access\.redhat\.com/errata/RH[BSE]A-[0-9]{4}:[0-9]{3,5}$`)
	rs := mustReleases(t, channelTree(map[string][]string{
		"c.yaml": {"4.1.0", "4.2.10-s390x", "4.11.0-rc.1", "4.16.3", "4.22.0-ec.0", "5.0.0"},
	}))
	payloads := map[string]string{}
	for _, r := range rs {
		id := r.Version + "+" + r.Arch
		if r.Kind != "cincinnati-metadata-v0" || r.Next != nil || strings.Contains(r.Version, "+") {
			t.Errorf("%s: unexpected kind/next/version: %+v", id, r)
		}
		if !payloadRE.MatchString(r.Payload) {
			t.Errorf("%s: payload %q", id, r.Payload)
		}
		if other, dup := payloads[r.Payload]; dup {
			t.Errorf("%s and %s share payload %s", id, other, r.Payload)
		}
		payloads[r.Payload] = id
		if !urlRE.MatchString(r.Metadata["url"]) {
			t.Errorf("%s: url %q", id, r.Metadata["url"])
		}
		desc, ok := r.Metadata["description"]
		if !ok || desc != "" {
			t.Errorf("%s: description %q, present %v", id, desc, ok)
		}
		if arch, ok := r.Metadata["release.openshift.io/architecture"]; ok != (r.Arch == "multi") || ok && arch != "multi" {
			t.Errorf("%s: architecture metadata %q, present %v", id, arch, ok)
		}
	}
	if n := len(rs); n != 2+1+5+5+5+5 {
		t.Errorf("got %d releases", n)
	}
}

func TestDeterminism(t *testing.T) {
	fsys := channelTree(map[string][]string{
		"a.yaml": {"4.10.0", "4.9.3", "4.9.0-rc.1", "4.11.0"},
		"b.yaml": {"4.11.1", "4.10.1", "4.9.3"},
	})
	first, second := mustReleases(t, fsys), mustReleases(t, fsys)
	if !reflect.DeepEqual(first, second) {
		t.Fatal("two FromGraphData calls differ")
	}
	d1, d2 := filepath.Join(t.TempDir(), "one"), filepath.Join(t.TempDir(), "two", "nested")
	for _, d := range []string{d1, d2} {
		if err := WriteDir(d, first); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range first {
		a, errA := os.ReadFile(filepath.Join(d1, FileName(r)))
		b, errB := os.ReadFile(filepath.Join(d2, FileName(r)))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: files differ (%v, %v)", FileName(r), errA, errB)
		}
	}
}

func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "releases")
	r := Release{
		Kind:     Kind,
		Version:  "4.16.3",
		Previous: []string{"4.15.0", "4.16.2"},
		Metadata: map[string]string{"url": "https://example.com/?a=1&b=<2>", "description": ""},
		Payload:  PayloadRepo + "@sha256:00",
		Arch:     "amd64",
	}
	if err := WriteDir(dir, []Release{r}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "4.16.3+amd64.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "kind": "cincinnati-metadata-v0",
  "version": "4.16.3",
  "previous": [
    "4.15.0",
    "4.16.2"
  ],
  "metadata": {
    "description": "",
    "url": "https://example.com/?a=1&b=<2>"
  },
  "payload": "quay.io/openshift-release-dev/ocp-release@sha256:00",
  "arch": "amd64"
}
`
	if string(data) != want {
		t.Errorf("file content:\n%s\nwant:\n%s", data, want)
	}
	var back Release
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, r) {
		t.Errorf("round trip: %+v, %v", back, err)
	}

	for _, bad := range []Release{
		{Version: "../x", Arch: "amd64"},
		{Version: "4.1.0", Arch: ""},
	} {
		if err := WriteDir(dir, []Release{bad}); err == nil {
			t.Errorf("WriteDir(%+v) succeeded, want error", bad)
		}
	}
}
