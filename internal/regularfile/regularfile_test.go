package regularfile

import (
	"io/fs"
	"testing"
	"testing/fstest"
)

// TestRead: regular files are read; a pipe, a device and a file over the
// limit are refused naming the file.
func TestRead(t *testing.T) {
	fsys := fstest.MapFS{
		"ok.json":   {Data: []byte("{}")},
		"at.json":   {Data: []byte("0123456789")},
		"big.json":  {Data: []byte("01234567890")},
		"pipe.json": {Mode: fs.ModeNamedPipe},
		"dev.json":  {Mode: fs.ModeDevice | fs.ModeCharDevice},
	}
	for _, tc := range []struct {
		name, want string // want: content, or the error
		listed     bool
	}{
		{"ok.json", "{}", true},
		{"ok.json", "{}", false},
		{"at.json", "0123456789", true},
		{"big.json", "shown/big.json: 11 bytes, more than the 10 it may have", true},
		{"pipe.json", "shown/pipe.json: not a regular file (p---------)", false},
		{"dev.json", "shown/dev.json: not a regular file (Dc---------)", false},
		{"pipe.json", "shown/pipe.json: not a regular file (p---------)", true}, // listed wrongly: the open file says
	} {
		data, err := Read(fsys, tc.name, "shown/"+tc.name, tc.listed, 10)
		if got := string(data); err == nil && got != tc.want || err != nil && err.Error() != tc.want {
			t.Errorf("Read(%s, listed regular %v) = %q, %v; want %q", tc.name, tc.listed, data, err, tc.want)
		}
	}
}
