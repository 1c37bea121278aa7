package clmm

// Layout B ("dex-b"). Offsets are from the account start (after the 8-byte
// discriminator at 0) and were checked against the program's own Anchor
// structs Whirlpool (size 653) and Position (size 216).
const (
	bPoolSize        = 653
	bPoolConfig      = 8   // whirlpools_config
	bPoolBump        = 40  // [u8; 1]
	bPoolTickSpacing = 41  // u16 (fee tier index seed at 43)
	bPoolFeeRate     = 45  // u16, hundredths of a basis point
	bPoolLiquidity   = 49  // u128 (protocol_fee_rate u16 at 47)
	bPoolSqrtPrice   = 65  // sqrt_price u128, Q64.64
	bPoolTickCurrent = 81  // tick_current_index i32
	bPoolMint0       = 101 // token_mint_a (protocol fees owed at 85, 93)
	bPoolVault0      = 133 // token_vault_a (fee_growth_global_a at 165)
	bPoolMint1       = 181 // token_mint_b
	bPoolVault1      = 213 // token_vault_b
	bPoolFeeGrowth0  = 165 // fee_growth_global_a u128
	bPoolFeeGrowth1  = 245 // fee_growth_global_b u128
	bPoolRewardTime  = 261 // reward_last_updated_timestamp u64
	bPoolRewards     = 269 // reward_infos: 3 × 128 bytes
	bRewardSize      = 128
	bRewardMint      = 0   // mint, from the reward's start
	bRewardEmissions = 96  // emissions_per_second_x64 u128
	bRewardGrowth    = 112 // growth_global_x64 u128

	bPosSize       = 216
	bPosPool       = 8   // whirlpool
	bPosMint       = 40  // position_mint
	bPosLiquidity  = 72  // u128
	bPosTickLower  = 88  // i32
	bPosTickUpper  = 92  // i32
	bPosFeeGrowth0 = 96  // fee_growth_checkpoint_a u128
	bPosFeesOwed0  = 112 // fee_owed_a u64
	bPosFeeGrowth1 = 120 // fee_growth_checkpoint_b u128
	bPosFeesOwed1  = 136 // fee_owed_b u64
	bPosRewards    = 144 // reward_infos: 3 × (growth_inside_checkpoint u128, amount_owed u64)
)

var (
	bPoolSpec = newSpec(DexB, AccountPool, "Whirlpool", bPoolSize)
	bPosSpec  = newSpec(DexB, AccountPosition, "Position", bPosSize)
)

type layoutB struct{}

func (layoutB) Name() string      { return DexB }
func (layoutB) PoolSize() int     { return bPoolSize }
func (layoutB) PositionSize() int { return bPosSize }

func (layoutB) DecodePool(b []byte) (Pool, error) {
	if err := bPoolSpec.check(b); err != nil {
		return Pool{}, err
	}
	p := Pool{
		Config:            getKey(b, bPoolConfig),
		Bump:              b[bPoolBump],
		TickSpacing:       getU16(b, bPoolTickSpacing),
		HasFeeRate:        true,
		FeeRate:           uint32(getU16(b, bPoolFeeRate)),
		Liquidity:         getU128(b[bPoolLiquidity:]),
		SqrtPriceX64:      getU128(b[bPoolSqrtPrice:]),
		TickCurrent:       getI32(b, bPoolTickCurrent),
		Mint0:             getKey(b, bPoolMint0),
		Vault0:            getKey(b, bPoolVault0),
		Mint1:             getKey(b, bPoolMint1),
		Vault1:            getKey(b, bPoolVault1),
		FeeGrowthGlobal0:  getU128(b[bPoolFeeGrowth0:]),
		FeeGrowthGlobal1:  getU128(b[bPoolFeeGrowth1:]),
		RewardLastUpdated: getU64(b, bPoolRewardTime),
	}
	for i := range p.Rewards {
		at := bPoolRewards + bRewardSize*i
		p.Rewards[i] = PoolReward{Mint: getKey(b, at+bRewardMint), EmissionsPerSecondX64: getU128(b[at+bRewardEmissions:]),
			GrowthGlobal: getU128(b[at+bRewardGrowth:])}
	}
	if err := bPoolSpec.validatePool(p); err != nil {
		return Pool{}, err
	}
	return p, nil
}

// EncodePool writes p; FeeRate is truncated to the stored u16.
func (layoutB) EncodePool(p Pool) []byte {
	b := bPoolSpec.newAccount()
	putKey(b, bPoolConfig, p.Config)
	b[bPoolBump] = p.Bump
	putU16(b, bPoolTickSpacing, p.TickSpacing)
	putU16(b, bPoolFeeRate, uint16(p.FeeRate))
	putU128(b[bPoolLiquidity:], p.Liquidity)
	putU128(b[bPoolSqrtPrice:], p.SqrtPriceX64)
	putI32(b, bPoolTickCurrent, p.TickCurrent)
	putKey(b, bPoolMint0, p.Mint0)
	putKey(b, bPoolVault0, p.Vault0)
	putKey(b, bPoolMint1, p.Mint1)
	putKey(b, bPoolVault1, p.Vault1)
	putU128(b[bPoolFeeGrowth0:], p.FeeGrowthGlobal0)
	putU128(b[bPoolFeeGrowth1:], p.FeeGrowthGlobal1)
	putU64(b, bPoolRewardTime, p.RewardLastUpdated)
	for i, r := range p.Rewards {
		at := bPoolRewards + bRewardSize*i
		putKey(b, at+bRewardMint, r.Mint)
		putU128(b[at+bRewardEmissions:], r.EmissionsPerSecondX64)
		putU128(b[at+bRewardGrowth:], r.GrowthGlobal)
	}
	return b
}

func (layoutB) DecodePosition(b []byte) (Position, error) {
	if err := bPosSpec.check(b); err != nil {
		return Position{}, err
	}
	p := Position{
		Pool:             getKey(b, bPosPool),
		Mint:             getKey(b, bPosMint),
		Liquidity:        getU128(b[bPosLiquidity:]),
		Range:            Range{Lower: getI32(b, bPosTickLower), Upper: getI32(b, bPosTickUpper)},
		FeeGrowthInside0: getU128(b[bPosFeeGrowth0:]),
		FeesOwed0:        getU64(b, bPosFeesOwed0),
		FeeGrowthInside1: getU128(b[bPosFeeGrowth1:]),
		FeesOwed1:        getU64(b, bPosFeesOwed1),
		Rewards:          getPositionRewards(b, bPosRewards),
	}
	if err := bPosSpec.validatePosition(p); err != nil {
		return Position{}, err
	}
	return p, nil
}

func (layoutB) EncodePosition(p Position) []byte {
	b := bPosSpec.newAccount()
	putKey(b, bPosPool, p.Pool)
	putKey(b, bPosMint, p.Mint)
	putU128(b[bPosLiquidity:], p.Liquidity)
	putI32(b, bPosTickLower, p.Range.Lower)
	putI32(b, bPosTickUpper, p.Range.Upper)
	putU128(b[bPosFeeGrowth0:], p.FeeGrowthInside0)
	putU64(b, bPosFeesOwed0, p.FeesOwed0)
	putU128(b[bPosFeeGrowth1:], p.FeeGrowthInside1)
	putU64(b, bPosFeesOwed1, p.FeesOwed1)
	putPositionRewards(b, bPosRewards, p.Rewards)
	return b
}

func (layoutB) GrowthInside(pool Pool, lower, upper Tick) Growths {
	return growthsInside(insideB, pool, lower, upper)
}

func (l layoutB) Owed(pool Pool, pos Position, lower, upper Tick) (Owed, error) {
	return owedB(l.GrowthInside(pool, lower, upper), pos), nil
}
