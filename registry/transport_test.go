package registry

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	const fallback, limit = time.Second, 30 * time.Second
	for _, tc := range []struct {
		header string
		want   time.Duration
		ok     bool
	}{
		{"", fallback, true},
		{"3", 3 * time.Second, true},
		{"0", 0, true},
		{"-5", fallback, true},
		{"3600", time.Hour, false},
		{"soon", fallback, true},
		{time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat), 0, true},
	} {
		if got, ok := retryAfter(tc.header, fallback, limit); got != tc.want || ok != tc.ok {
			t.Errorf("Retry-After %q: %s %v, want %s %v", tc.header, got, ok, tc.want, tc.ok)
		}
	}
	future, _ := retryAfter(time.Now().Add(10*time.Second).UTC().Format(http.TimeFormat), fallback, limit)
	if future < 8*time.Second || future > 10*time.Second {
		t.Errorf("Retry-After as a date 10 s ahead: %s", future)
	}
}
