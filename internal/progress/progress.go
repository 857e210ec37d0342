// Package progress reports the progress of long batch steps (scraping
// tags, uploading objects): a bar on a terminal, a log line every few
// seconds otherwise, so CI logs do not fill with carriage returns.
package progress

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
)

// Reporter returns a func(done, total) for w (usually os.Stderr) that
// counts units ("tags", "objects") and logs as "<step> progress".
func Reporter(w *os.File, log *slog.Logger, step, units string) func(done, total int) {
	var mu sync.Mutex
	var last time.Time
	terminal := false
	if st, err := w.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		terminal = true
	}
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		interval := 5 * time.Second
		if terminal {
			interval = 100 * time.Millisecond
		}
		if done < total && time.Since(last) < interval {
			return
		}
		last = time.Now()
		if terminal {
			drawBar(w, done, total, units)
			return
		}
		log.Info(step+" progress", units, done, "of", total)
	}
}

func drawBar(w io.Writer, done, total int, units string) {
	const width = 30
	filled := 0
	if total > 0 {
		filled = min(done*width/total, width)
	}
	end := ""
	if done == total {
		end = "\n"
	}
	fmt.Fprintf(w, "\r[%s%s] %d/%d %s%s", strings.Repeat("#", filled), strings.Repeat(" ", width-filled), done, total, units, end)
}
