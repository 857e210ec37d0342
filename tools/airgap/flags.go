package airgap

import (
	"fmt"
	"regexp"

	"github.com/upgraph/upgraph/release/mirror"
)

// Flags are upgraph mirror's flags that set Options' choices, as given.
type Flags struct {
	Viewer, NoViewer           bool     // --viewer, --no-viewer
	Precompress, NoPrecompress bool     // --precompress, --no-precompress
	Channel                    string   // --channel, a regular expression
	PayloadMirrors             []string // --payload-mirror's values
}

// SetFlags checks f and sets Viewer, Precompress, Channels and Payloads;
// an error names the flag.
func (o *Options) SetFlags(f Flags) error {
	switch {
	case f.Viewer && f.NoViewer:
		return fmt.Errorf("--viewer and --no-viewer: give one")
	case f.Viewer, f.NoViewer:
		v := f.Viewer
		o.Viewer = &v
	}
	switch {
	case f.Precompress && f.NoPrecompress:
		return fmt.Errorf("--precompress and --no-precompress: give one")
	case f.Precompress, f.NoPrecompress:
		v := f.Precompress
		o.Precompress = &v
	}
	if f.Channel != "" {
		var err error
		if o.Channels, err = regexp.Compile(f.Channel); err != nil {
			return fmt.Errorf("--channel: %w", err)
		}
	}
	for _, s := range f.PayloadMirrors {
		pm, err := mirror.ParsePayloadMirror(s)
		if err != nil {
			return fmt.Errorf("--payload-mirror: %w", err)
		}
		o.Payloads = append(o.Payloads, pm)
	}
	return nil
}
