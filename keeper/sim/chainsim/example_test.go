package chainsim_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// key returns a deterministic keypair for the example.
func key(name string) solana.PrivateKey {
	seed := sha256.Sum256([]byte(name))
	return solana.PrivateKey(ed25519.NewKeyFromSeed(seed[:]))
}

// A market simulator registers its program, sets up balances and lets the
// program move tokens when a transaction calls it.
func ExampleSetup_RegisterProgram() {
	clock := chainsim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	chain, err := chainsim.New(chainsim.Options{Clock: clock, Seed: 1})
	if err != nil {
		panic(err)
	}
	market, user, usdc := key("market").PublicKey(), key("user"), key("usdc").PublicKey()
	vault, _, _ := solana.FindProgramAddress([][]byte{[]byte("vault")}, market)

	// The program: data = amount (u64), accounts = user, user ATA, vault, vault ATA.
	err = chain.Setup.RegisterProgram(market, svm.ProgramFunc(func(x *svm.Exec, ix svm.Instruction) error {
		amount := binary.LittleEndian.Uint64(ix.Data)
		x.Logf("repay %d", amount)
		return x.Tokens.Transfer(ix.Accounts[0].PublicKey, vault, usdc, amount)
	}))
	if err != nil {
		panic(err)
	}
	_ = chain.Setup.Fund(user.PublicKey(), 1_000_000_000)
	_ = chain.Setup.CreateMint(usdc, 6)
	_ = chain.Setup.MintTo(user.PublicKey(), usdc, 5_000_000)
	_ = chain.Setup.MintTo(vault, usdc, 0)
	userATA, _ := svm.AssociatedTokenAddress(user.PublicKey(), usdc)
	vaultATA, _ := svm.AssociatedTokenAddress(vault, usdc)

	ix := solana.NewInstruction(market, solana.AccountMetaSlice{
		solana.Meta(user.PublicKey()).SIGNER().WRITE(),
		solana.Meta(userATA).WRITE(),
		solana.Meta(vault),
		solana.Meta(vaultATA).WRITE(),
	}, binary.LittleEndian.AppendUint64(nil, 1_500_000))
	blockhash, _ := chain.Ledger.LatestBlockhash(rpc.CommitmentConfirmed)
	tx, _ := solana.NewTransaction([]solana.Instruction{ix}, blockhash, solana.TransactionPayer(user.PublicKey()))
	_, _ = tx.Sign(func(solana.PublicKey) *solana.PrivateKey { return &user })
	wire, _ := tx.MarshalBinary()

	sig, err := chain.SendTransaction(wire)
	if err != nil {
		panic(err)
	}
	landed, _ := chain.Ledger.Transaction(sig)
	fmt.Println("err:", landed.Err, "fee:", landed.Fee)
	fmt.Println(landed.Logs[1])
	fmt.Println("user:", chain.State.TokenBalance(user.PublicKey(), usdc), "vault:", chain.State.TokenBalance(vault, usdc))

	clock.Advance(chainsim.SlotDuration)
	status, _ := chain.Ledger.SignatureStatus(sig, false)
	fmt.Println("status:", status.ConfirmationStatus)
	// Output:
	// err: <nil> fee: 5000
	// Program log: repay 1500000
	// user: 3500000 vault: 1500000
	// status: confirmed
}
