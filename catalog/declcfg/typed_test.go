package declcfg

import (
	"encoding/json"
	"reflect"
	"testing"
)

// typedSeeds are blobs that exercise encoding/json's corner cases for the
// four known schemas.
var typedSeeds = []string{
	`{"schema":"olm.package","name":"p","defaultChannel":"c","icon":{"base64data":"aGk=","mediatype":"image/png"},"description":"d","properties":[{"type":"t","value":{"a":1}}]}`,
	`{"schema":"olm.package","icon":null}`,
	`{"schema":"olm.package","icon":{"base64data":"!!"}}`,
	`{"schema":"olm.package","icon":{"base64data":null,"MediaType":"x"}}`,
	`{"schema":"olm.package","icon":"x"}`,
	`{"schema":"olm.package","defaultChannel":5}`,
	`{"schema":"olm.package","properties":null}`,
	`{"schema":"olm.package","properties":[]}`,
	`{"schema":"olm.package","properties":[null,{"type":null,"value":null},{}]}`,
	`{"schema":"olm.package","properties":{}}`,
	`{"schema":"olm.package","properties":["x"]}`,
	`{"schema":"olm.channel","name":"c","package":"p","entries":[{"name":"a","replaces":"b","skips":["x","y"],"skipRange":"<1.0.0"}]}`,
	`{"schema":"olm.channel","entries":[{"Name":"a","name":"b","SKIPS":["1","2","3"],"skips":["4"]}]}`,
	`{"schema":"olm.channel","entries":[{"skips":[null,"a"]}]}`,
	`{"schema":"olm.channel","entries":[{"skips":"a"}]}`,
	`{"schema":"olm.channel","entries":[{"replaces":true}]}`,
	`{"schema":"olm.channel","entries":[[]]}`,
	`{"schema":"olm.channel","entries":[{"Name":"\u2028\n\"x\\"}]}`,
	`{"schema":"olm.bundle","name":"b","package":"p","image":"i","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}],"relatedImages":[{"name":"n","image":"i"},null]}`,
	`{"schema":"olm.bundle","relatedImages":[{"Image":"a","image":"b"}],"properties":[{"Type":"olm.bundle.object","value":{"data":"e30="}}]}`,
	`{"schema":"olm.bundle","relatedImages":{}}`,
	`{"schema":"olm.bundle","image":["x"]}`,
	`{"schema":"olm.bundle","relatedImages":[{"ımage":"y","ſ":1,"nAme":"x"}]}`,
	`{"schema":"olm.channel","entries":[{"s\u212aips":["k"],"ſkipRange":"x"}]}`,
	`{"schema":"olm.deprecations","entries":[{"reference":{"ſchema":"x"}}]}`,
	`{"schema":"olm.deprecations","package":"p","entries":[{"reference":{"schema":"olm.bundle","name":"b"},"message":"m"},{"reference":null},{"reference":"x"}]}`,
	`{"schema":"olm.deprecations","entries":[{"Reference":{"Schema":"a"},"reference":{"name":"n"}}]}`,
	`{"schema":"olm.deprecations","entries":[1]}`,
}

// FuzzTypedDecode checks the reflection-free decoders against
// json.Unmarshal on canonical blobs: the same verdict and, without an
// error, the same value (nil and empty slices told apart).
func FuzzTypedDecode(f *testing.F) {
	for _, s := range typedSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c canonicalizer
		mv, _, err := c.decodeMeta(data, 0)
		if err != nil || mv.null {
			return
		}
		checkTyped(t, mv.canonical)
	})
}

func TestTypedDecodeMatchesEncodingJSON(t *testing.T) {
	for _, s := range typedSeeds {
		var c canonicalizer
		mv, _, err := c.decodeMeta([]byte(s), 0)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		checkTyped(t, mv.canonical)
	}
}

func checkTyped(t *testing.T, blob []byte) {
	t.Helper()
	compare(t, "package", blob, decodePackage)
	compare(t, "channel", blob, decodeChannel)
	compare(t, "bundle", blob, decodeBundle)
	compare(t, "deprecation", blob, decodeDeprecation)
	var want struct {
		Data []byte `json:"data"`
	}
	werr := json.Unmarshal(blob, &want)
	got, gerr := bundleObjectData(blob)
	if (werr != nil) != (gerr != nil) || werr == nil && !reflect.DeepEqual(got, want.Data) {
		t.Errorf("bundle object %s: got %q, %v; json.Unmarshal %q, %v", blob, got, gerr, want.Data, werr)
	}
}

func compare[T any](t *testing.T, what string, blob []byte, decode func([]byte) (T, error)) {
	t.Helper()
	var want T
	werr := json.Unmarshal(blob, &want)
	got, gerr := decode(blob)
	if (werr != nil) != (gerr != nil) {
		t.Errorf("%s %s: error %v, json.Unmarshal's %v", what, blob, gerr, werr)
		return
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Errorf("%s %s:\n got %#v\nwant %#v", what, blob, got, want)
	}
}
