package clmm

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// fakeChain serves account bytes by key and records every fetch.
type fakeChain struct {
	mu       sync.Mutex
	accounts map[solana.PublicKey][]byte
	calls    [][]solana.PublicKey
	err      error
	short    bool // answer one entry too few
}

func newFakeChain() *fakeChain { return &fakeChain{accounts: map[solana.PublicKey][]byte{}} }

func (f *fakeChain) MultipleAccounts(ctx context.Context, keys []solana.PublicKey) ([][]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, append([]solana.PublicKey(nil), keys...))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.err != nil {
		return nil, f.err
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i] = f.accounts[k]
	}
	if f.short {
		out = out[:len(out)-1]
	}
	return out, nil
}

// addPool stores a pool and returns its address.
func (f *fakeChain) addPool(d Dex, label string, p Pool) solana.PublicKey {
	addr := testKey(label)
	f.accounts[addr] = d.Layout().EncodePool(p)
	return addr
}

// addPosition stores a position of pool with the given mint label.
func (f *fakeChain) addPosition(t *testing.T, d Dex, pool solana.PublicKey, mintLabel string, r Range) PositionRequest {
	t.Helper()
	mint := testKey(mintLabel)
	addr, _, err := d.PositionAddress(mint)
	if err != nil {
		t.Fatal(err)
	}
	f.accounts[addr] = d.Layout().EncodePosition(samplePosition(pool, mint, r.Lower, r.Upper))
	if b, ok := f.accounts[pool]; ok {
		if p, err := d.Layout().DecodePool(b); err == nil {
			f.initTicks(t, d, pool, p.TickSpacing, r.Lower, r.Upper)
		}
	}
	return PositionRequest{Dex: d, Pool: pool, PositionMint: mint}
}

// initTicks marks ticks initialized in their tick arrays, creating the
// arrays as needed.
func (f *fakeChain) initTicks(t *testing.T, d Dex, pool solana.PublicKey, spacing uint16, ticks ...int32) {
	t.Helper()
	l := d.Layout()
	for _, tick := range ticks {
		start := l.TickArrayStart(tick, spacing)
		addr, err := d.TickArrayAddress(pool, start)
		if err != nil {
			t.Fatal(err)
		}
		a := TickArray{Pool: pool, Start: start, Ticks: make([]Tick, l.TicksPerArray())}
		if b, ok := f.accounts[addr]; ok {
			if a, err = l.DecodeTickArray(b, spacing); err != nil {
				t.Fatal(err)
			}
		}
		slot := (tick - start) / int32(spacing)
		a.Ticks[slot] = Tick{Index: tick, Initialized: true, LiquidityGross: U128From64(1)}
		f.accounts[addr] = l.EncodeTickArray(a)
	}
}

func TestReaderBatchesAndDeduplicates(t *testing.T) {
	chain := newFakeChain()
	a, b := testDex(t, DexA), testDex(t, DexB)
	p1 := chain.addPool(a, "pool 1", samplePoolA())
	p2 := chain.addPool(a, "pool 2", withTick(samplePoolA(), 500))
	p3 := chain.addPool(b, "pool 3", samplePoolB())
	reqs := []PositionRequest{
		chain.addPosition(t, a, p1, "a1", Range{-14400, -13200}),
		chain.addPosition(t, a, p1, "a2", Range{-13920, -13860}),
		chain.addPosition(t, a, p1, "a3", Range{0, 600}),
		chain.addPosition(t, a, p2, "a4", Range{480, 540}),
		chain.addPosition(t, b, p3, "b1", Range{-64, 64}),
	}
	reqs = append(reqs, reqs[0]) // the same position twice

	reader := NewReader(chain)
	states, err := reader.Read(t.Context(), reqs)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	// The first read does not know the ranges: positions and pools first,
	// then positions, pools and tick arrays together.
	if len(chain.calls) != 2 {
		t.Fatalf("fetch calls = %d, want 2", len(chain.calls))
	}
	if got := len(chain.calls[0]); got != 8 { // 5 distinct positions + 3 distinct pools
		t.Fatalf("fetched %d keys, want 8: %v", got, chain.calls[0])
	}
	// Tick arrays: a1 and a2 share pool 1's array at -14400, a1's upper
	// and a2 sit there too (-13200 < -10800); a3 needs [0, 3600); a4 the
	// same start in pool 2; b1 needs -5632 and 0 of pool 3.
	if got := len(chain.calls[1]); got != 8+5 {
		t.Fatalf("second fetch read %d keys, want 13: %v", got, chain.calls[1])
	}
	again, err := reader.Read(t.Context(), reqs)
	if err != nil || len(chain.calls) != 3 || len(chain.calls[2]) != 13 {
		t.Fatalf("second Read: %v, %d calls; want one call of 13 keys", err, len(chain.calls))
	}
	for i := range again {
		if again[i].OwedErr != nil || again[i].Owed != states[i].Owed || states[i].OwedErr != nil {
			t.Errorf("state %d: owed %+v (%v) then %+v (%v)", i, states[i].Owed, states[i].OwedErr, again[i].Owed, again[i].OwedErr)
		}
	}
	wantInRange := []bool{true, true, false, true, true, true}
	wantPool := []Pool{samplePoolA(), samplePoolA(), samplePoolA(), withTick(samplePoolA(), 500), samplePoolB(), samplePoolA()}
	for i, st := range states {
		if st.Err != nil {
			t.Fatalf("state %d: %v", i, st.Err)
		}
		wantAddr, _, _ := reqs[i].Dex.PositionAddress(reqs[i].PositionMint)
		if st.Address != wantAddr || st.Request != reqs[i] || st.Position.Mint != reqs[i].PositionMint {
			t.Errorf("state %d: address %s, request %+v, mint %s", i, st.Address, st.Request, st.Position.Mint)
		}
		if st.Pool != wantPool[i] {
			t.Errorf("state %d: pool %+v, want %+v", i, st.Pool, wantPool[i])
		}
		if got := st.Position.InRange(st.Pool); got != wantInRange[i] {
			t.Errorf("state %d: in range %v, want %v", i, got, wantInRange[i])
		}
	}
	if states[4].Position.FeesOwed0 != 123456789 || states[4].Position.FeesOwed1 != 987654321 {
		t.Errorf("dex-b fees owed = %d, %d", states[4].Position.FeesOwed0, states[4].Position.FeesOwed1)
	}
}

func TestReaderPerAccountErrors(t *testing.T) {
	chain := newFakeChain()
	a, b := testDex(t, DexA), testDex(t, DexB)
	good := chain.addPool(a, "good pool", samplePoolA())
	other := chain.addPool(a, "other pool", samplePoolA())
	missingPool := testKey("missing pool")
	corrupt := testKey("corrupt pool")
	chain.accounts[corrupt] = withByte(a.Layout().EncodePool(samplePoolA()), 3, 0)
	okReq := chain.addPosition(t, a, good, "ok", Range{-14400, -13200})
	wrongPool := chain.addPosition(t, a, other, "wrong pool", Range{0, 60})
	wrongPool.Pool = good
	onMissingPool := chain.addPosition(t, a, missingPool, "on missing pool", Range{0, 60})
	onCorrupt := chain.addPosition(t, a, corrupt, "on corrupt pool", Range{0, 60})
	noPosition := PositionRequest{Dex: a, Pool: good, PositionMint: testKey("never minted")}
	wrongDex := chain.addPosition(t, a, good, "as dex-b", Range{0, 60})
	wrongDex.Dex = b // the layout-A account is not at the dex-b address
	reqs := []PositionRequest{okReq, wrongPool, onMissingPool, onCorrupt, noPosition, wrongDex,
		{Pool: good, PositionMint: testKey("x")}, {Dex: a, PositionMint: testKey("x")}, {Dex: a, Pool: good}}

	states, err := NewReader(chain).Read(t.Context(), reqs)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(chain.calls) != 2 || len(chain.calls[1]) != 3 { // the good position, its pool, one tick array
		t.Fatalf("fetch calls = %v, want 2 (the second of 3 keys)", chain.calls)
	}
	addr := func(r PositionRequest) string { x, _, _ := r.Dex.PositionAddress(r.PositionMint); return x.String() }
	tests := []struct {
		want    error
		message string
	}{
		{nil, ""},
		{ErrMismatch, "clmm: dex-a position account " + addr(wrongPool) + ": account mismatch: position belongs to pool " + other.String() + ", not the requested pool " + good.String()},
		{ErrMissing, "clmm: dex-a pool account " + missingPool.String() + ": account not found"},
		{ErrDiscriminator, "clmm: dex-a pool account " + corrupt.String() + ": wrong account discriminator"},
		{ErrMissing, "clmm: dex-a position account " + addr(noPosition) + ": account not found"},
		{ErrMissing, "clmm: dex-b position account " + addr(wrongDex) + ": account not found"},
		{nil, "clmm: position request 6: dex not configured (use NewDex)"},
		{nil, "clmm: position request 7: pool id is not set"},
		{nil, "clmm: position request 8: position mint is not set"},
	}
	for i, tt := range tests {
		st := states[i]
		if tt.message == "" {
			if st.Err != nil {
				t.Errorf("state %d: unexpected error %v", i, st.Err)
			}
			continue
		}
		if st.Err == nil || !strings.HasPrefix(st.Err.Error(), tt.message) {
			t.Errorf("state %d: error %v, want prefix %q", i, st.Err, tt.message)
		}
		if tt.want != nil && !errors.Is(st.Err, tt.want) {
			t.Errorf("state %d: error %v is not %v", i, st.Err, tt.want)
		}
		if st.Pool != (Pool{}) || st.Position != (Position{}) {
			t.Errorf("state %d: failed state carries data", i)
		}
	}
}

func TestReaderFetchFailures(t *testing.T) {
	a := testDex(t, DexA)
	boom := errors.New("rpc unavailable")
	tests := []struct {
		name  string
		setup func(*fakeChain)
		want  string
	}{
		{"fetch error", func(f *fakeChain) { f.err = boom }, "clmm: read 2 accounts: rpc unavailable"},
		{"short answer", func(f *fakeChain) { f.short = true }, "clmm: read 2 accounts: fetcher returned 1 entries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chain := newFakeChain()
			pool := chain.addPool(a, "pool", samplePoolA())
			req := chain.addPosition(t, a, pool, "m", Range{0, 60})
			tt.setup(chain)
			states, err := NewReader(chain).Read(t.Context(), []PositionRequest{req})
			if err == nil || err.Error() != tt.want || states != nil {
				t.Fatalf("Read = %v, %v; want error %q", states, err, tt.want)
			}
			if tt.name == "fetch error" && !errors.Is(err, boom) {
				t.Errorf("error %v does not wrap the fetch error", err)
			}
		})
	}
}

func TestReaderNothingToFetch(t *testing.T) {
	chain := newFakeChain()
	states, err := NewReader(chain).Read(t.Context(), []PositionRequest{{}})
	if err != nil || len(states) != 1 || states[0].Err == nil {
		t.Fatalf("Read = %+v, %v; want one failed state", states, err)
	}
	if states, err = NewReader(chain).Read(t.Context(), nil); err != nil || len(states) != 0 {
		t.Fatalf("Read(nil) = %+v, %v", states, err)
	}
	if len(chain.calls) != 0 {
		t.Fatalf("fetch calls = %d, want 0", len(chain.calls))
	}
}

func TestReaderContextCancelled(t *testing.T) {
	chain := newFakeChain()
	a := testDex(t, DexA)
	pool := chain.addPool(a, "pool", samplePoolA())
	req := chain.addPosition(t, a, pool, "m", Range{0, 60})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := NewReader(chain).Read(ctx, []PositionRequest{req}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read error = %v, want context.Canceled", err)
	}
}

// TestReaderOwed reads a dex-b position whose fees accrued since it was
// last touched: the owed figure is the stored one plus the growth inside
// its range times its liquidity.
func TestReaderOwed(t *testing.T) {
	chain := newFakeChain()
	b := testDex(t, DexB)
	pool := samplePoolB()
	pool.FeeGrowthGlobal0, pool.FeeGrowthGlobal1 = q64(30), q64(4)
	addr := chain.addPool(b, "pool", pool)
	req := chain.addPosition(t, b, addr, "m", Range{-64, 64})
	posAddr, _, _ := b.PositionAddress(req.PositionMint)
	pos := samplePosition(addr, req.PositionMint, -64, 64)
	pos.Liquidity, pos.FeeGrowthInside0, pos.FeeGrowthInside1 = U128From64(1000), q64(10), q64(1)
	chain.accounts[posAddr] = b.Layout().EncodePosition(pos)
	// Ticks initialized with the price inside: lower's outside is global at
	// that time (say 5 and 1), upper's 0, so inside = 30-5 and 4-1.
	lower, _ := b.TickArrayAddress(addr, -5632)
	la, _ := b.Layout().DecodeTickArray(chain.accounts[lower], 64)
	la.Ticks[87].FeeGrowthOutside0, la.Ticks[87].FeeGrowthOutside1 = q64(5), q64(1)
	la.Dynamic = true
	chain.accounts[lower] = b.Layout().EncodeTickArray(la)

	states, err := NewReader(chain).Read(t.Context(), []PositionRequest{req})
	if err != nil || states[0].Err != nil || states[0].OwedErr != nil {
		t.Fatalf("Read: %v, %+v", err, states)
	}
	want := Owed{Fees0: 123456789 + 15*1000, Fees1: 987654321 + 2*1000}
	if states[0].Owed != want {
		t.Fatalf("owed %+v, want %+v", states[0].Owed, want)
	}

	// A tick array of another pool at the derived address is refused, the
	// position itself still reads.
	la.Pool = testKey("another pool")
	chain.accounts[lower] = b.Layout().EncodeTickArray(la)
	states, _ = NewReader(chain).Read(t.Context(), []PositionRequest{req})
	if states[0].Err != nil || !errors.Is(states[0].OwedErr, ErrMismatch) {
		t.Fatalf("foreign tick array: %v, %v", states[0].Err, states[0].OwedErr)
	}
	delete(chain.accounts, lower)
	states, _ = NewReader(chain).Read(t.Context(), []PositionRequest{req})
	if states[0].Err != nil || !errors.Is(states[0].OwedErr, ErrMissing) {
		t.Fatalf("missing tick array: %v, %v", states[0].Err, states[0].OwedErr)
	}
}

// movingChain moves a position's range between the first and the second
// fetch of a read.
type movingChain struct {
	*fakeChain
	move func()
}

func (m *movingChain) MultipleAccounts(ctx context.Context, keys []solana.PublicKey) ([][]byte, error) {
	out, err := m.fakeChain.MultipleAccounts(ctx, keys)
	if m.move != nil {
		m.move()
		m.move = nil
	}
	return out, err
}

func TestReaderRangeMovesBetweenFetches(t *testing.T) {
	chain := newFakeChain()
	a := testDex(t, DexA)
	pool := chain.addPool(a, "pool", samplePoolA())
	req := chain.addPosition(t, a, pool, "m", Range{0, 60})
	m := &movingChain{fakeChain: chain, move: func() { chain.addPosition(t, a, pool, "m", Range{-7200, -3600}) }}
	states, err := NewReader(m).Read(t.Context(), []PositionRequest{req})
	if err != nil || states[0].Err != nil || !errors.Is(states[0].OwedErr, ErrMismatch) {
		t.Fatalf("Read: %v, %v, %v", err, states[0].Err, states[0].OwedErr)
	}
	if states[0].Position.Range != (Range{-7200, -3600}) {
		t.Fatalf("range %s: the state must come from the second fetch", states[0].Position.Range)
	}
}
