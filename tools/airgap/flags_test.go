package airgap

import (
	"strings"
	"testing"
)

func TestSetFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     Flags
		want  string // "" for no error, else the error's start
		check func(o Options) bool
	}{
		{"none", Flags{}, "", func(o Options) bool {
			return o.Viewer == nil && o.Precompress == nil && o.Channels == nil && o.Payloads == nil
		}},
		{"viewer", Flags{Viewer: true, NoPrecompress: true}, "", func(o Options) bool { return *o.Viewer && !*o.Precompress }},
		{"no viewer", Flags{NoViewer: true}, "", func(o Options) bool { return !*o.Viewer && o.Precompress == nil }},
		{"channel", Flags{Channel: "^stable-"}, "", func(o Options) bool { return o.Channels.MatchString("stable-4.21") }},
		{"both viewers", Flags{Viewer: true, NoViewer: true}, "--viewer and --no-viewer: give one", nil},
		{"both precompress", Flags{Precompress: true, NoPrecompress: true}, "--precompress and --no-precompress: give one", nil},
		{"bad channel", Flags{Channel: "("}, "--channel: ", nil},
		{"bad payload mirror", Flags{PayloadMirrors: []string{"nonsense"}}, "--payload-mirror: ", nil},
	} {
		var o Options
		err := o.SetFlags(tc.f)
		if (err == nil) != (tc.want == "") || err != nil && !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: SetFlags = %v, want %q…", tc.name, err, tc.want)
			continue
		}
		if tc.check != nil && !tc.check(o) {
			t.Errorf("%s: options %+v", tc.name, o)
		}
	}
}
