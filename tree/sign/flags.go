package sign

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ParseThresholds parses keys' --threshold values (ParseThreshold), one
// per role; an error names the value.
func ParseThresholds(values []string) (map[string]Threshold, error) {
	ths := map[string]Threshold{}
	for _, s := range values {
		role, th, err := ParseThreshold(s)
		if err != nil {
			return nil, fmt.Errorf("--threshold %w", err)
		}
		ths[role] = th
	}
	return ths, nil
}

// CheckRotation checks keys rotate's --role values against Roles, and
// that every --threshold names a role rotated (the first that does not,
// by name, is the one reported).
func CheckRotation(roles []string, ths map[string]Threshold) error {
	for _, role := range roles {
		if !slices.Contains(Roles, role) {
			return fmt.Errorf("--role %q: want one of %s", role, strings.Join(Roles, ", "))
		}
	}
	for _, role := range slices.Sorted(maps.Keys(ths)) { // the first in order, whatever the map's

		if !slices.Contains(roles, role) {
			return fmt.Errorf("--threshold %s=…: %s is not rotated (add --role %s)", role, role, role)
		}
	}
	return nil
}
