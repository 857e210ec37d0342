package publish

import (
	"errors"
	"fmt"
	"testing"
)

func TestFlagHint(t *testing.T) {
	other := errors.New("network down")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("x: %w", ErrShrink), "(--force publishes anyway; --shrink-threshold sets the fraction)"},
		{ErrUnreadableIndex, "published index.json unreadable (--force publishes over it as if nothing were published)"},
		{ErrTooManyDeletes, "too many deletions (raise --max-deletes, -1 for no limit)"},
		{other, "network down"},
	} {
		got := FlagHint(tc.err)
		if !errors.Is(got, tc.err) || len(got.Error()) < len(tc.want) || got.Error()[len(got.Error())-len(tc.want):] != tc.want {
			t.Errorf("FlagHint(%v) = %v, want …%q wrapping it", tc.err, got, tc.want)
		}
	}
	if FlagHint(nil) != nil {
		t.Error("FlagHint(nil) != nil")
	}
}
