package chainsim

import (
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// vaultProgramID is the id of the test program.
var vaultProgramID = newKey("vault-program").PublicKey()

// vaultPDA returns the test program's vault authority, an off-curve address.
func vaultPDA(t testing.TB) solana.PublicKey {
	t.Helper()
	pda, _, err := solana.FindProgramAddress([][]byte{[]byte("vault")}, vaultProgramID)
	if err != nil {
		t.Fatalf("FindProgramAddress: %v", err)
	}
	return pda
}

// vaultProgram is a small program for the tests: it moves tokens between a
// user and its vault and counts deposits in a state account it owns.
type vaultProgram struct{ vault solana.PublicKey }

// Instruction tags of vaultProgram.
const (
	opDeposit   = 1 // user, user ATA, vault, vault ATA, mint, state; amount u64
	opWithdraw  = 2 // same accounts; the vault PDA pays
	opCustomErr = 3
	opPanic     = 4
	opPlainErr  = 5
)

func (p vaultProgram) Execute(x *svm.Exec, ix svm.Instruction) error {
	if len(ix.Data) == 0 {
		return svm.ErrInvalidInstructionData
	}
	switch ix.Data[0] {
	case opCustomErr:
		return svm.CustomError(6001)
	case opPanic:
		panic("boom")
	case opPlainErr:
		return errors.New("vault is paused")
	}
	if len(ix.Data) != 9 || len(ix.Accounts) < 6 {
		return svm.ErrInvalidInstructionData
	}
	amount := binary.LittleEndian.Uint64(ix.Data[1:])
	user, mint, state := ix.Accounts[0].PublicKey, ix.Accounts[4].PublicKey, ix.Accounts[5].PublicKey
	from, to := user, p.vault
	if ix.Data[0] == opWithdraw {
		from, to = p.vault, user
	}
	if err := x.Tokens.Transfer(from, to, mint, amount); err != nil {
		return err
	}
	acct, err := x.Account(state)
	if err != nil {
		return err
	}
	count := uint64(0)
	if len(acct.Data) == 8 {
		count = binary.LittleEndian.Uint64(acct.Data)
	}
	x.Logf("deposit number %d of %d at slot %d", count+1, amount, x.Block().Slot)
	return x.SetData(state, binary.LittleEndian.AppendUint64(nil, count+1))
}

// vaultFixture is a chain with the vault program, a mint and a funded user.
type vaultFixture struct {
	c               *Chain
	user            solana.PrivateKey
	mint, vault     solana.PublicKey
	userATA, vATA   solana.PublicKey
	state           solana.PublicKey
	cl              *rpc.Client
	readonlyUserATA bool
}

func newVaultFixture(t *testing.T) *vaultFixture {
	t.Helper()
	c, _ := newChain(t, Options{})
	f := &vaultFixture{c: c, user: newKey("user"), mint: newKey("usdc").PublicKey(), vault: vaultPDA(t), state: newKey("state").PublicKey()}
	if err := c.Setup.RegisterProgram(vaultProgramID, vaultProgram{vault: f.vault}); err != nil {
		t.Fatalf("RegisterProgram: %v", err)
	}
	mustFund(t, c, f.user.PublicKey(), 10_000_000)
	if err := c.Setup.CreateMint(f.mint, 6); err != nil {
		t.Fatalf("CreateMint: %v", err)
	}
	for wallet, amount := range map[solana.PublicKey]uint64{f.user.PublicKey(): 5_000_000, f.vault: 1_000_000} {
		if err := c.Setup.MintTo(wallet, f.mint, amount); err != nil {
			t.Fatalf("MintTo: %v", err)
		}
	}
	f.userATA, _ = svm.AssociatedTokenAddress(f.user.PublicKey(), f.mint)
	f.vATA, _ = svm.AssociatedTokenAddress(f.vault, f.mint)
	f.cl = rpcClient(t, c)
	return f
}

// ix returns a vault instruction.
func (f *vaultFixture) ix(op byte, amount uint64) solana.Instruction {
	data := binary.LittleEndian.AppendUint64([]byte{op}, amount)
	return solana.NewInstruction(vaultProgramID, solana.AccountMetaSlice{
		solana.NewAccountMeta(f.user.PublicKey(), true, true),
		solana.NewAccountMeta(f.userATA, !f.readonlyUserATA, false),
		solana.NewAccountMeta(f.vault, false, false),
		solana.NewAccountMeta(f.vATA, true, false),
		solana.NewAccountMeta(f.mint, false, false),
		solana.NewAccountMeta(f.state, true, false),
	}, data)
}

// send sends ixs signed by the user without preflight and returns the
// landed transaction.
func (f *vaultFixture) send(t *testing.T, ixs ...solana.Instruction) Landed {
	t.Helper()
	tx := signTx(t, ixs, latest(f.c), f.user)
	sig, err := f.cl.SendTransactionWithOpts(context.Background(), tx, rpc.TransactionOpts{SkipPreflight: true})
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	landed, ok := f.c.Ledger.Transaction(sig)
	if !ok {
		t.Fatalf("transaction %s did not land", sig)
	}
	return landed
}

func TestCustomProgramMovesTokens(t *testing.T) {
	f := newVaultFixture(t)
	landed := f.send(t, f.ix(opDeposit, 1_500_000))
	if landed.Err != nil {
		t.Fatalf("deposit failed: %v; logs %q", landed.Err, landed.Logs)
	}
	if got := f.c.State.TokenBalance(f.user.PublicKey(), f.mint); got != 3_500_000 {
		t.Errorf("user balance = %d, want 3500000", got)
	}
	if got := f.c.State.TokenBalance(f.vault, f.mint); got != 2_500_000 {
		t.Errorf("vault balance = %d, want 2500000", got)
	}
	state, ok := f.c.State.Account(f.state)
	if !ok || state.Owner != vaultProgramID || binary.LittleEndian.Uint64(state.Data) != 1 {
		t.Errorf("state account = %+v, %v; want owned by the program, count 1", state, ok)
	}
	wantLogs := []string{
		"Program " + vaultProgramID.String() + " invoke [1]",
		"Program log: deposit number 1 of 1500000 at slot 0",
		"Program " + vaultProgramID.String() + " consumed 1000 of 200000 compute units",
		"Program " + vaultProgramID.String() + " success",
	}
	if !slices.Equal(landed.Logs, wantLogs) {
		t.Errorf("logs = %q, want %q", landed.Logs, wantLogs)
	}
	if landed = f.send(t, f.ix(opWithdraw, 500_000)); landed.Err != nil {
		t.Fatalf("withdraw by the PDA failed: %v %q", landed.Err, landed.Logs)
	}
	if got := f.c.State.TokenBalance(f.user.PublicKey(), f.mint); got != 4_000_000 {
		t.Errorf("after withdraw user balance = %d, want 4000000", got)
	}
}

func TestCustomProgramFailures(t *testing.T) {
	tests := []struct {
		name     string
		op       byte
		amount   uint64
		setup    func(f *vaultFixture)
		wantErr  *svm.ProgramError
		wantWire any
	}{
		{"custom error", opCustomErr, 0, nil, svm.CustomError(6001), map[string]any{"Custom": 6001}},
		{"panic", opPanic, 0, nil, svm.ErrProgramFailedToComplete, "ProgramFailedToComplete"},
		{"plain error", opPlainErr, 0, nil, svm.ErrGenericError, "GenericError"},
		{"insufficient tokens", opDeposit, 6_000_000, nil, svm.CustomError(svm.TokenErrInsufficientFunds), map[string]any{"Custom": 1}},
		{"read-only token account", opDeposit, 1, func(f *vaultFixture) { f.readonlyUserATA = true }, svm.ErrReadonlyDataModified, "ReadonlyDataModified"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newVaultFixture(t)
			if tt.setup != nil {
				tt.setup(f)
			}
			before := f.c.State.TokenBalance(f.user.PublicKey(), f.mint)
			landed := f.send(t, f.ix(tt.op, tt.amount))
			if !errors.Is(landed.Err, svm.InstructionError(0, tt.wantErr)) {
				t.Fatalf("err = %v, want instruction 0: %v", landed.Err, tt.wantErr)
			}
			st, err := f.cl.GetSignatureStatuses(context.Background(), false, landed.Signature)
			if err != nil || !jsonEqual(t, st.Value[0].Err, map[string]any{"InstructionError": []any{0, tt.wantWire}}) {
				t.Fatalf("wire err = %#v (%v), want InstructionError [0, %v]", st.Value[0].Err, err, tt.wantWire)
			}
			if f.c.State.TokenBalance(f.user.PublicKey(), f.mint) != before {
				t.Fatalf("a failed instruction moved tokens")
			}
			if _, ok := f.c.State.Account(f.state); ok {
				t.Fatalf("a failed instruction wrote state")
			}
		})
	}
}

func TestProgramNeedsAccountsAndSignatures(t *testing.T) {
	f := newVaultFixture(t)
	stranger, bob := newKey("stranger").PublicKey(), newKey("bob").PublicKey()
	if err := f.c.Setup.MintTo(bob, f.mint, 10); err != nil {
		t.Fatalf("MintTo: %v", err)
	}
	bobATA, _ := svm.AssociatedTokenAddress(bob, f.mint)
	tests := []struct {
		name string
		run  func(x *svm.Exec) error
		want *svm.ProgramError
	}{
		{"account not passed", func(x *svm.Exec) error { _, err := x.Account(stranger); return err }, svm.ErrMissingAccount},
		{"wallet not passed", func(x *svm.Exec) error { return x.Tokens.Transfer(stranger, f.vault, f.mint, 1) }, svm.ErrMissingAccount},
		{"wallet did not sign", func(x *svm.Exec) error { return x.Tokens.Transfer(bob, f.vault, f.mint, 1) }, svm.ErrMissingRequiredSignature},
		{"write an account owned by another program", func(x *svm.Exec) error { return x.SetData(f.userATA, []byte{1}) }, svm.ErrExternalAccountDataModified},
		{"spend lamports of a non-signer", func(x *svm.Exec) error { return x.TransferLamports(f.vATA, f.state, 1) }, svm.ErrExternalAccountLamportSpend},
		{"too many units", func(x *svm.Exec) error { return x.ConsumeUnits(300_000) }, svm.ErrComputationalBudgetExceeded},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := newKey("probe-" + tt.name).PublicKey()
			if err := f.c.Setup.RegisterProgram(id, svm.ProgramFunc(func(x *svm.Exec, _ svm.Instruction) error { return tt.run(x) })); err != nil {
				t.Fatalf("RegisterProgram: %v", err)
			}
			metas := append(f.ix(opDeposit, 0).Accounts(), solana.Meta(bob), solana.Meta(bobATA).WRITE())
			landed := f.send(t, solana.NewInstruction(id, metas, []byte{byte(i)}))
			if !errors.Is(landed.Err, tt.want) {
				t.Fatalf("err = %v, want %v", landed.Err, tt.want)
			}
		})
	}
	if err := f.c.Setup.RegisterProgram(solana.TokenProgramID, vaultProgram{}); err == nil {
		t.Fatalf("registering over a built-in program succeeded")
	}
	unknown := solana.NewInstruction(newKey("nobody").PublicKey(), nil, []byte{1})
	if landed := f.send(t, unknown); !errors.Is(landed.Err, svm.ErrUnsupportedProgramID) {
		t.Fatalf("unknown program: err = %v, want UnsupportedProgramId", landed.Err)
	}
}

func TestProgramMintsBurnsAndCreatesTokenAccounts(t *testing.T) {
	f := newVaultFixture(t)
	newcomer := newKey("newcomer").PublicKey()
	newATA, _ := svm.AssociatedTokenAddress(newcomer, f.mint)
	id := newKey("minter").PublicKey()
	err := f.c.Setup.RegisterProgram(id, svm.ProgramFunc(func(x *svm.Exec, ix svm.Instruction) error {
		user := ix.Accounts[0].PublicKey
		if err := x.Tokens.EnsureAccount(user, newcomer, f.mint); err != nil {
			return err
		}
		if err := x.Tokens.EnsureAccount(user, newcomer, f.mint); err != nil { // idempotent
			return err
		}
		if err := x.Tokens.Mint(newcomer, f.mint, 70); err != nil {
			return err
		}
		if err := x.Tokens.Burn(user, f.mint, 20); err != nil {
			return err
		}
		bal, err := x.Tokens.Balance(newcomer, f.mint)
		x.Logf("newcomer holds %d", bal)
		return err
	}))
	if err != nil {
		t.Fatalf("RegisterProgram: %v", err)
	}
	lamportsBefore := f.c.State.Balance(f.user.PublicKey())
	landed := f.send(t, solana.NewInstruction(id, solana.AccountMetaSlice{
		solana.Meta(f.user.PublicKey()).SIGNER().WRITE(),
		solana.Meta(f.userATA).WRITE(),
		solana.Meta(f.mint).WRITE(),
		solana.Meta(newcomer),
		solana.Meta(newATA).WRITE(),
	}, nil))
	if landed.Err != nil {
		t.Fatalf("err = %v, logs %q", landed.Err, landed.Logs)
	}
	if !slices.Contains(landed.Logs, "Program log: newcomer holds 70") {
		t.Errorf("logs = %q", landed.Logs)
	}
	if f.c.State.TokenBalance(newcomer, f.mint) != 70 || f.c.State.TokenBalance(f.user.PublicKey(), f.mint) != 4_999_980 {
		t.Errorf("balances newcomer %d user %d", f.c.State.TokenBalance(newcomer, f.mint), f.c.State.TokenBalance(f.user.PublicKey(), f.mint))
	}
	if got, want := f.c.State.Balance(f.user.PublicKey()), lamportsBefore-5000-svm.TokenAccountRent; got != want {
		t.Errorf("user lamports = %d, want %d (fee and rent)", got, want)
	}
	a, _ := f.c.State.Account(f.mint)
	if m, _ := svm.DecodeMint(a.Data); m.Supply != 6_000_000+70-20 {
		t.Errorf("supply = %d, want %d", m.Supply, 6_000_000+70-20)
	}
}
