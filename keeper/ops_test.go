package keeper

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	body, _ := io.ReadAll(rec.Body)
	return rec.Code, string(body)
}

func TestOpsEndpoints(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	m.Paused.Set(1)
	paused := true
	checks := func() []readinessCheck {
		return []readinessCheck{
			{"journal", func(context.Context) error { return nil }},
			{"paused", func(context.Context) error {
				if paused {
					return errors.New("kill switch /run/keeper/pause exists")
				}
				return nil
			}},
		}
	}
	h := opsHandler(reg, checks, func() any { return map[string]int{"policies": 3} })

	if code, body := get(t, h, "/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz = %d %q", code, body)
	}
	code, body := get(t, h, "/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "paused: kill switch /run/keeper/pause exists") || strings.Contains(body, "journal") {
		t.Errorf("/readyz paused = %d %q", code, body)
	}
	paused = false
	if code, body := get(t, h, "/readyz"); code != 200 || body != "ready\n" {
		t.Errorf("/readyz = %d %q", code, body)
	}
	if code, body := get(t, h, "/status"); code != 200 || !strings.Contains(body, `"policies": 3`) {
		t.Errorf("/status = %d %q", code, body)
	}
	if code, body := get(t, h, "/metrics"); code != 200 || !strings.Contains(body, "keeper_paused 1") {
		t.Errorf("/metrics = %d, lacks keeper_paused 1", code)
	}
	if code, _ := get(t, h, "/nope"); code != http.StatusNotFound {
		t.Errorf("/nope = %d", code)
	}
}
