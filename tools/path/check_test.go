package path

import "testing"

func TestRequestCheck(t *testing.T) {
	ok := Request{From: "4.21.3", To: "4.22.1", Channel: "stable-4.22", Arch: "amd64"}
	for _, tc := range []struct {
		name string
		edit func(*Request)
		want string
	}{
		{"ok", func(*Request) {}, ""},
		{"channel", func(r *Request) { r.Channel = "Stable 4.22" }, `--channel "Stable 4.22" does not match `},
		{"arch", func(r *Request) { r.Arch = "x86 64" }, `--arch "x86 64" does not match `},
		{"from", func(r *Request) { r.From = "four" }, "--from: "},
		{"to", func(r *Request) { r.To = "4.22" }, "--to: "},
		{"channel first", func(r *Request) { r.Channel, r.From = "", "four" }, `--channel "" does not match `},
	} {
		r := ok
		tc.edit(&r)
		got := ""
		if err := r.Check(); err != nil {
			got = err.Error()
		}
		if tc.want == "" && got != "" || tc.want != "" && (len(got) < len(tc.want) || got[:len(tc.want)] != tc.want) {
			t.Errorf("%s: Check() = %q, want %q…", tc.name, got, tc.want)
		}
	}
}
