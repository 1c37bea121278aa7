package signer_test

import (
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/keeper-project/keeper/signer"
)

// transferMessage compiles one System transfer into message bytes.
func transferMessage(from, to solana.PublicKey, lamports uint64) ([]byte, error) {
	tx, err := solana.NewTransaction([]solana.Instruction{system.NewTransferInstruction(lamports, from, to).Build()},
		solana.Hash{1}, solana.TransactionPayer(from))
	if err != nil {
		return nil, err
	}
	return tx.Message.MarshalBinary()
}

func Example() {
	// In production: signer.Load(signer.KeySource{Path: "~/.config/solana/id.json"}).
	key, err := signer.Generate()
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := key.WithGuard(signer.GuardConfig{MarketProgram: "11111111111111111111111111111112"})
	if err != nil {
		fmt.Println(err)
		return
	}
	tipAccount := solana.MustPublicKeyFromBase58("96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5")
	stranger := solana.MustPublicKeyFromBase58("4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T")

	// Keeper's own Jito tip passes the guard and is signed.
	tip, err := transferMessage(s.PublicKey(), tipAccount, 10_000)
	if err != nil {
		fmt.Println(err)
		return
	}
	signed, err := s.SignTip(tip, []string{tipAccount.String()}, 50_000)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("tip signed:", len(signed.Wire), "wire bytes; the id is our signature:", signed.TxID == signed.Signature)

	// A "repay" that would send our SOL to a stranger is refused, unsigned.
	drain, err := transferMessage(s.PublicKey(), stranger, 5_000_000_000)
	if err != nil {
		fmt.Println(err)
		return
	}
	tx, err := signer.DecodeAPITransaction(base64.StdEncoding.EncodeToString(drain), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = s.Sign(tx, signer.KindRepay, signer.Bounds{MaxLamports: 50_000})
	if r, ok := errors.AsType[*signer.Refusal](err); ok {
		fmt.Println("refused by rule", r.Rule, "at instruction", r.Instruction)
	}

	// A Signer never prints its secret.
	fmt.Println(fmt.Sprintf("%v", key) == "signer("+key.PublicKey().String()+")")
	// Output:
	// tip signed: 215 wire bytes; the id is our signature: true
	// refused by rule sol-transfer at instruction 0
	// true
}
