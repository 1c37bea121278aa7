package squadsim_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/squadsim"
	"github.com/keeper-project/keeper/keeper/squads"
)

func key(name string) solana.PrivateKey {
	seed := sha256.Sum256([]byte(name))
	return solana.PrivateKey(ed25519.NewKeyFromSeed(seed[:]))
}

// fixture is a chain with a 2-of-3 multisig whose keeper member may
// initiate and execute, and whose vault holds 10 SOL.
type fixture struct {
	t            *testing.T
	chain        *chainsim.Chain
	clock        *chainsim.ManualClock
	keeper       solana.PrivateKey
	voters       []solana.PrivateKey
	multisig     solana.PublicKey
	vault, payee solana.PublicKey
}

func newFixture(t *testing.T, timeLock uint32) *fixture {
	t.Helper()
	clock := chainsim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	chain, err := chainsim.New(chainsim.Options{Clock: clock, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := squadsim.Register(chain); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, chain: chain, clock: clock, keeper: key("keeper"),
		voters: []solana.PrivateKey{key("alice"), key("bob"), key("carol")}, payee: key("payee").PublicKey()}
	members := []squads.Member{{Key: f.keeper.PublicKey(), Permissions: squads.Initiate | squads.Execute}}
	for _, v := range f.voters {
		members = append(members, squads.Member{Key: v.PublicKey(), Permissions: squads.Vote})
		_ = chain.Setup.Fund(v.PublicKey(), 1_000_000_000)
	}
	_ = chain.Setup.Fund(f.keeper.PublicKey(), 1_000_000_000)
	f.multisig, err = squadsim.Create(chain, squadsim.Config{CreateKey: key("create").PublicKey(), Members: members, Threshold: 2, TimeLock: timeLock})
	if err != nil {
		t.Fatal(err)
	}
	f.vault, _ = squads.VaultPDA(f.multisig, 0)
	_ = chain.Setup.Fund(f.vault, 10_000_000_000)
	return f
}

// transferMessage is the vault's message paying lamports to the payee.
func (f *fixture) transferMessage(lamports uint64) *squads.Message {
	ix := system.NewTransferInstruction(lamports, f.vault, f.payee).Build()
	tx, err := solana.NewTransaction([]solana.Instruction{ix}, solana.Hash{}, solana.TransactionPayer(f.vault))
	if err != nil {
		f.t.Fatal(err)
	}
	m, err := squads.FromSolana(&tx.Message)
	if err != nil {
		f.t.Fatal(err)
	}
	return m
}

// propose lands vault_transaction_create and proposal_create at index.
func (f *fixture) propose(index uint64, m *squads.Message) error {
	k := f.keeper.PublicKey()
	f.clock.Advance(chainsim.SlotDuration)
	return squadsim.Send(f.chain, f.keeper,
		squads.VaultTransactionCreate(f.multisig, index, k, k, squads.CreateArgs{Message: m.Encode()}),
		squads.ProposalCreate(f.multisig, index, k, k))
}

// execute lands vault_transaction_execute of index by keeper.
func (f *fixture) execute(index uint64, m *squads.Message) error {
	rest, err := squads.ExecuteAccounts(m, nil, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	f.clock.Advance(chainsim.SlotDuration)
	return squadsim.Send(f.chain, f.keeper, squads.VaultTransactionExecute(f.multisig, index, f.keeper.PublicKey(), rest))
}

func (f *fixture) proposal(index uint64) *squads.Proposal {
	k, _ := squads.ProposalPDA(f.multisig, index)
	a, ok := f.chain.State.Account(k)
	if !ok {
		f.t.Fatalf("no proposal %d", index)
	}
	p, err := squads.DecodeProposal(a.Data)
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

func wantCode(t *testing.T, err error, code uint32) {
	t.Helper()
	if !errors.Is(err, svm.CustomError(code)) {
		t.Fatalf("error %v, want custom error %d", err, code)
	}
}

// TestProposeApproveExecute walks a proposal through its life: created once
// (a second create at the same index is refused by the seeds constraint),
// not executable before approval, approved by two voters, executed once
// with the vault signing the transfer, refused a second execution.
func TestProposeApproveExecute(t *testing.T) {
	f := newFixture(t, 0)
	m := f.transferMessage(1_000_000_000)
	if err := f.propose(1, m); err != nil {
		t.Fatal(err)
	}
	if err := f.propose(1, m); !errors.Is(err, svm.CustomError(2006)) {
		t.Fatalf("a second proposal at index 1: %v, want ConstraintSeeds", err)
	}
	wantCode(t, f.execute(1, m), 6008) // InvalidProposalStatus: not approved yet
	wantCode(t, squadsim.Approve(f.chain, f.multisig, 1, f.keeper), 6004)
	if err := squadsim.Approve(f.chain, f.multisig, 1, f.voters[0]); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(chainsim.SlotDuration) // a new blockhash: another transaction
	wantCode(t, squadsim.Approve(f.chain, f.multisig, 1, f.voters[0]), 6010)
	if p := f.proposal(1); p.Status != squads.StatusActive {
		t.Fatalf("after one approval the proposal is %s", p.Status)
	}
	if err := squadsim.Approve(f.chain, f.multisig, 1, f.voters[1]); err != nil {
		t.Fatal(err)
	}
	if p := f.proposal(1); p.Status != squads.StatusApproved || len(p.Approved) != 2 {
		t.Fatalf("after two approvals the proposal is %s with %d approvals", p.Status, len(p.Approved))
	}
	if err := f.execute(1, m); err != nil {
		t.Fatal(err)
	}
	if got := f.chain.State.Balance(f.payee); got != 1_000_000_000 {
		t.Fatalf("payee holds %d lamports, want 1 SOL", got)
	}
	if p := f.proposal(1); p.Status != squads.StatusExecuted {
		t.Fatalf("after execution the proposal is %s", p.Status)
	}
	wantCode(t, f.execute(1, m), 6008)
	if got := f.chain.State.Balance(f.payee); got != 1_000_000_000 {
		t.Fatalf("payee holds %d lamports after a second execute", got)
	}
}

// TestRejected: two of three voters reject (cutoff 3 − 2 + 1); the proposal
// cannot be executed or approved after.
func TestRejected(t *testing.T) {
	f := newFixture(t, 0)
	m := f.transferMessage(1)
	if err := f.propose(1, m); err != nil {
		t.Fatal(err)
	}
	for _, v := range f.voters[:2] {
		if err := squadsim.Reject(f.chain, f.multisig, 1, v); err != nil {
			t.Fatal(err)
		}
	}
	if p := f.proposal(1); p.Status != squads.StatusRejected {
		t.Fatalf("proposal is %s, want rejected", p.Status)
	}
	wantCode(t, squadsim.Approve(f.chain, f.multisig, 1, f.voters[2]), 6008)
	wantCode(t, f.execute(1, m), 6008)
}

// TestTimeLock: an approved proposal executes only once the time lock passed.
func TestTimeLock(t *testing.T) {
	f := newFixture(t, 3600)
	m := f.transferMessage(1)
	if err := f.propose(1, m); err != nil {
		t.Fatal(err)
	}
	for _, v := range f.voters[:2] {
		if err := squadsim.Approve(f.chain, f.multisig, 1, v); err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, f.execute(1, m), 6021)
	f.clock.Advance(time.Hour)
	if err := f.execute(1, m); err != nil {
		t.Fatal(err)
	}
}

// TestStale: a config change makes earlier transactions stale: no votes,
// no new proposal at their index; the next index proposes normally.
func TestStale(t *testing.T) {
	f := newFixture(t, 0)
	m := f.transferMessage(1)
	k := f.keeper.PublicKey()
	if err := squadsim.Send(f.chain, f.keeper, squads.VaultTransactionCreate(f.multisig, 1, k, k, squads.CreateArgs{Message: m.Encode()})); err != nil {
		t.Fatal(err)
	}
	if err := squadsim.Configure(f.chain, f.multisig, nil, 0, 0); err != nil {
		t.Fatal(err)
	}
	wantCode(t, squadsim.Send(f.chain, f.keeper, squads.ProposalCreate(f.multisig, 1, k, k)), 6007)
	if err := f.propose(2, m); err != nil {
		t.Fatal(err)
	}
	if got := readMultisig(t, f); got.TransactionIndex != 2 || got.StaleTransactionIndex != 1 {
		t.Fatalf("indexes %d/%d, want 2/1", got.TransactionIndex, got.StaleTransactionIndex)
	}
}

// TestForeignSigner: a message another key must sign executes only if that
// key signs the execute transaction (ExecutableTransactionMessage).
func TestForeignSigner(t *testing.T) {
	f := newFixture(t, 0)
	other := key("other").PublicKey()
	_ = f.chain.Setup.Fund(other, 1_000_000_000)
	ix := system.NewTransferInstruction(5, other, f.payee).Build()
	tx, _ := solana.NewTransaction([]solana.Instruction{ix}, solana.Hash{}, solana.TransactionPayer(f.vault))
	m, err := squads.FromSolana(&tx.Message)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.propose(1, m); err != nil {
		t.Fatal(err)
	}
	for _, v := range f.voters[:2] {
		if err := squadsim.Approve(f.chain, f.multisig, 1, v); err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, f.execute(1, m), 6014)
}

func readMultisig(t *testing.T, f *fixture) *squads.Multisig {
	t.Helper()
	a, _ := f.chain.State.Account(f.multisig)
	ms, err := squads.DecodeMultisig(a.Data)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}
