//go:build !unix

package bundle

import "io/fs"

// fileID is unknown here: every name is read on its own.
func fileID(fs.FileInfo) (any, bool) { return nil, false }
