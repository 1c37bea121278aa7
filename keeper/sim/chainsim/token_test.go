package chainsim

import (
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	ata "github.com/gagliardetto/solana-go/programs/associated-token-account"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// tokenFixture is a chain with a 6-decimal mint, alice holding 1000 and bob
// holding 0.
type tokenFixture struct {
	c                  *Chain
	alice, bob         solana.PrivateKey
	mint               solana.PublicKey
	aliceATA, bobATA   solana.PublicKey
	aliceLamportsStart uint64
}

func newTokenFixture(t *testing.T) *tokenFixture {
	t.Helper()
	c, _ := newChain(t, Options{})
	f := &tokenFixture{c: c, alice: newKey("alice"), bob: newKey("bob"), mint: newKey("mint").PublicKey(), aliceLamportsStart: 100_000_000}
	mustFund(t, c, f.alice.PublicKey(), f.aliceLamportsStart)
	mustFund(t, c, f.bob.PublicKey(), 100_000_000)
	if err := c.Setup.CreateMint(f.mint, 6); err != nil {
		t.Fatalf("CreateMint: %v", err)
	}
	if err := c.Setup.MintTo(f.alice.PublicKey(), f.mint, 1000); err != nil {
		t.Fatalf("MintTo: %v", err)
	}
	if err := c.Setup.MintTo(f.bob.PublicKey(), f.mint, 0); err != nil {
		t.Fatalf("MintTo: %v", err)
	}
	f.aliceATA, _ = svm.AssociatedTokenAddress(f.alice.PublicKey(), f.mint)
	f.bobATA, _ = svm.AssociatedTokenAddress(f.bob.PublicKey(), f.mint)
	return f
}

// run lands ixs paid by payer and returns the instruction error.
func (f *tokenFixture) run(t *testing.T, payer solana.PrivateKey, ixs ...solana.Instruction) *svm.TxError {
	t.Helper()
	sig, err := f.c.SendTransaction(raw(t, signTx(t, ixs, latest(f.c), payer)))
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	landed, _ := f.c.Ledger.Transaction(sig)
	return landed.Err
}

// supply returns the mint's supply.
func (f *tokenFixture) supply(t *testing.T) uint64 {
	t.Helper()
	a, _ := f.c.State.Account(f.mint)
	m, ok := svm.DecodeMint(a.Data)
	if !ok {
		t.Fatalf("mint account is not a mint")
	}
	return m.Supply
}

func TestTokenProgram(t *testing.T) {
	none := []solana.PublicKey(nil)
	tests := []struct {
		name      string
		run       func(t *testing.T, f *tokenFixture) *svm.TxError
		want      error
		alice     uint64
		bob       uint64
		supply    uint64
		wantAlive bool
	}{
		{"transfer", func(t *testing.T, f *tokenFixture) *svm.TxError {
			return f.run(t, f.alice, token.NewTransferInstruction(400, f.aliceATA, f.bobATA, f.alice.PublicKey(), none).Build())
		}, nil, 600, 400, 1000, true},
		{"transfer signed by a stranger", func(t *testing.T, f *tokenFixture) *svm.TxError {
			return f.run(t, f.bob, token.NewTransferInstruction(400, f.aliceATA, f.bobATA, f.bob.PublicKey(), none).Build())
		}, svm.CustomError(svm.TokenErrOwnerMismatch), 1000, 0, 1000, true},
		{"transfer more than the balance", func(t *testing.T, f *tokenFixture) *svm.TxError {
			return f.run(t, f.alice, token.NewTransferInstruction(1001, f.aliceATA, f.bobATA, f.alice.PublicKey(), none).Build())
		}, svm.CustomError(svm.TokenErrInsufficientFunds), 1000, 0, 1000, true},
		{"transfer checked", func(t *testing.T, f *tokenFixture) *svm.TxError {
			return f.run(t, f.alice, token.NewTransferCheckedInstruction(250, 6, f.aliceATA, f.mint, f.bobATA, f.alice.PublicKey(), none).Build())
		}, nil, 750, 250, 1000, true},
		{"transfer checked with wrong decimals", func(t *testing.T, f *tokenFixture) *svm.TxError {
			return f.run(t, f.alice, token.NewTransferCheckedInstruction(250, 9, f.aliceATA, f.mint, f.bobATA, f.alice.PublicKey(), none).Build())
		}, svm.CustomError(svm.TokenErrMintDecimalsMismatch), 1000, 0, 1000, true},
		{"delegate spends its allowance, then no more", func(t *testing.T, f *tokenFixture) *svm.TxError {
			if err := f.run(t, f.alice, token.NewApproveInstruction(300, f.aliceATA, f.bob.PublicKey(), f.alice.PublicKey(), none).Build()); err != nil {
				t.Fatalf("approve: %v", err)
			}
			if err := f.run(t, f.bob, token.NewTransferInstruction(300, f.aliceATA, f.bobATA, f.bob.PublicKey(), none).Build()); err != nil {
				t.Fatalf("delegate transfer: %v", err)
			}
			return f.run(t, f.bob, token.NewTransferInstruction(1, f.aliceATA, f.bobATA, f.bob.PublicKey(), none).Build())
		}, svm.CustomError(svm.TokenErrOwnerMismatch), 700, 300, 1000, true},
		{"new owner spends, old owner cannot", func(t *testing.T, f *tokenFixture) *svm.TxError {
			if err := f.run(t, f.alice, token.NewSetAuthorityInstruction(token.AuthorityAccountOwner, f.bob.PublicKey(), f.aliceATA, f.alice.PublicKey(), none).Build()); err != nil {
				t.Fatalf("set authority: %v", err)
			}
			if err := f.run(t, f.bob, token.NewTransferInstruction(100, f.aliceATA, f.bobATA, f.bob.PublicKey(), none).Build()); err != nil {
				t.Fatalf("new owner transfer: %v", err)
			}
			return f.run(t, f.alice, token.NewTransferInstruction(100, f.aliceATA, f.bobATA, f.alice.PublicKey(), none).Build())
		}, svm.CustomError(svm.TokenErrOwnerMismatch), 900, 100, 1000, true},
		{"close an account holding tokens", func(t *testing.T, f *tokenFixture) *svm.TxError {
			return f.run(t, f.alice, token.NewCloseAccountInstruction(f.aliceATA, f.alice.PublicKey(), f.alice.PublicKey(), none).Build())
		}, svm.CustomError(svm.TokenErrNonNativeHasBalance), 1000, 0, 1000, true},
		{"burn", func(t *testing.T, f *tokenFixture) *svm.TxError {
			return f.run(t, f.alice, token.NewBurnInstruction(100, f.aliceATA, f.mint, f.alice.PublicKey(), none).Build())
		}, nil, 900, 0, 900, true},
		{"burn checked with wrong decimals", func(t *testing.T, f *tokenFixture) *svm.TxError {
			return f.run(t, f.alice, token.NewBurnCheckedInstruction(100, 2, f.aliceATA, f.mint, f.alice.PublicKey(), none).Build())
		}, svm.CustomError(svm.TokenErrMintDecimalsMismatch), 1000, 0, 1000, true},
		{"empty and close", func(t *testing.T, f *tokenFixture) *svm.TxError {
			return f.run(t, f.alice,
				token.NewTransferInstruction(1000, f.aliceATA, f.bobATA, f.alice.PublicKey(), none).Build(),
				token.NewCloseAccountInstruction(f.aliceATA, f.alice.PublicKey(), f.alice.PublicKey(), none).Build())
		}, nil, 0, 1000, 1000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newTokenFixture(t)
			err := tt.run(t, f)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if got := f.c.State.TokenBalance(f.alice.PublicKey(), f.mint); got != tt.alice {
				t.Errorf("alice = %d, want %d", got, tt.alice)
			}
			if got := f.c.State.TokenBalance(f.bob.PublicKey(), f.mint); got != tt.bob {
				t.Errorf("bob = %d, want %d", got, tt.bob)
			}
			if got := f.supply(t); got != tt.supply {
				t.Errorf("supply = %d, want %d", got, tt.supply)
			}
			if _, alive := f.c.State.Account(f.aliceATA); alive != tt.wantAlive {
				t.Errorf("alice's token account exists = %v, want %v", alive, tt.wantAlive)
			}
		})
	}
}

func TestCloseAccountReturnsRent(t *testing.T) {
	f := newTokenFixture(t)
	err := f.run(t, f.alice,
		token.NewTransferInstruction(1000, f.aliceATA, f.bobATA, f.alice.PublicKey(), nil).Build(),
		token.NewCloseAccountInstruction(f.aliceATA, f.alice.PublicKey(), f.alice.PublicKey(), nil).Build())
	if err != nil {
		t.Fatalf("close: %v", err)
	}
	if got, want := f.c.State.Balance(f.alice.PublicKey()), f.aliceLamportsStart-5000+svm.TokenAccountRent; got != want {
		t.Fatalf("alice lamports = %d, want %d (rent returned, fee paid)", got, want)
	}
}

func TestAssociatedTokenAccountProgram(t *testing.T) {
	f := newTokenFixture(t)
	carol := newKey("carol").PublicKey()
	create := ata.NewCreateInstruction(f.alice.PublicKey(), carol, f.mint).Build()
	if err := f.run(t, f.alice, create); err != nil {
		t.Fatalf("create: %v", err)
	}
	carolATA, _ := svm.AssociatedTokenAddress(carol, f.mint)
	a, ok := f.c.State.Account(carolATA)
	if ta, dec := svm.DecodeTokenAccount(a.Data); !ok || !dec || ta.Owner != carol || ta.Mint != f.mint || a.Lamports != svm.TokenAccountRent {
		t.Fatalf("created account = %+v (decoded %v)", a, dec)
	}
	if got, want := f.c.State.Balance(f.alice.PublicKey()), f.aliceLamportsStart-5000-svm.TokenAccountRent; got != want {
		t.Fatalf("payer balance = %d, want %d", got, want)
	}
	// Create again fails; CreateIdempotent (data [1]) succeeds.
	if err := f.run(t, f.alice, create, token.NewTransferInstruction(1, f.aliceATA, carolATA, f.alice.PublicKey(), nil).Build()); !errors.Is(err, svm.CustomError(0)) {
		t.Fatalf("second create: err = %v, want Custom(0)", err)
	}
	idem := solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, create.Accounts(), []byte{1})
	unsigned := solana.NewInstruction(solana.TokenProgramID, solana.AccountMetaSlice{
		solana.Meta(f.aliceATA).WRITE(), solana.Meta(carolATA).WRITE(), solana.Meta(f.alice.PublicKey()),
	}, []byte{3, 1, 0, 0, 0, 0, 0, 0, 0})
	idemByBob := solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, ata.NewCreateInstruction(f.bob.PublicKey(), carol, f.mint).Build().Accounts(), []byte{1})
	if err := f.run(t, f.bob, idemByBob, unsigned); !errors.Is(err, svm.InstructionError(1, svm.ErrMissingRequiredSignature)) {
		t.Fatalf("idempotent create with a transfer alice did not sign: err = %v", err)
	}
	if err := f.run(t, f.alice, idem); err != nil {
		t.Fatalf("idempotent create: %v", err)
	}
	wrong := create.Accounts()
	wrong[1] = solana.Meta(f.bobATA).WRITE()
	if err := f.run(t, f.alice, solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, wrong, nil)); !errors.Is(err, svm.ErrInvalidSeeds) {
		t.Fatalf("create at a wrong address: err = %v, want InvalidSeeds", err)
	}
}
