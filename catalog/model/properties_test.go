package model

import (
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model/internal/property"
)

// TestScannerAgreesWithEncodingJSON: the fast shape check says "fine"
// only where encoding/json decodes into the Go type operator-registry
// uses, and parseProperties returns encoding/json's verdict either way.
func TestScannerAgreesWithEncodingJSON(t *testing.T) {
	type c struct {
		typ   string
		value string
	}
	cases := []c{
		{propGVK, `{"group":"g","kind":"K","version":"v1"}`},
		{propGVK, `{"Group":"g","KIND":"K"}`},
		{propGVK, `{"group":1}`},
		{propGVK, `{"group":null}`},
		{propGVK, `[]`},
		{propGVK, `"x"`},
		{propGVK, `{"group":"g",}`},
		{propGVK, `{"group":"\u00e9","x":{"deep":[1,2,{"a":true}]}}`},
		{propGVK, `{"gro\u0075p":1}`},
		{propGVK, ` {"group" : "g" } `},
		{propGVK, `{"group":"g"} x`},
		{propGVK, `{"group":"g\x"}`},
		{propGVKRequired, `{"kind":true}`},
		{propPackageRequired, `{"packageName":"p","versionRange":">=1.0.0"}`},
		{propPackageRequired, `{"versionRange":[">=1.0.0"]}`},
		{propBundleObject, `{"data":"eyJraW5kIjoiQ1NWIn0="}`},
		{propBundleObject, `{"data":"not base64!"}`},
		{propBundleObject, `{"data":"eyJr\naW5kIjoiQ1NWIn0="}`},
		{propBundleObject, `{"data":"eyJraW5kIjoiQ1NWIn0"}`},
		{propBundleObject, `{"data":12}`},
		{propChannel, `{"channelName":"stable"}`},
		{propCSVMetadata, `{"displayName":"x","keywords":["a","b"],"installModes":[{"type":"OwnNamespace","supported":true}],"provider":{"name":"p"}}`},
		{propCSVMetadata, `{"keywords":"a"}`},
		{propCSVMetadata, `{"installModes":[{"type":"OwnNamespace","supported":"yes"}]}`},
		{propCSVMetadata, `{"annotations":{"a":"b","c":1}}`},
		{propCSVMetadata, `{"annotations":{"a":null}}`},
		{propCSVMetadata, `{"apiServiceDefinitions":{"owned":[{"name":"n","containerPort":443}]}}`},
		{propCSVMetadata, `{"apiServiceDefinitions":{"owned":[{"name":"n","containerPort":4.5}]}}`},
		{propCSVMetadata, `{"apiServiceDefinitions":{"owned":[{"name":"n","containerPort":4294967296}]}}`},
		{propCSVMetadata, `{"crdDescriptions":{"owned":[{"name":"n","specDescriptors":[{"path":"p","x-descriptors":["a"],"value":{"any":[1]}}]}]}}`},
		{propCSVMetadata, `{"crdDescriptions":{"owned":[{"name":"n","specDescriptors":[{"path":"p","x-descriptors":[1]}]}]}}`},
		{propCSVMetadata, `{"nativeAPIs":[{"group":"","version":"v1","kind":"Pod"}],"links":[{"name":"a","url":"b"}],"maintainers":[{"name":"m","email":"e"}]}`},
		{propCSVMetadata, `{"maturity":["alpha"]}`},
		{"olm.custom", `{"anything":[1,2.5e3,-0,true,false,null,"s"]}`},
		{"olm.custom", `01`},
		{"olm.custom", `1.`},
		{"olm.custom", ``},
		{"olm.custom", `{"a":1`},
		{"olm.custom", "\"tab\there\""},
	}
	golden := map[string]func() any{
		propGVK: func() any { return new(property.GVK) }, propGVKRequired: func() any { return new(property.GVKRequired) },
		propPackageRequired: func() any { return new(property.PackageRequired) }, propBundleObject: func() any { return new(property.BundleObject) },
		propChannel: func() any { return new(property.Channel) }, propCSVMetadata: func() any { return new(property.CSVMetadata) },
		"olm.custom": func() any { return new(json.RawMessage) },
	}
	for _, tc := range cases {
		want := json.Unmarshal([]byte(tc.value), golden[tc.typ]())
		_, got := parseProperties([]declcfg.Property{{Type: tc.typ, Value: json.RawMessage(tc.value)}}, &scanner{})
		switch {
		case (want == nil) != (got == nil):
			t.Errorf("%s %s: got %v, encoding/json says %v", tc.typ, tc.value, got, want)
		case want != nil && !strings.HasSuffix(got.Error(), want.Error()):
			t.Errorf("%s %s: message %q, want one ending in %q", tc.typ, tc.value, got, want)
		}
	}
}

func TestPackagePropertyErrors(t *testing.T) {
	_, err := parseProperties([]declcfg.Property{{Type: propPackage, Value: json.RawMessage(`{"packageName":"p","version":1}`)}}, &scanner{})
	const want = `parse property[0] of type "olm.package": json: cannot unmarshal number into Go struct field Package.version of type string`
	if errString(err) != want {
		t.Errorf("error = %q, want %q", errString(err), want)
	}
	info, err := parseProperties([]declcfg.Property{{Type: propPackage, Value: json.RawMessage(`{"packageName":"p","version":"1.0.0","release":""}`)}}, &scanner{})
	if err != nil || !info.packages[0].releaseSet {
		t.Errorf("explicit empty release: %+v %v", info, err)
	}
}

func TestMaxOpenShiftVersion(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   string
		err    string
	}{
		{nil, "", ""},
		{[]string{`"4.8"`}, "4.8", ""},
		{[]string{`4.12`}, "4.12", ""},
		{[]string{`"v4.9"`}, "4.9", ""},
		{[]string{`"four"`}, "", `failed to parse "four" as semver`},
		{[]string{`"4.8.1"`}, "", "must specify only <major>.<minor> version"},
		{[]string{`""`}, "", `value cannot be "" (an empty string)`},
		{[]string{`"4.8"`, `"4.9"`}, "", `defining more than one "olm.maxOpenShiftVersion" property is not allowed`},
	} {
		var vs []json.RawMessage
		for _, v := range tc.values {
			vs = append(vs, json.RawMessage(v))
		}
		got, err := maxOpenShiftVersion(vs)
		if got != tc.want || !strings.Contains(errString(err), tc.err) || (tc.err == "") != (err == nil) {
			t.Errorf("%q: %q %v, want %q %q", tc.values, got, err, tc.want, tc.err)
		}
	}
}

// TestParseNormalizedNamed: pull specs as go.podman.io/image's
// reference.ParseNormalizedNamed and go-digest judge them.
func TestParseNormalizedNamed(t *testing.T) {
	for _, tc := range []struct {
		ref string
		err string
	}{
		{"anakin-bundle:v0.0.1", ""},
		{"quay.io/operator-framework/foo-bundle@sha256:abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234", ""},
		{"quay.io/operator-framework/foo-bundle:v0.1.0@sha256:abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234", ""},
		{"localhost:5000/a/b:c", ""},
		{"registry.redhat.io/rhel9/postgresql-15@sha384:" + strings.Repeat("ab", 48), ""},
		{"quay.io/operator-framework/foo-bundle@ssha256:abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234abcd1234", "unsupported digest algorithm"},
		{"quay.io/operator-framework/foo-bundle@md5:abcd1234abcd1234abcd1234abcd1234", "unsupported digest algorithm"},
		{"quay.io/a/b@sha256:abcd", "invalid reference format"},
		{"quay.io/a/b@sha256:" + strings.Repeat("a", 65), "invalid checksum digest length"},
		{"quay.io/a/b@sha256:" + strings.Repeat("A", 64), "invalid checksum digest format"},
		{"quay.io/A/b:1", "invalid reference format: repository name must be lowercase"},
		{"Quay.io/a/b:1", ""},
		{strings.Repeat("a", 64), "invalid repository name (" + strings.Repeat("a", 64) + "), cannot specify 64-byte hexadecimal strings"},
		{"quay.io/a/b:" + strings.Repeat("t", 129), "invalid reference format"},
		{"quay.io/a//b", "invalid reference format"},
		{"quay.io/" + strings.Repeat("a", 250), "repository name must not be more than 255 characters"},
	} {
		if got := errString(parseNormalizedNamed(tc.ref)); got != tc.err {
			t.Errorf("%s: %q, want %q", tc.ref, got, tc.err)
		}
	}
}

// TestNewRelease: model.NewRelease's rules (versionrelease_test.go's
// cases that concern parsing).
func TestNewRelease(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{"", ""}, {"1", ""}, {"alpha.1.0.0", ""}, {"0.0.1", ""},
		{"!!!", `invalid release "!!!": segment 0: Invalid character(s) found in prerelease "!!!"`},
		{"001", `invalid release "001": segment 0: Numeric PreRelease version must not contain leading zeroes "001"`},
		{"a.very.long.release.string", `invalid release "a.very.long.release.string": exceeds maximum length of 20 characters`},
		{"a..b", `invalid release "a..b": segment 1: Prerelease is empty`},
	} {
		if _, err := NewRelease(tc.in); errString(err) != tc.err {
			t.Errorf("%q: %q, want %q", tc.in, errString(err), tc.err)
		}
	}
	r1, _ := NewRelease("1")
	r2, _ := NewRelease("2")
	ra, _ := NewRelease("alpha")
	if r1.Compare(r2) >= 0 || r2.Compare(ra) >= 0 || Release(nil).Compare(r1) >= 0 || r1.Compare(nil) <= 0 {
		t.Error("release order")
	}
}

// TestSpecialWord checks the 8-byte skip against a byte loop.
func TestSpecialWord(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{'a', 'z', ' ', '"', '\\', 0, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xff, 0x5b, 0x5d}
	for range 200000 {
		var b [8]byte
		for i := range b {
			if rng.IntN(3) == 0 {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				b[i] = byte(rng.IntN(256))
			}
		}
		want := false
		for _, c := range b {
			want = want || c == '"' || c == '\\' || c < 0x20
		}
		if got := specialWord(binary.LittleEndian.Uint64(b[:])); got != want {
			t.Fatalf("%q: %v, want %v", b, got, want)
		}
	}
}

// TestPackagePropFastPath: an olm.package value the fast reading takes
// gives what encoding/json's decoding into property.Package gives; one it
// does not take is left to encoding/json.
func TestPackagePropFastPath(t *testing.T) {
	for _, tc := range []struct {
		value string
		fast  bool
	}{
		{`{"packageName":"p","version":"1.0.0"}`, true},
		{` { "packageName" : "p" , "version" : "1.0.0" , "release" : "2" } `, true},
		{`{"packageName":"p","version":"1.0.0","release":""}`, true},
		{`{"version":"1.0.0","packageName":"p","packageName":"q"}`, true},
		{`{}`, true},
		{`{"packageName":"p","version":"1.0.0","release":null}`, false},
		{`{"PackageName":"p","version":"1.0.0"}`, false},
		{`{"packageName":"p","version":"1.0.0","other":1}`, false},
		{`{"packageName":"p\u0041","version":"1.0.0"}`, false},
		{"{\"packageName\":\"p\xff\",\"version\":\"1.0.0\"}", false},
		{`{"packageName":"p","version":1}`, false},
		{`{"packageName":"p","version":"1.0.0"} x`, false},
		{`{"packageName":"p","version":"1.0.0",}`, false},
		{`{"packageName":"p" "version":"1.0.0"}`, false},
		{`{"packageName":"p","version":"1.0.0"`, false},
		{`null`, false},
	} {
		got, ok := (&scanner{}).packageProp([]byte(tc.value))
		if ok != tc.fast {
			t.Errorf("%s: fast %v, want %v", tc.value, ok, tc.fast)
		}
		if !ok {
			continue
		}
		var v property.Package
		if err := json.Unmarshal([]byte(tc.value), &v); err != nil {
			t.Fatalf("%s: taken, but encoding/json: %v", tc.value, err)
		}
		want := PackageProperty{PackageName: v.PackageName, Version: v.Version, releaseSet: v.Release != nil}
		if v.Release != nil {
			want.Release = *v.Release
		}
		if got != want {
			t.Errorf("%s: %+v, encoding/json %+v", tc.value, got, want)
		}
	}
}

// TestPlainReference: the fast check of a pull spec accepts only what
// the reference grammar's regular expressions accept (with a name of at
// most 255 bytes and a valid digest), over random strings of the bytes
// that matter, and accepts the usual forms.
func TestPlainReference(t *testing.T) {
	slow := func(full string) bool {
		m := referenceRE.FindStringSubmatch(full)
		return m != nil && len(m[1]) <= refNameTotalMax && (m[3] == "" || validateDigest(m[3]) == nil)
	}
	hex := strings.Repeat("0a1b2c3d", 8)
	for _, full := range []string{
		"docker.io/library/anakin-bundle:v0.0.1",
		"quay.io/operator-framework/foo-bundle@sha256:" + hex,
		"quay.io/operator-framework/foo-bundle:v0.1.0@sha256:" + hex,
		"localhost:5000/a/b:c",
		"registry.redhat.io/rhel9/postgresql-15@sha256:" + hex,
		"Quay.io/a__b/c.d/e--f_g:1.2-3_X",
	} {
		if !plainReference(full) || !slow(full) {
			t.Errorf("%s: plain %v, regular expressions %v; want both", full, plainReference(full), slow(full))
		}
	}
	pieces := []string{"a", "Z", "0", "_", "__", "-", "--", ".", ":", "/", "@", "sha256:" + hex, "sha256:", hex[:10], "5000", "x.io", "@sha256:" + hex, "@sha256:" + strings.ToUpper(hex)}
	r := rand.New(rand.NewPCG(1, 2))
	accepted := 0
	for range 200000 {
		var b strings.Builder
		b.WriteString([]string{"docker.io/", "quay.io/", "localhost:5000/", "a_b/", ""}[r.IntN(5)])
		for range 1 + r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		full := b.String()
		if plainReference(full) {
			accepted++
			if !slow(full) {
				t.Fatalf("%q: plain, but not for the regular expressions", full)
			}
		}
	}
	if accepted < 1000 {
		t.Errorf("only %d random references taken: the test exercises little", accepted)
	}
	long := "quay.io/" + strings.Repeat("a", 248)
	if plainReference(long) || plainReference(long+":tag") {
		t.Errorf("a name of %d bytes taken", len(long))
	}
}
