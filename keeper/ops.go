package keeper

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// readinessCheck is one condition of /readyz: nil means ready.
type readinessCheck struct {
	name  string
	check func(ctx context.Context) error
}

// opsHandler serves /metrics, /healthz (the process is alive), /readyz
// (every readiness check passes; the body says which fail and why) and
// /status (JSON from status()).
func opsHandler(g prometheus.Gatherer, checks func() []readinessCheck, status func() any) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		var failed []string
		for _, c := range checks() {
			if err := c.check(r.Context()); err != nil {
				failed = append(failed, fmt.Sprintf("%s: %v", c.name, err))
			}
		}
		if len(failed) > 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "not ready\n"+strings.Join(failed, "\n"))
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(status())
	})
	return mux
}
