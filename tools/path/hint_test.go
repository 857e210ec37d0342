package path

import "testing"

// TestHintNone: no hint when a path was found or --via-eus was given
// (the source is not read then).
func TestHintNone(t *testing.T) {
	req := Request{From: "4.14.1", To: "4.16.1", Channel: "stable-4.16", Arch: "amd64"}
	if h := Hint(nil, req, &Report{Found: true}); h != "" {
		t.Errorf("hint %q for a path found", h)
	}
	req.ViaEUS = true
	if h := Hint(nil, req, &Report{}); h != "" {
		t.Errorf("hint %q with --via-eus", h)
	}
}
