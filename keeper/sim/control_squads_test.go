package sim

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/squadsim"
	"github.com/keeper-project/keeper/keeper/squads"
)

// treasuryYAML is the default scenario with strategy alpha held by multisig "treasury" (a 2-of-3
// of alice, bob and carol; the operator's wallet proposes and executes) when section is treasury.
func treasuryYAML(t *testing.T, section string) []byte {
	t.Helper()
	yaml := string(DefaultScenarioYAML())
	alpha := "  - name: alpha\n    authority: $wallet\n"
	if !strings.Contains(yaml, alpha) {
		t.Fatal("the default scenario's strategy alpha changed")
	}
	yaml = strings.Replace(yaml, alpha, "  - name: alpha\n    authority: treasury\n", 1)
	return []byte(yaml + "\nmultisigs:\n" + section)
}

const treasury = `  - name: treasury
    threshold: 2
    keeper: [initiate, execute]
    voters: [alice, bob, carol]
`

// newTreasurySim is a simulator on the treasury scenario, with a manual
// clock.
func newTreasurySim(t *testing.T) *Sim {
	t.Helper()
	sc, err := ParseScenario("treasury.yaml", treasuryYAML(t, treasury))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Clock: chainsim.NewManualClock(testStart), Wallet: testWallet(), Scenario: sc})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestScenarioMultisig: a scenario's multisig is on chain at its PDA with the wallet and the
// voters as members, and a strategy whose authority names it is held by its vault 0.
func TestScenarioMultisig(t *testing.T) {
	s := newTreasurySim(t)
	addr, _ := squads.MultisigPDA(ids.DerivedKey("multisig", "treasury"))
	if got, ok := s.Accounts().Address(ids.KindMultisig, "treasury"); !ok || got != addr {
		t.Fatalf("multisig treasury at %s (%v), want %s", got, ok, addr)
	}
	a, _ := s.Chain().State.Account(addr)
	ms, err := squads.DecodeMultisig(a.Data)
	if err != nil {
		t.Fatal(err)
	}
	if perm, ok := ms.Member(testWallet()); !ok || perm != squads.Initiate|squads.Execute || ms.Threshold != 2 || ms.Voters() != 3 {
		t.Errorf("multisig %+v: the wallet holds %s, want initiate and execute of a 2-of-3", ms, perm)
	}
	vault, _ := squads.VaultPDA(addr, 0)
	alpha, _ := s.Accounts().Address(ids.KindStrategy, "alpha")
	st, err := s.Accounts().Strategy(alpha)
	if err != nil || st.Strategy.Authority != vault.String() {
		t.Errorf("alpha's authority %q (%v), want the treasury's vault %s", st.Strategy.Authority, err, vault)
	}
}

// TestScenarioMultisigProblems: a multisig's threshold, permissions, voters and name are checked
// where the file gives them.
func TestScenarioMultisigProblems(t *testing.T) {
	for _, c := range []struct{ name, section, want string }{
		{"threshold above the voters", strings.Replace(treasury, "threshold: 2", "threshold: 4", 1), "threshold 4: want 1 to the 3 voters"},
		{"unknown permission", strings.Replace(treasury, "[initiate, execute]", "[initiate, admin]", 1), `permission "admin"`},
		{"voter twice", strings.Replace(treasury, "carol]", "alice]", 1), "voter 2: a unique name"},
		{"a wallet's name", strings.Replace(treasury, "name: treasury", "name: lender", 1), "multisig 0: a unique name"},
	} {
		_, err := ParseScenario("treasury.yaml", treasuryYAML(t, c.section))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "treasury.yaml:") {
			t.Errorf("%s: error %v, want one at its position saying %q", c.name, err, c.want)
		}
	}
}

// TestControlSquadsVote: the control route votes as the scenario's voters with their keys, as the
// program allows; GET /_sim/squads shows the proposal and its votes.
func TestControlSquadsVote(t *testing.T) {
	s := newTreasurySim(t)
	c := NewControl(s)
	addr, _ := s.Accounts().Address(ids.KindMultisig, "treasury")
	vault, _ := squads.VaultPDA(addr, 0)
	tx, err := solana.NewTransaction([]solana.Instruction{system.NewTransferInstruction(1, vault, testWallet()).Build()},
		solana.Hash{}, solana.TransactionPayer(vault))
	if err != nil {
		t.Fatal(err)
	}
	msg, err := squads.FromSolana(&tx.Message)
	if err != nil {
		t.Fatal(err)
	}
	w := testWallet()
	if err := squadsim.Send(s.Chain(), solana.PrivateKey(testKey), squads.VaultTransactionCreate(addr, 1, w, w, squads.CreateArgs{Message: msg.Encode()}),
		squads.ProposalCreate(addr, 1, w, w)); err != nil {
		t.Fatal(err)
	}
	h := c.Handler()
	for _, st := range []struct {
		name, body string
		status     int
		want       string // in the body
	}{
		{"approve", `{"multisig": "treasury", "member": "alice", "index": 1, "vote": "approve"}`, 200, `"status":"active"`},
		{"approve twice", `{"multisig": "treasury", "member": "alice", "index": 1, "vote": "approve"}`, 409, "refused"},
		{"unknown voter", `{"multisig": "treasury", "member": "dave", "index": 1, "vote": "approve"}`, 404, "unknown"},
		{"unknown multisig", `{"multisig": "vault", "member": "alice", "index": 1, "vote": "approve"}`, 404, "unknown"},
		{"no such proposal", `{"multisig": "treasury", "member": "bob", "index": 2, "vote": "approve"}`, 409, "refused"},
		{"abstain", `{"multisig": "treasury", "member": "bob", "index": 1, "vote": "abstain"}`, 400, "not approve or reject"},
		{"unknown field", `{"multisig": "treasury", "voter": "bob"}`, 400, "unknown field"},
		{"threshold", `{"multisig": "treasury", "member": "bob", "index": 1, "vote": "approve"}`, 200, `"status":"approved"`},
		{"reject once approved", `{"multisig": "treasury", "member": "carol", "index": 1, "vote": "reject"}`, 409, "refused"},
	} {
		status, body := serveOnce(t, h, "POST", "/_sim/squads/vote", st.body)
		if status != st.status || !strings.Contains(body, st.want) {
			t.Errorf("%s: %d %s, want %d with %q", st.name, status, body, st.status, st.want)
		}
	}
	status, body := serveOnce(t, h, "GET", "/_sim/squads", "")
	var got SquadsState
	if err := json.Unmarshal([]byte(body), &got); status != 200 || err != nil {
		t.Fatalf("GET /_sim/squads: %d %s (%v)", status, body, err)
	}
	ms := got.Multisigs["treasury"]
	if ms.Address != addr.String() || ms.Vault != vault.String() || ms.TransactionIndex != 1 || len(ms.Proposals) != 1 {
		t.Fatalf("treasury %+v", ms)
	}
	if p := ms.Proposals[0]; p.Status != "approved" || p.Creator != w.String() || len(p.Approved) != 2 ||
		p.Approved[0] == p.Approved[1] || !strings.Contains(ms.Voters["alice"]+ms.Voters["bob"], p.Approved[0]) {
		t.Errorf("proposal %+v, want approved by alice and bob", p)
	}
}
