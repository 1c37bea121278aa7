package sim

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
)

// tickBook holds the decoded tick arrays of one pool that one operation
// reads or writes, by start index.
type tickBook struct {
	dex     clmm.Dex
	pool    solana.PublicKey
	spacing uint16
	dynamic bool // dex-b: the format of arrays this operation creates
	arrays  map[int32]*clmm.TickArray
}

func newTickBook(info dexInfo, pool solana.PublicKey, spacing uint16, dynamic bool) *tickBook {
	dex, _ := clmm.NewDexWithLayout(info.Layout, info.Program)
	return &tickBook{dex: dex, pool: pool, spacing: spacing, dynamic: dynamic, arrays: map[int32]*clmm.TickArray{}}
}

// start returns the start of the array holding tick.
func (b *tickBook) start(tick int32) int32 { return b.dex.TickArrayStart(tick, b.spacing) }

// address returns the account of the array starting at start.
func (b *tickBook) address(start int32) solana.PublicKey {
	addr, _ := b.dex.TickArrayAddress(b.pool, start)
	return addr
}

// startsBetween lists the array starts covering ticks lo..hi.
func (b *tickBook) startsBetween(lo, hi int32) []int32 {
	width := int64(b.dex.Layout().TicksPerArray()) * int64(b.spacing)
	var out []int32
	for s := int64(b.start(lo)); s <= int64(hi); s += width {
		out = append(out, int32(s))
	}
	return out
}

// load decodes an array's account bytes; empty bytes (no account) load
// nothing.
func (b *tickBook) load(start int32, data []byte) error {
	if len(data) == 0 {
		return nil
	}
	a, err := b.dex.Layout().DecodeTickArray(data, b.spacing)
	if err != nil {
		return err
	}
	if a.Pool != b.pool || a.Start != start {
		return fmt.Errorf("tick array %s is not array %d of pool %s", b.address(start), start, b.pool)
	}
	b.arrays[start] = &a
	return nil
}

// tick returns the tick at index, creating its array (empty, as the
// programs initialize one) when absent.
func (b *tickBook) tick(index int32) *clmm.Tick {
	start := b.start(index)
	a, ok := b.arrays[start]
	if !ok {
		a = &clmm.TickArray{Pool: b.pool, Start: start, Dynamic: b.dynamic, Ticks: make([]clmm.Tick, b.dex.Layout().TicksPerArray())}
		b.arrays[start] = a
	}
	return &a.Ticks[(index-start)/int32(b.spacing)]
}

// encode returns the account bytes of the array starting at start.
func (b *tickBook) encode(start int32) []byte {
	return b.dex.Layout().EncodeTickArray(*b.arrays[start])
}
