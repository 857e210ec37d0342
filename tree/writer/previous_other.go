//go:build !linux

package writer

import "time"

func (t *previousTree) linkSized(*treeDir, string, int64, time.Time) bool { return false }
func (t *previousTree) modTime(*treeDir, string) (time.Time, bool)        { return time.Time{}, false }
