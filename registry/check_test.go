package registry

import (
	"strings"
	"testing"
)

func TestCheckRepositoryAndReference(t *testing.T) {
	for _, tc := range []struct {
		check func(name, s string) error
		value string
		want  string // "" for no error, else the error's start
	}{
		{CheckRepository, "quay.io/openshift-release-dev/ocp-release", ""},
		{CheckRepository, "quay.io/Bad Repo", "--flag: repository "},
		{CheckReference, "quay.io/openshift/graph-data:latest", ""},
		{CheckReference, "quay.io/graph-data:bad tag", "--flag: image reference "},
	} {
		err := tc.check("flag", tc.value)
		if (err == nil) != (tc.want == "") || err != nil && !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("check(%q) = %v, want %q…", tc.value, err, tc.want)
		}
	}
}
