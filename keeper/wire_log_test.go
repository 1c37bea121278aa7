package keeper

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper/config"
)

// TestClientLoggersNameTheirComponentOnce: the market and chain clients add
// component=market and component=chain to their loggers themselves, so the
// loggers keeper hands them carry no component, and a JSON log line names
// it once.
func TestClientLoggersNameTheirComponentOnce(t *testing.T) {
	cfg, err := config.Load("keeper.yaml", t.TempDir(), []byte(testConfigYAML), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	for name, logger := range map[string]func(*slog.Logger) *slog.Logger{
		"market": func(l *slog.Logger) *slog.Logger {
			return marketOptions(cfg, "wallet", "test", NewMetrics(nil), l).Logger
		},
		"chain": func(l *slog.Logger) *slog.Logger { return chainOptions(cfg, NewMetrics(nil), l).Logger },
	} {
		var buf bytes.Buffer
		l := logger(slog.New(slog.NewJSONHandler(&buf, nil)))
		l.With("component", name).Info("x") // what the client does with it
		if n := strings.Count(buf.String(), `"component"`); n != 1 {
			t.Errorf("%s: %d component keys in %s", name, n, buf.String())
		}
	}
}

// TestChainOptionsTakeTheJitoLimit: chain.jito_rps reaches the chain
// client.
func TestChainOptionsTakeTheJitoLimit(t *testing.T) {
	cfg, err := config.Load("keeper.yaml", t.TempDir(), []byte(strings.Replace(testConfigYAML, "chain:\n", "chain:\n  jito_rps: 3\n", 1)), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	if got := chainOptions(cfg, NewMetrics(nil), slog.New(slog.DiscardHandler)).JitoRateLimit; got != 3 {
		t.Errorf("JitoRateLimit %g, want 3", got)
	}
}
