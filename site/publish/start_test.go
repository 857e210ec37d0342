package publish

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree"
)

// TestStartRefusals: a location that cannot be served is refused naming
// the flag it came from, and nothing is left to stop.
func TestStartRefusals(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	missing := filepath.Join(t.TempDir(), "none")
	for _, tc := range []struct {
		name    string
		s       Served
		wantErr string
	}{
		{"directory", Served{Flag: "--dir", Location: missing, Kind: tree.KindDir, Poll: time.Second}, "--dir " + missing + ": "},
		{"s3 url", Served{Flag: "--s3", Location: "s3://", Kind: tree.KindS3, Poll: time.Second}, "s3://"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := site.NewHandler(site.Options{Logger: log})
			defer h.Close()
			stop, err := Start(context.Background(), h, tc.s, log)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || stop != nil {
				t.Errorf("Start = stop %v, error %v, want an error with %q", stop != nil, err, tc.wantErr)
			}
		})
	}
}
