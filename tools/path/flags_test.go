package path

import "testing"

func TestCheckGiven(t *testing.T) {
	for _, tc := range []struct {
		from, to, channel, format, want string
	}{
		{"4.20.1", "4.21.2", "stable-4.21", "text", ""},
		{"4.20.1", "4.21.2", "stable-4.21", "json", ""},
		{"", "4.21.2", "stable-4.21", "text", "--from is required"},
		{"4.20.1", "", "stable-4.21", "text", "--to is required"},
		{"4.20.1", "4.21.2", "", "text", "--channel is required"},
		{"4.20.1", "4.21.2", "stable-4.21", "yaml", `--format: want text or json, got "yaml"`},
	} {
		err := CheckGiven(tc.from, tc.to, tc.channel, tc.format)
		if (err == nil) != (tc.want == "") || err != nil && err.Error() != tc.want {
			t.Errorf("CheckGiven(%q, %q, %q, %q) = %v, want %q", tc.from, tc.to, tc.channel, tc.format, err, tc.want)
		}
	}
}
