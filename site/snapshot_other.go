//go:build !unix

package site

import (
	"errors"

	"github.com/upgraph/upgraph/tree/manifest"
)

func snapshot(string, []byte, *manifest.Manifest) (string, func() error, error) {
	return "", nil, errors.New("snapshots need hard links and flock")
}
