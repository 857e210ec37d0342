package registry

import "fmt"

// CheckRepository checks that the value of the flag --name is a
// repository, HOST/REPO without tag or digest; the error names the flag.
func CheckRepository(name, repo string) error {
	if _, err := (&Client{}).Repository(repo); err != nil {
		return fmt.Errorf("--%s: %w", name, err)
	}
	return nil
}

// CheckReference checks that the value of the flag --name is an image
// reference; the error names the flag.
func CheckReference(name, ref string) error {
	if _, err := (&Client{}).Reference(ref); err != nil {
		return fmt.Errorf("--%s: %w", name, err)
	}
	return nil
}
