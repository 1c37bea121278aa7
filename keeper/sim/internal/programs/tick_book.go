package programs

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
)

// TickBook holds the decoded tick arrays of one pool that one operation
// reads or writes, by start index.
type TickBook struct {
	dex     clmm.Dex
	pool    solana.PublicKey
	spacing uint16
	dynamic bool // dex-b: the format of arrays this operation creates
	Arrays  map[int32]*clmm.TickArray
}

func NewTickBook(info Dex, pool solana.PublicKey, spacing uint16, dynamic bool) *TickBook {
	dex, _ := clmm.NewDexWithLayout(info.Layout, info.Program)
	return &TickBook{dex: dex, pool: pool, spacing: spacing, dynamic: dynamic, Arrays: map[int32]*clmm.TickArray{}}
}

// Start returns the start of the array holding tick.
func (b *TickBook) Start(tick int32) int32 { return b.dex.TickArrayStart(tick, b.spacing) }

// Address returns the account of the array starting at start.
func (b *TickBook) Address(start int32) solana.PublicKey {
	addr, _ := b.dex.TickArrayAddress(b.pool, start)
	return addr
}

// StartsBetween lists the array starts covering ticks lo..hi.
func (b *TickBook) StartsBetween(lo, hi int32) []int32 {
	width := int64(b.dex.Layout().TicksPerArray()) * int64(b.spacing)
	var out []int32
	for s := int64(b.Start(lo)); s <= int64(hi); s += width {
		out = append(out, int32(s))
	}
	return out
}

// Load decodes an array's account bytes; empty bytes (no account) load
// nothing.
func (b *TickBook) Load(start int32, data []byte) error {
	if len(data) == 0 {
		return nil
	}
	a, err := b.dex.Layout().DecodeTickArray(data, b.spacing)
	if err != nil {
		return err
	}
	if a.Pool != b.pool || a.Start != start {
		return fmt.Errorf("tick array %s is not array %d of pool %s", b.Address(start), start, b.pool)
	}
	b.Arrays[start] = &a
	return nil
}

// Tick returns the tick at index, creating its array (empty, as the
// programs initialize one) when absent.
func (b *TickBook) Tick(index int32) *clmm.Tick {
	start := b.Start(index)
	a, ok := b.Arrays[start]
	if !ok {
		a = &clmm.TickArray{Pool: b.pool, Start: start, Dynamic: b.dynamic, Ticks: make([]clmm.Tick, b.dex.Layout().TicksPerArray())}
		b.Arrays[start] = a
	}
	return &a.Ticks[(index-start)/int32(b.spacing)]
}

// Encode returns the account bytes of the array starting at start.
func (b *TickBook) Encode(start int32) []byte {
	return b.dex.Layout().EncodeTickArray(*b.Arrays[start])
}
