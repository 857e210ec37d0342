package sign

import "testing"

// TestVerifierNil: no --trust, nothing to verify: no callback at all, so
// the libraries taking one skip the check.
func TestVerifierNil(t *testing.T) {
	var c *Check
	if c.Verifier(true) != nil || c.Verifier(false) != nil {
		t.Error("a nil Check gave a verifier")
	}
	if (&Check{}).Verifier(false) == nil {
		t.Error("a Check gave no verifier")
	}
}
