package examples_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/keeper/sim"
)

// workspace is one end-to-end test's folder: configs pointing at its simulator, their policy files,
// and one journal they share, as an operator's deployment would.
type workspace struct {
	sim *simProc
	dir string
	// seen are the journal's action ids and the wallet's landed transactions that earlier steps
	// already accounted for.
	seenActions map[string]bool
	seenSigned  int
	last        string // the config written last
}

// newWorkspace returns an empty workspace on s.
func newWorkspace(t testing.TB, s *simProc) *workspace {
	return &workspace{sim: s, dir: t.TempDir(), seenActions: map[string]bool{}}
}

// config writes a config named name: the committed ../config.yaml with the simulator's addresses,
// the simulator's keypair, the workspace's journal, a fast status poll, no ops listener, the given
// notifiers, and copies of policyFiles (paths relative to examples/) as its only policies. It returns
// the config's path.
func (w *workspace) config(t testing.TB, name string, policyFiles []string, notifiers ...map[string]any) string {
	t.Helper()
	return w.configEdited(t, name, policyFiles, func(cfg map[string]any) {
		if len(notifiers) > 0 {
			cfg["notifiers"] = notifiers
		}
	})
}

// configEdited is config without notifiers, changed further by edit.
func (w *workspace) configEdited(t testing.TB, name string, policyFiles []string, edit func(map[string]any)) string {
	t.Helper()
	files := map[string][]byte{}
	for _, f := range policyFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(f)] = data
	}
	w.last = writeConfig(t, w.dir, name, files, func(cfg map[string]any) {
		section(cfg, "market")["base_url"] = w.sim.urls.Market
		chain := section(cfg, "chain")
		chain["rpc_url"], chain["jito_url"], chain["poll"] = w.sim.urls.RPC, w.sim.urls.Jito, "50ms"
		section(cfg, "signer")["keypair"] = w.sim.keypair
		section(cfg, "journal")["dsn"] = "sqlite:" + filepath.Join(w.dir, "keeper.db")
		section(cfg, "http")["listen"] = ""
		edit(cfg)
	})
	return w.last
}

// writeConfig writes dir/name.yaml, the committed ../config.yaml changed by edit (when not nil) whose
// only policies are files (base name → content), written to dir/name/. It returns the config's path.
func writeConfig(t testing.TB, dir, name string, files map[string][]byte, edit func(map[string]any)) string {
	t.Helper()
	folder := filepath.Join(dir, name)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for base, data := range files {
		if err := os.WriteFile(filepath.Join(folder, base), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := committedConfig(t)
	cfg["policies"] = []string{name + "/*.yaml"}
	if edit != nil {
		edit(cfg)
	}
	data, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// committedConfig reads the repository's config.yaml.
func committedConfig(t testing.TB) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("../config.yaml: %v", err)
	}
	return cfg
}

// section returns cfg[key] as a mapping, creating it when absent.
func section(cfg map[string]any, key string) map[string]any {
	m, ok := cfg[key].(map[string]any)
	if !ok {
		m = map[string]any{}
		cfg[key] = m
	}
	return m
}

// once runs `keeper run --once` (plus extra flags) with config while the clock is paced, and wants
// exit 0.
func (w *workspace) once(t *testing.T, config string, extra ...string) result {
	t.Helper()
	args := append([]string{"run", "--once", "--config", config, "--log-format", "json"}, extra...)
	return w.sim.runActing(t, w.dir, args...).wantExit(t, 0)
}

// action is one record of `keeper history --json`.
type action struct {
	ID         string         `json:"id"`
	Policy     string         `json:"policy"`
	Kind       string         `json:"kind"`
	Target     string         `json:"target"`
	State      string         `json:"state"`
	Reason     string         `json:"reason"`
	Rule       string         `json:"rule"`
	DryRun     bool           `json:"dry_run"`
	Amount     uint64         `json:"amount"`
	Attempts   int            `json:"attempts"`
	Signatures []string       `json:"signatures"`
	Tips       []journaledTip `json:"tips"`
	CreatedAt  time.Time      `json:"created_at"`
}

// journaledTip is one of keeper's own Jito tip transactions in `keeper history --json`.
type journaledTip struct {
	Attempt   int    `json:"attempt"`
	Signature string `json:"signature"`
	Lamports  uint64 `json:"lamports"`
}

// history runs `keeper history --json` with config and returns every journaled action (not the
// Squads proposals listed after them).
func (w *workspace) history(t testing.TB, config string) []action {
	t.Helper()
	r := runKeeper(t, w.dir, "history", "--json", "--limit", "0", "--config", config).wantExit(t, 0)
	var out []action
	for line := range strings.Lines(r.stdout) {
		if strings.HasPrefix(line, "no journal at ") || strings.Contains(line, `"proposal":`) {
			continue // a Squads proposal's line, listed after the actions
		}
		var a action
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("history line %q: %v", line, err)
		}
		if a.ID == "" && strings.Contains(line, `"incident":`) {
			continue // an alert incident, listed after the actions
		}
		out = append(out, a)
	}
	return out
}

// landedOnce checks what happened since the last check: the journal gained exactly one landed action
// of each of policies (on the given targets, when targets are given) and nothing else, and the
// wallet signed exactly the transactions those actions journaled (plus, for a bundle, one of its
// journaled tips), each of which landed without error. It returns the new actions by policy.
func (w *workspace) landedOnce(t *testing.T, config string, st sim.ControlState, want map[string]string) map[string]action {
	t.Helper()
	got := map[string]action{}
	var acts []action
	for _, a := range w.newActions(t, config) {
		if _, dup := got[a.Policy]; dup {
			t.Errorf("policy %s journaled a second action: %+v", a.Policy, a)
		}
		got[a.Policy] = a
		acts = append(acts, a)
		target, expected := want[a.Policy]
		switch {
		case !expected:
			t.Errorf("unexpected action %+v", a)
		case a.State != "landed" || a.DryRun || len(a.Signatures) == 0:
			t.Errorf("action of %s: state %s, dry run %v, signatures %v; want landed with signatures", a.Policy, a.State, a.DryRun, a.Signatures)
		case target != "" && a.Target != target:
			t.Errorf("action of %s on %s, want on %s", a.Policy, a.Target, target)
		}
	}
	for p := range want {
		if _, ok := got[p]; !ok {
			t.Errorf("policy %s journaled no action", p)
		}
	}
	w.signedExactly(t, st, acts)
	return got
}

// nothingNew checks that since the last check nothing was journaled and nothing was signed.
func (w *workspace) nothingNew(t *testing.T, config string, st sim.ControlState) {
	t.Helper()
	for _, a := range w.newActions(t, config) {
		t.Errorf("unexpected action %+v", a)
	}
	w.signedExactly(t, st, nil)
}

// newActions returns the journal's actions that no earlier check saw, and marks them seen.
func (w *workspace) newActions(t *testing.T, config string) []action {
	t.Helper()
	var out []action
	for _, a := range w.history(t, config) {
		if !w.seenActions[a.ID] {
			w.seenActions[a.ID] = true
			out = append(out, a)
		}
	}
	return out
}

// signedExactly checks that the transactions the wallet signed since the last check are exactly
// the signatures acts journaled (in any order) plus tips acts journaled, each landed without error,
// and marks them seen. It returns the tips that landed.
func (w *workspace) signedExactly(t *testing.T, st sim.ControlState, acts []action) []string {
	t.Helper()
	if len(st.Signed) < w.seenSigned {
		t.Fatalf("the simulator forgot signed transactions: %d, had %d", len(st.Signed), w.seenSigned)
	}
	fresh := st.Signed[w.seenSigned:]
	w.seenSigned = len(st.Signed)
	for _, tx := range fresh {
		if tx.Err != "" {
			t.Errorf("transaction %s landed with error %s", tx.Signature, tx.Err)
		}
	}
	return w.sim.checkSignedJournaled(t, fresh, acts)
}

// journalIndex is what the journal holds of some actions, by signature.
type journalIndex struct {
	// txs maps an action's journaled transaction signature to the action's ID.
	txs map[string]string
	// tips maps a journaled tip signature to the tip and its action's ID.
	tips map[string]indexedTip
}

// indexedTip is a journaled tip with its action.
type indexedTip struct {
	journaledTip
	action string
}

// indexJournal indexes the signatures and tips of acts.
func indexJournal(acts []action) journalIndex {
	ix := journalIndex{txs: map[string]string{}, tips: map[string]indexedTip{}}
	for _, a := range acts {
		for _, sig := range a.Signatures {
			ix.txs[sig] = a.ID
		}
		for _, tip := range a.Tips {
			ix.tips[tip.Signature] = indexedTip{journaledTip: tip, action: a.ID}
		}
	}
	return ix
}

// checkSignedJournaled checks that the wallet-signed transactions on chain are exactly the
// transactions acts journaled, plus at most one journaled tip per attempt, each in its action's
// bundle; it returns the tips that landed.
func (s *simProc) checkSignedJournaled(t *testing.T, signed []sim.SignedTx, acts []action) []string {
	t.Helper()
	landed, tips := s.checkSignedInJournal(t, signed, acts)
	slices.Sort(landed)
	if want := slices.Sorted(maps.Keys(indexJournal(acts).txs)); !slices.Equal(landed, want) {
		t.Errorf("the wallet signed %v on chain (besides tips %v), the journal holds %v: they must be the same", landed, tips, want)
	}
	return tips
}

// checkSignedInJournal checks that every wallet-signed transaction on chain is a transaction or a
// tip acts journaled, at most one tip per attempt, each in its action's bundle. It returns the
// journaled transactions and the tips that landed.
func (s *simProc) checkSignedInJournal(t *testing.T, signed []sim.SignedTx, acts []action) (landed, tips []string) {
	t.Helper()
	ix := indexJournal(acts)
	bundleOf := map[string]string{} // bundle ID → action whose transaction rode in it
	for _, tx := range signed {
		if id, ok := ix.txs[tx.Signature]; ok {
			landed = append(landed, tx.Signature)
			if tx.BundleID != "" {
				bundleOf[tx.BundleID] = id
			}
		}
	}
	perAttempt := map[string]int{}
	for _, tx := range signed {
		_, isTx := ix.txs[tx.Signature]
		tip, isTip := ix.tips[tx.Signature]
		switch {
		case isTx:
		case !isTip:
			t.Errorf("wallet-signed %s landed on chain but is not in the journal", tx.Signature)
		case bundleOf[tx.BundleID] != tip.action || tx.BundleID == "":
			t.Errorf("tip %s of action %s landed outside its action's bundle (bundle %q)", tx.Signature, tip.action, tx.BundleID)
		default:
			tips = append(tips, tx.Signature)
			s.checkTip(t, tx.Signature, tip.Lamports)
			key := fmt.Sprintf("%s#%d", tip.action, tip.Attempt)
			if perAttempt[key]++; perAttempt[key] > 1 {
				t.Errorf("two tips of attempt %s landed", key)
			}
		}
	}
	return landed, tips
}
