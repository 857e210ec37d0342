//go:build !unix

package generator_test

import "os"

func nlink(os.FileInfo) uint64 { return 1 }
