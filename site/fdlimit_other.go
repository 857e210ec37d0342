//go:build !unix

package site

func sharedFileLimit() int { return 512 }
