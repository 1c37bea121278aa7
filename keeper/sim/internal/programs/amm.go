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

// ExecuteSwap runs one instruction of the swap program.
func ExecuteSwap(x *svm.Exec, in svm.Instruction) error {
	if len(in.Data) == 0 || in.Data[0] != instr.SwapOpSwap {
		return svm.ErrInvalidInstructionData
	}
	if len(in.Accounts) < swapAccounts {
		return svm.ErrNotEnoughAccountKeys
	}
	r := &instr.DataReader{B: in.Data[1:]}
	op := instr.ReadOp[instr.SwapOp](r)
	if err := finish(r); err != nil {
		return err
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
	out := AMMOut(rin, rout, op.AmountIn, p.FeeBps)
	if out < op.MinOut || out == 0 {
		return programError(errCodeSwapSlippage, "swap of %d yields %d, below the minimum %d", op.AmountIn, out, op.MinOut)
	}
	if err := x.Tokens.Transfer(acct(swapUser), pool, mintIn, op.AmountIn); err != nil {
		return err
	}
	if err := x.Tokens.Transfer(pool, acct(swapDest), mintOut, out); err != nil {
		return err
	}
	x.Logf("swap: %d of %s for %d of %s in pool %s", op.AmountIn, mintIn, out, mintOut, p.Name)
	return nil
}
