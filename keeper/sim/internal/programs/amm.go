package programs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
)

// The swap program is the simulator's stand-in for the DEXes Jupiter routes through: a
// constant-product AMM (x·y = k, a fee taken from the input), far simpler than real pools
// (concentrated liquidity, several hops), but enough that depth sets the price impact and a moved
// price or a thin pool changes what a swap yields on chain.
//
// A pool is an account of the swap program at ids.AMMPool(name) whose data is ammDisc followed by the
// JSON of AMMPool; its reserves are the balances of its two associated token accounts.
var ammDisc = [8]byte{'S', 'i', 'm', 'A', 'M', 'M', 'v', '1'}

// Custom errors of the swap program.
const (
	errCodeSwapSlippage = 6020 // the output is below the instruction's minimum
	errCodeSwapPool     = 6021 // the pool or its mints are not what the instruction names
)

// AMMPool is an AMM pool's on-chain record.
type AMMPool struct {
	Name   string `json:"name"`
	MintA  string `json:"mintA"`
	MintB  string `json:"mintB"`
	FeeBps uint16 `json:"feeBps"`
	// Swaps counts the swaps the pool executed: the simulator's record of every sale.
	Swaps uint64 `json:"swaps,omitempty"`
}

// EncodeAMMPool returns the account data of p.
func EncodeAMMPool(p AMMPool) []byte {
	b, _ := json.Marshal(p) // a struct of strings and an integer always encodes
	return append(ammDisc[:], b...)
}

// DecodeAMMPool decodes a pool account's data.
func DecodeAMMPool(data []byte) (*AMMPool, error) {
	if len(data) < 8 || !bytes.Equal(data[:8], ammDisc[:]) {
		return nil, fmt.Errorf("not an AMM pool account")
	}
	p := &AMMPool{}
	if err := json.Unmarshal(data[8:], p); err != nil {
		return nil, fmt.Errorf("AMM pool: %w", err)
	}
	return p, nil
}

// AMMOut is what a constant-product pool with reserves rin, rout pays for in, after a fee of feeBps
// taken from the input: rout·in' / (rin + in'), in' = in·(10000−fee)/10000, rounded down.
func AMMOut(rin, rout, in uint64, feeBps uint16) uint64 {
	net := new(big.Int).Mul(new(big.Int).SetUint64(in), big.NewInt(int64(10000-feeBps)))
	num := new(big.Int).Mul(net, new(big.Int).SetUint64(rout))
	den := new(big.Int).Add(new(big.Int).Mul(new(big.Int).SetUint64(rin), big.NewInt(10000)), net)
	if den.Sign() == 0 {
		return 0
	}
	return num.Quo(num, den).Uint64()
}

// AMMIn is the least input a constant-product pool with reserves rin, rout takes to pay out, after a
// fee of feeBps taken from the input: the smallest in with AMMOut(rin, rout, in, feeBps) ≥ out,
// ⌈out·rin·10000 / ((rout−out)·(10000−fee))⌉. False when the pool cannot pay out (out ≥ rout) or
// the input would not fit in 64 bits.
func AMMIn(rin, rout, out uint64, feeBps uint16) (uint64, bool) {
	if out == 0 || out >= rout || feeBps >= 10000 {
		return 0, false
	}
	num := new(big.Int).Mul(new(big.Int).SetUint64(out), new(big.Int).SetUint64(rin))
	num.Mul(num, big.NewInt(10000))
	den := new(big.Int).Mul(new(big.Int).SetUint64(rout-out), big.NewInt(int64(10000-feeBps)))
	in, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	if rem.Sign() > 0 {
		in.Add(in, big.NewInt(1))
	}
	if !in.IsUint64() {
		return 0, false
	}
	return in.Uint64(), true
}

// Swap instruction accounts.
const (
	swapUser = iota // signer: pays the input
	swapPool
	swapMintIn
	swapMintOut
	swapUserIn  // the user's input token account
	swapPoolIn  // the pool's input token account
	swapPoolOut // the pool's output token account
	swapDest    // the owner the output goes to
	swapDestOut // its output token account
	swapTokenProgram
	swapAccounts
)

// SwapAccounts returns the accounts of a swap by user in pool from mintIn to mintOut, paying the
// output to dest.
func SwapAccounts(user, pool, mintIn, mintOut, dest solana.PublicKey) []solana.AccountMeta {
	ata := func(w, m solana.PublicKey) solana.PublicKey { a, _ := svm.AssociatedTokenAddress(w, m); return a }
	return []solana.AccountMeta{
		{PublicKey: user, IsSigner: true, IsWritable: true}, {PublicKey: pool, IsWritable: true},
		{PublicKey: mintIn}, {PublicKey: mintOut},
		{PublicKey: ata(user, mintIn), IsWritable: true}, {PublicKey: ata(pool, mintIn), IsWritable: true},
		{PublicKey: ata(pool, mintOut), IsWritable: true}, {PublicKey: dest}, {PublicKey: ata(dest, mintOut), IsWritable: true},
		{PublicKey: solana.TokenProgramID},
	}
}

// swapTerms is what one swap instruction asks: an exact input with a minimum output, or an exact
// output with a maximum input.
type swapTerms struct {
	exactOut      bool
	amount, bound uint64 // the exact side and the other side's bound
}

// readSwap decodes a swap instruction's data.
func readSwap(data []byte) (swapTerms, error) {
	if len(data) == 0 {
		return swapTerms{}, svm.ErrInvalidInstructionData
	}
	r := &instr.DataReader{B: data[1:]}
	var t swapTerms
	switch data[0] {
	case instr.SwapOpSwap:
		op := instr.ReadOp[instr.SwapOp](r)
		t = swapTerms{amount: op.AmountIn, bound: op.MinOut}
	case instr.SwapOpExactOut:
		op := instr.ReadOp[instr.SwapExactOutOp](r)
		t = swapTerms{exactOut: true, amount: op.AmountOut, bound: op.MaxIn}
	default:
		return swapTerms{}, svm.ErrInvalidInstructionData
	}
	return t, finish(r)
}

// price returns what a swap of t through reserves rin, rout takes and pays, or the program's error
// when it breaks its bound.
func (t swapTerms) price(rin, rout uint64, feeBps uint16) (in, out uint64, err error) {
	if !t.exactOut {
		out = AMMOut(rin, rout, t.amount, feeBps)
		if out < t.bound || out == 0 {
			return 0, 0, programError(errCodeSwapSlippage, "swap of %d yields %d, below the minimum %d", t.amount, out, t.bound)
		}
		return t.amount, out, nil
	}
	in, ok := AMMIn(rin, rout, t.amount, feeBps)
	if !ok || in > t.bound {
		return 0, 0, programError(errCodeSwapSlippage, "buying %d needs %d (reserves %d/%d), above the maximum input %d", t.amount, in, rin, rout, t.bound)
	}
	return in, t.amount, nil
}

// ExecuteSwap runs one instruction of the swap program: an exact-input sale (SwapOpSwap) or an
// exact-output purchase (SwapOpExactOut) through one pool, counted in the pool's record.
func ExecuteSwap(x *svm.Exec, in svm.Instruction) error {
	t, err := readSwap(in.Data)
	if err != nil {
		return err
	}
	if len(in.Accounts) < swapAccounts {
		return svm.ErrNotEnoughAccountKeys
	}
	acct := func(i int) solana.PublicKey { return in.Accounts[i].PublicKey }
	pool, mintIn, mintOut := acct(swapPool), acct(swapMintIn), acct(swapMintOut)
	a, err := x.Account(pool)
	if err != nil {
		return err
	}
	if a.Owner != ids.SwapProgramID {
		return programError(errCodeSwapPool, "account %s is not an AMM pool", pool)
	}
	p, err := DecodeAMMPool(a.Data)
	if err != nil {
		return programError(errCodeSwapPool, "%v", err)
	}
	pair := func(m solana.PublicKey) bool { return m.String() == p.MintA || m.String() == p.MintB }
	if !pair(mintIn) || !pair(mintOut) || mintIn == mintOut {
		return programError(errCodeSwapPool, "pool %s trades %s/%s, not %s → %s", p.Name, p.MintA, p.MintB, mintIn, mintOut)
	}
	rin, err := x.Tokens.Balance(pool, mintIn)
	if err != nil {
		return err
	}
	rout, err := x.Tokens.Balance(pool, mintOut)
	if err != nil {
		return err
	}
	paid, got, err := t.price(rin, rout, p.FeeBps)
	if err != nil {
		return err
	}
	if err := x.Tokens.Transfer(acct(swapUser), pool, mintIn, paid); err != nil {
		return err
	}
	if err := x.Tokens.Transfer(pool, acct(swapDest), mintOut, got); err != nil {
		return err
	}
	p.Swaps++
	if err := x.SetData(pool, EncodeAMMPool(*p)); err != nil {
		return err
	}
	x.Logf("swap: %d of %s for %d of %s in pool %s", paid, mintIn, got, mintOut, p.Name)
	return nil
}
