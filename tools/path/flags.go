package path

import "fmt"

// CheckGiven checks the flags path and plan need for a release path,
// before Request.Check: --from, --to and --channel given, --format text
// or json. They are checked here rather than by the flag parser, whose
// error would exit 1, which means "no path" (or "blocked").
func CheckGiven(from, to, channel, format string) error {
	for _, v := range []struct{ name, value string }{{"from", from}, {"to", to}, {"channel", channel}} {
		if v.value == "" {
			return fmt.Errorf("--%s is required", v.name)
		}
	}
	if format != "text" && format != "json" {
		return fmt.Errorf("--format: want text or json, got %q", format)
	}
	return nil
}
