package site

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// RunOptions are how Run serves.
type RunOptions struct {
	// AccessLog logs every request; every request then goes through
	// net/http (the fast path has no access log).
	AccessLog bool
	// Pprof is the address of a net/http/pprof listener, "" for none.
	Pprof  string
	Logger *slog.Logger
}

// Run serves h on ln (with CORS, behind Server's fast path) until ctx
// ends, then shuts down gracefully, finishing in-flight requests for at
// most 10 s, and closes h, so that no snapshot outlives the process.
func Run(ctx context.Context, h *Handler, ln net.Listener, o RunOptions) error {
	log := o.Logger
	var handler http.Handler = CORS(h)
	if o.AccessLog {
		handler = AccessLog(log, handler)
	}
	if addr := o.Pprof; addr != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		go http.ListenAndServe(addr, mux)
	}
	const readHeaderTimeout, idleTimeout = 10 * time.Second, 2 * time.Minute
	// The fast path writes graph answers itself, so it has no access log:
	// with one, every request goes through net/http (still behind
	// site.Server, which turns net/http's own refusals into JSON).
	srv := &Server{Handler: h, Fallback: handler, CORS: true, NoFastPath: o.AccessLog,
		ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		// Graceful shutdown: finish in-flight requests, at most 10 s.
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err = srv.Shutdown(sctx); errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
	}
	if cerr := h.Close(); cerr != nil {
		log.Warn("removing the served generation's snapshot", "err", cerr)
	}
	if err == nil {
		log.Info("stopped")
	}
	return err
}
