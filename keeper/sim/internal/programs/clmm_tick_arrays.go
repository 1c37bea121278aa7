package programs

import (
	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// loadTicks reads the tick arrays of r's lower and upper ticks from instruction accounts at and
// at+1, which must be the arrays' addresses (as the programs check their PDAs). An array that does
// not exist yet loads as empty.
func loadTicks(x *svm.Exec, in svm.Instruction, at int, dex Dex, poolKey solana.PublicKey, pool clmm.Pool, r clmm.Range) (*TickBook, []solana.PublicKey, error) {
	b := NewTickBook(dex, poolKey, pool.TickSpacing, false)
	if len(in.Accounts) < at+2 {
		return nil, nil, svm.ErrNotEnoughAccountKeys
	}
	var keys []solana.PublicKey
	for i, tick := range []int32{r.Lower, r.Upper} {
		start := b.Start(tick)
		key := in.Accounts[at+i].PublicKey
		if want := b.Address(start); key != want {
			return nil, nil, programError(errCodeWrongAccount, "tick array %s is not the array %s of tick %d", key, want, tick)
		}
		a, err := x.Account(key)
		if err != nil {
			return nil, nil, err
		}
		if len(a.Data) > 0 && a.Owner != dex.Program {
			return nil, nil, programError(errCodeWrongAccount, "tick array %s is not owned by %s", key, dex.Name)
		}
		if _, loaded := b.Arrays[start]; !loaded {
			if err := b.Load(start, a.Data); err != nil {
				return nil, nil, programError(errCodeWrongAccount, "%v", err)
			}
			b.dynamic = b.dynamic || (len(a.Data) > 0 && b.Arrays[start].Dynamic)
			keys = append(keys, key)
		}
	}
	return b, keys, nil
}

// moveRange is dex-a's set-range: the position's fees are brought up to date, its liquidity leaves
// the old range's ticks (and the pool's active liquidity when in range) and joins the new range's.
func moveRange(x *svm.Exec, in svm.Instruction, dex Dex, pos *clmm.Position, pool clmm.Pool, next clmm.Range) error {
	poolKey := in.Accounts[1].PublicKey
	b, _, err := loadTicks(x, in, 3, dex, poolKey, pool, pos.Range)
	if err != nil {
		return err
	}
	nb, _, err := loadTicks(x, in, 5, dex, poolKey, pool, next)
	if err != nil {
		return err
	}
	for start, a := range nb.Arrays {
		if _, ok := b.Arrays[start]; !ok {
			b.Arrays[start] = a
		}
	}
	if err := touch(dex.Layout, pos, pool, b, false); err != nil {
		return programError(errCodeWrongAccount, "set range: %v", err)
	}
	AddLiquidity(dex.Layout, pos, &pool, b, false)
	pos.Range = next
	AddLiquidity(dex.Layout, pos, &pool, b, true)
	if err := x.SetData(poolKey, dex.Layout.EncodePool(pool)); err != nil {
		return err
	}
	// Every array in b came from an instruction account (old range, new range).
	for start := range b.Arrays {
		if err := x.SetData(b.Address(start), b.Encode(start)); err != nil {
			return err
		}
	}
	return nil
}
