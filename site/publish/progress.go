package publish

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
)

// ProgressReporter returns an Options.Progress that draws a bar on w when it
// is a terminal and otherwise logs a line every 5 s (CI logs must not fill
// with carriage returns).
func ProgressReporter(w *os.File, log *slog.Logger) func(done, total int) {
	var mu sync.Mutex
	var last time.Time
	if st, err := w.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		return func(done, total int) {
			mu.Lock()
			defer mu.Unlock()
			if done < total && time.Since(last) < 100*time.Millisecond {
				return
			}
			last = time.Now()
			drawBar(w, done, total)
		}
	}
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if done < total && time.Since(last) < 5*time.Second {
			return
		}
		last = time.Now()
		log.Info("publish progress", "objects", done, "of", total)
	}
}

func drawBar(w io.Writer, done, total int) {
	const width = 30
	filled := 0
	if total > 0 {
		filled = done * width / total
	}
	end := ""
	if done == total {
		end = "\n"
	}
	fmt.Fprintf(w, "\r[%s%s] %d/%d objects%s", strings.Repeat("#", filled), strings.Repeat(" ", width-filled), done, total, end)
}
