package clmm

// accountLayout decodes and encodes one program's pool and position
// accounts from a table of field offsets: both programs store the same
// fields, little-endian, at different places.
type accountLayout struct {
	name     string
	poolSpec accountSpec
	posSpec  accountSpec
	pool     poolOffsets
	pos      positionOffsets
}

// poolOffsets are the byte offsets of a pool account's fields from the
// account start. Offset 0 is the discriminator, so 0 marks a field the
// layout does not store.
type poolOffsets struct {
	bump, config, mint0, mint1, vault0, vault1 int
	decimals0, decimals1                       int // u8 each; 0: not stored
	tickSpacing                                int // u16
	feeRate                                    int // u16; 0: not stored
	liquidity, sqrtPrice                       int // u128
	tickCurrent                                int // i32
	feeGrowth0, feeGrowth1                     int // u128
	rewardTime                                 int // u64; 0: not stored
	rewards                                    rewardOffsets
}

// rewardOffsets place a pool's reward slots: at start, size bytes each, and
// the fields keeper reads from each slot's start.
type rewardOffsets struct {
	start, size, mint, emissions, growth int
}

// positionOffsets are the byte offsets of a position account's fields;
// bump 0 marks a layout that does not store it.
type positionOffsets struct {
	bump, mint, pool       int
	tickLower, tickUpper   int // i32
	liquidity              int // u128
	feeGrowth0, feeGrowth1 int // u128
	feesOwed0, feesOwed1   int // u64
	rewards                int // 3 × (u128 growth, u64 owed)
}

// Name returns the layout name.
func (l accountLayout) Name() string { return l.name }

// PoolSize returns the exact size of a pool account.
func (l accountLayout) PoolSize() int { return l.poolSpec.size }

// PositionSize returns the exact size of a position account.
func (l accountLayout) PositionSize() int { return l.posSpec.size }

// DecodePool decodes a pool account.
func (l accountLayout) DecodePool(b []byte) (Pool, error) {
	return decode(l.poolSpec, b, l.pool.read, l.poolSpec.validatePool)
}

// EncodePool returns the account bytes for p; a FeeRate is truncated to the
// stored u16.
func (l accountLayout) EncodePool(p Pool) []byte { return encode(l.poolSpec, p, l.pool.write) }

// DecodePosition decodes a position account.
func (l accountLayout) DecodePosition(b []byte) (Position, error) {
	return decode(l.posSpec, b, l.pos.read, l.posSpec.validatePosition)
}

// EncodePosition returns the account bytes for p.
func (l accountLayout) EncodePosition(p Position) []byte { return encode(l.posSpec, p, l.pos.write) }

// decode checks the length and discriminator of account b, reads it and
// validates what it read.
func decode[T any](spec accountSpec, b []byte, read func([]byte) T, validate func(T) error) (T, error) {
	var zero T
	if err := spec.check(b); err != nil {
		return zero, err
	}
	v := read(b)
	if err := validate(v); err != nil {
		return zero, err
	}
	return v, nil
}

// encode returns a zeroed account of spec with v written into it.
func encode[T any](spec accountSpec, v T, write func([]byte, T)) []byte {
	b := spec.newAccount()
	write(b, v)
	return b
}

// read reads a pool account whose length is checked.
func (o poolOffsets) read(b []byte) Pool {
	p := Pool{
		Bump:             b[o.bump],
		Config:           getKey(b, o.config),
		Mint0:            getKey(b, o.mint0),
		Mint1:            getKey(b, o.mint1),
		Vault0:           getKey(b, o.vault0),
		Vault1:           getKey(b, o.vault1),
		TickSpacing:      getU16(b, o.tickSpacing),
		Liquidity:        getU128(b[o.liquidity:]),
		SqrtPriceX64:     getU128(b[o.sqrtPrice:]),
		TickCurrent:      getI32(b, o.tickCurrent),
		FeeGrowthGlobal0: getU128(b[o.feeGrowth0:]),
		FeeGrowthGlobal1: getU128(b[o.feeGrowth1:]),
	}
	if o.decimals0 != 0 {
		p.HasDecimals, p.Decimals0, p.Decimals1 = true, b[o.decimals0], b[o.decimals1]
	}
	if o.feeRate != 0 {
		p.HasFeeRate, p.FeeRate = true, uint32(getU16(b, o.feeRate))
	}
	if o.rewardTime != 0 {
		p.RewardLastUpdated = getU64(b, o.rewardTime)
	}
	for i := range p.Rewards {
		at := o.rewards.start + o.rewards.size*i
		p.Rewards[i] = PoolReward{Mint: getKey(b, at+o.rewards.mint), EmissionsPerSecondX64: getU128(b[at+o.rewards.emissions:]),
			GrowthGlobal: getU128(b[at+o.rewards.growth:])}
	}
	return p
}

// write writes p into the zeroed account b.
func (o poolOffsets) write(b []byte, p Pool) {
	b[o.bump] = p.Bump
	putKey(b, o.config, p.Config)
	putKey(b, o.mint0, p.Mint0)
	putKey(b, o.mint1, p.Mint1)
	putKey(b, o.vault0, p.Vault0)
	putKey(b, o.vault1, p.Vault1)
	putU16(b, o.tickSpacing, p.TickSpacing)
	putU128(b[o.liquidity:], p.Liquidity)
	putU128(b[o.sqrtPrice:], p.SqrtPriceX64)
	putI32(b, o.tickCurrent, p.TickCurrent)
	putU128(b[o.feeGrowth0:], p.FeeGrowthGlobal0)
	putU128(b[o.feeGrowth1:], p.FeeGrowthGlobal1)
	if o.decimals0 != 0 {
		b[o.decimals0], b[o.decimals1] = p.Decimals0, p.Decimals1
	}
	if o.feeRate != 0 {
		putU16(b, o.feeRate, uint16(p.FeeRate))
	}
	if o.rewardTime != 0 {
		putU64(b, o.rewardTime, p.RewardLastUpdated)
	}
	for i, r := range p.Rewards {
		at := o.rewards.start + o.rewards.size*i
		putKey(b, at+o.rewards.mint, r.Mint)
		putU128(b[at+o.rewards.emissions:], r.EmissionsPerSecondX64)
		putU128(b[at+o.rewards.growth:], r.GrowthGlobal)
	}
}

// read reads a position account whose length is checked.
func (o positionOffsets) read(b []byte) Position {
	p := Position{
		Mint:             getKey(b, o.mint),
		Pool:             getKey(b, o.pool),
		Range:            Range{Lower: getI32(b, o.tickLower), Upper: getI32(b, o.tickUpper)},
		Liquidity:        getU128(b[o.liquidity:]),
		FeeGrowthInside0: getU128(b[o.feeGrowth0:]),
		FeeGrowthInside1: getU128(b[o.feeGrowth1:]),
		FeesOwed0:        getU64(b, o.feesOwed0),
		FeesOwed1:        getU64(b, o.feesOwed1),
		Rewards:          getPositionRewards(b, o.rewards),
	}
	if o.bump != 0 {
		p.HasBump, p.Bump = true, b[o.bump]
	}
	return p
}

// write writes p into the zeroed account b.
func (o positionOffsets) write(b []byte, p Position) {
	if o.bump != 0 {
		b[o.bump] = p.Bump
	}
	putKey(b, o.mint, p.Mint)
	putKey(b, o.pool, p.Pool)
	putI32(b, o.tickLower, p.Range.Lower)
	putI32(b, o.tickUpper, p.Range.Upper)
	putU128(b[o.liquidity:], p.Liquidity)
	putU128(b[o.feeGrowth0:], p.FeeGrowthInside0)
	putU128(b[o.feeGrowth1:], p.FeeGrowthInside1)
	putU64(b, o.feesOwed0, p.FeesOwed0)
	putU64(b, o.feesOwed1, p.FeesOwed1)
	putPositionRewards(b, o.rewards, p.Rewards)
}
