package mirrorset

import (
	"testing"

	"github.com/upgraph/upgraph/internal/olmoracletest"
)

// The operator-registry oracle (internal/olmoracle, README there), found
// or built as for catalog/model's conformance test (internal/olmoracletest:
// $UPGRAPH_TEST_OLMORACLE, else the installed olmoracle when its
// --version names the digest of its sources, else one built from them
// into the user cache, once per digest). `bash .ci/deps` installs it.

const oracleModuleDir = "../../internal/olmoracle"

// oracleVerdicts runs the oracle on dirs (--verdict-only: opm validate's
// verdict, nothing else), in as many processes as there are CPUs, and
// returns the verdict per directory.
func oracleVerdicts(t *testing.T, dirs []string) map[string]olmoracletest.Catalog {
	t.Helper()
	out, err := olmoracletest.Verdicts(olmoracletest.Bin(t, oracleModuleDir), dirs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
