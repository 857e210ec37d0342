//go:build !linux

package writer

import (
	"errors"
	"os"
)

// The spare is read with getdents and matched by inode number, which only
// Linux's code does: elsewhere every staging tree starts empty.
type spareTree struct{}

type spareDir struct{}

func readSpare(string) (*spareTree, error) {
	return nil, errors.New("a spare tree is only used on Linux")
}

func (t *spareTree) claimDir(string) (*spareDir, error) { return nil, nil }
func (t *spareTree) clean() error                       { return nil }

func (d *treeDir) settle(string, uint64) (bool, error) { return false, nil }
func (d *treeDir) record(string, uint64)               {}

func keepLink(*treeDir, string, *treeDir, string) (bool, error) { return false, nil }

// spareSupported: elsewhere the replaced generation is removed.
const spareSupported = false

func ownedHere(os.FileInfo, string) bool { return false }
