package site

import (
	"net/http"
)

// CORS reproduces the policy-engine's middleware (spec §6.2): any origin,
// echoed rather than "*", methods GET and HEAD, no request headers, and a
// Vary header on every response so caches keep per-origin answers apart.
func CORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Add("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
		origin := r.Header.Get("Origin")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			m := r.Header.Get("Access-Control-Request-Method")
			if origin == "" || (m != http.MethodGet && m != http.MethodHead) || r.Header.Get("Access-Control-Request-Headers") != "" {
				http.Error(w, "CORS request not allowed", http.StatusBadRequest)
				return
			}
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Methods", "GET, HEAD")
			w.WriteHeader(http.StatusOK)
			return
		}
		if origin != "" {
			h.Set("Access-Control-Allow-Origin", origin)
		}
		next.ServeHTTP(w, r)
	})
}
