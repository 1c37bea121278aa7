package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
)

// writeConfig writes a minimal valid config whose journal lives in dir.
func writeConfig(t *testing.T, dir string) string {
	t.Helper()
	cfg := `market: {program_id: SimMarket1111111111111111111111111111111111}
chain: {dex_a_program: SimDexA111111111111111111111111111111111111, dex_b_program: SimDexB111111111111111111111111111111111111}
journal: {dsn: "sqlite:j.db"}
policies: ["p/*.yaml"]
`
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHistory(t *testing.T) {
	dir := t.TempDir()
	cfgPath := writeConfig(t, dir)
	if code, out, _ := runCLI(t, "history", "--config", cfgPath); code != exitOK || !strings.Contains(out, "no journal at") {
		t.Fatalf("before any run: code %d, out %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "j.db")); err == nil {
		t.Fatal("history created a journal")
	}

	ctx := context.Background()
	j, err := journal.Open(ctx, "sqlite:"+filepath.Join(dir, "j.db"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []journal.Intent{
		{ID: "a1", Policy: "auto-repay", Kind: "repay", Target: "LoanA", Reason: "health 0.08 < 0.12: repay 10 USDC", Mint: "USDC", Amount: 10},
		{ID: "a2", Policy: "claims", Kind: "claim-withdrawals", Target: "Req1", Reason: "request filled"},
	} {
		if _, _, err := j.Begin(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	att, _ := j.NewAttempt(ctx, "a1")
	steps := []error{
		j.RecordBuilt(ctx, "a1", att.Number, journal.Build{Transactions: []string{"AQ=="}, Mode: journal.ModeBundle}),
		j.RecordSigned(ctx, "a1", att.Number, []journal.SignedTx{{Signature: "5igSig", Blockhash: "BH"}}),
		j.RecordTip(ctx, "a1", att.Number, journal.Tip{Signature: "TipSig1", Blockhash: "BH", Account: "TipAcct", Lamports: 10_000}),
		j.RecordTip(ctx, "a1", att.Number, journal.Tip{Signature: "TipSig2", Blockhash: "BH", Account: "TipAcct", Lamports: 20_000}),
		j.Settle(ctx, "a1", att.Number, journal.Outcome{State: journal.StateLanded, FeeLamports: 10_500, TipLamports: 20_000}),
		j.Close(),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("journal write %d: %v", i, err)
		}
	}

	code, out, errs := runCLI(t, "history", "--config", cfgPath)
	if code != exitOK {
		t.Fatalf("code %d, stderr %q", code, errs)
	}
	for _, want := range []string{"POLICY", "auto-repay", "landed", "health 0.08 < 0.12: repay 10 USDC", "tx 5igSig",
		"tip TipSig1 (0.00001 SOL)", "tip TipSig2 (0.00002 SOL)", "paid fee 0.0000105 SOL, tip 0.00002 SOL", "claims", "planned"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "history", "--config", cfgPath, "--policy", "auto-repay", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitOK || len(lines) != 1 {
		t.Fatalf("json: code %d, %d lines:\n%s", code, len(lines), out)
	}
	var rec historyRecord
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.ID != "a1" || rec.State != "landed" || len(rec.Signatures) != 1 || rec.Signatures[0] != "5igSig" || rec.SettledAt == nil || rec.Amount != 10 ||
		rec.FeeLamports != 10_500 || rec.TipLamports != 20_000 {
		t.Errorf("record = %+v", rec)
	}
	wantTips := []historyTip{{Attempt: 1, Signature: "TipSig1", Account: "TipAcct", Lamports: 10_000},
		{Attempt: 1, Signature: "TipSig2", Account: "TipAcct", Lamports: 20_000}}
	if !slices.Equal(rec.Tips, wantTips) {
		t.Errorf("json tips = %+v, want %+v", rec.Tips, wantTips)
	}
	if !strings.Contains(lines[0], `"tips":[{"attempt":1,"signature":"TipSig1","account":"TipAcct","lamports":10000}`) {
		t.Errorf("json line lacks the tips array: %s", lines[0])
	}
	if code, out, _ := runCLI(t, "history", "--config", cfgPath, "--since", "2099-01-01"); code != exitOK || !strings.Contains(out, "no actions") {
		t.Errorf("future --since: code %d, out %q", code, out)
	}
	if code, _, errs := runCLI(t, "history", "--config", cfgPath, "--since", "yesterday"); code != exitUsage || !strings.Contains(errs, "not a duration") {
		t.Errorf("bad --since: code %d, stderr %q", code, errs)
	}
	// A policy the journal knows, with nothing in the window, is not an error; a name nobody knows is.
	if code, out, _ := runCLI(t, "history", "--config", cfgPath, "--policy", "claims", "--since", "2099-01-01"); code != exitOK || !strings.Contains(out, "no actions") {
		t.Errorf("known policy, empty window: code %d, out %q", code, out)
	}
	if err := os.MkdirAll(filepath.Join(dir, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	policy := "policies:\n  - name: sweep\n    kind: strategy-withdraw\n    schedule: \"@hourly\"\n    params: { buffer: 0 }\n"
	if err := os.WriteFile(filepath.Join(dir, "p", "sweep.yaml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCLI(t, "history", "--config", cfgPath, "--policy", "sweep"); code != exitOK || !strings.Contains(out, "no actions") {
		t.Errorf("a configured policy that never acted: code %d, out %q", code, out)
	}
	if code, _, errs := runCLI(t, "history", "--config", cfgPath, "--policy", "auto-rapay"); code != exitUsage ||
		!strings.Contains(errs, `no policy "auto-rapay" in the config's policy files or the journal (the files name sweep)`) {
		t.Errorf("unknown --policy: code %d, stderr %q", code, errs)
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	cases := map[string]time.Time{
		"":                     {},
		"24h":                  now.Add(-24 * time.Hour),
		"2026-11-01":           time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		"2026-11-01T10:00:00Z": time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC),
	}
	for in, want := range cases {
		got, err := parseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}
