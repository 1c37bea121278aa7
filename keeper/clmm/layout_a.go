package clmm

// Layout A ("dex-a"). Offsets are from the account start (after the 8-byte
// discriminator at 0) and were checked against the program's own Anchor
// structs PoolState (size 1544) and PersonalPositionState (size 281).
const (
	aPoolSize        = 1544
	aPoolBump        = 8   // [u8; 1]
	aPoolConfig      = 9   // amm_config
	aPoolMint0       = 73  // token_mint_0 (owner sits at 41)
	aPoolMint1       = 105 // token_mint_1
	aPoolVault0      = 137 // token_vault_0
	aPoolVault1      = 169 // token_vault_1 (observation_key at 201)
	aPoolDecimals0   = 233 // mint_decimals_0 u8
	aPoolDecimals1   = 234 // mint_decimals_1 u8
	aPoolTickSpacing = 235 // u16
	aPoolLiquidity   = 237 // u128
	aPoolSqrtPrice   = 253 // sqrt_price_x64 u128
	aPoolTickCurrent = 269 // i32
	aPoolFeeGrowth0  = 277 // fee_growth_global_0_x64 u128
	aPoolFeeGrowth1  = 293 // fee_growth_global_1_x64 u128
	aPoolRewards     = 397 // reward_infos: 3 × 169 bytes, packed
	aRewardSize      = 169
	aRewardEmissions = 25  // emissions_per_second_x64 u128, from the reward's start
	aRewardMint      = 57  // token_mint
	aRewardGrowth    = 153 // reward_growth_global_x64 u128

	aPosSize       = 281
	aPosBump       = 8   // [u8; 1]
	aPosMint       = 9   // nft_mint
	aPosPool       = 41  // pool_id
	aPosTickLower  = 73  // i32
	aPosTickUpper  = 77  // i32
	aPosLiquidity  = 81  // u128
	aPosFeeGrowth0 = 97  // fee_growth_inside_0_last_x64 u128
	aPosFeeGrowth1 = 113 // fee_growth_inside_1_last_x64 u128
	aPosFeesOwed0  = 129 // token_fees_owed_0 u64
	aPosFeesOwed1  = 137 // token_fees_owed_1 u64
	aPosRewards    = 145 // reward_infos: 3 × (growth_inside_last_x64 u128, reward_amount_owed u64)
)

var (
	aPoolSpec = newSpec(DexA, AccountPool, "PoolState", aPoolSize)
	aPosSpec  = newSpec(DexA, AccountPosition, "PersonalPositionState", aPosSize)
)

type layoutA struct{}

func (layoutA) Name() string      { return DexA }
func (layoutA) PoolSize() int     { return aPoolSize }
func (layoutA) PositionSize() int { return aPosSize }

func (layoutA) DecodePool(b []byte) (Pool, error) {
	if err := aPoolSpec.check(b); err != nil {
		return Pool{}, err
	}
	p := Pool{
		Bump:             b[aPoolBump],
		Config:           getKey(b, aPoolConfig),
		Mint0:            getKey(b, aPoolMint0),
		Mint1:            getKey(b, aPoolMint1),
		Vault0:           getKey(b, aPoolVault0),
		Vault1:           getKey(b, aPoolVault1),
		HasDecimals:      true,
		Decimals0:        b[aPoolDecimals0],
		Decimals1:        b[aPoolDecimals1],
		TickSpacing:      getU16(b, aPoolTickSpacing),
		Liquidity:        getU128(b[aPoolLiquidity:]),
		SqrtPriceX64:     getU128(b[aPoolSqrtPrice:]),
		TickCurrent:      getI32(b, aPoolTickCurrent),
		FeeGrowthGlobal0: getU128(b[aPoolFeeGrowth0:]),
		FeeGrowthGlobal1: getU128(b[aPoolFeeGrowth1:]),
	}
	for i := range p.Rewards {
		at := aPoolRewards + aRewardSize*i
		p.Rewards[i] = PoolReward{Mint: getKey(b, at+aRewardMint), EmissionsPerSecondX64: getU128(b[at+aRewardEmissions:]),
			GrowthGlobal: getU128(b[at+aRewardGrowth:])}
	}
	if err := aPoolSpec.validatePool(p); err != nil {
		return Pool{}, err
	}
	return p, nil
}

func (layoutA) EncodePool(p Pool) []byte {
	b := aPoolSpec.newAccount()
	b[aPoolBump] = p.Bump
	putKey(b, aPoolConfig, p.Config)
	putKey(b, aPoolMint0, p.Mint0)
	putKey(b, aPoolMint1, p.Mint1)
	putKey(b, aPoolVault0, p.Vault0)
	putKey(b, aPoolVault1, p.Vault1)
	b[aPoolDecimals0] = p.Decimals0
	b[aPoolDecimals1] = p.Decimals1
	putU16(b, aPoolTickSpacing, p.TickSpacing)
	putU128(b[aPoolLiquidity:], p.Liquidity)
	putU128(b[aPoolSqrtPrice:], p.SqrtPriceX64)
	putI32(b, aPoolTickCurrent, p.TickCurrent)
	putU128(b[aPoolFeeGrowth0:], p.FeeGrowthGlobal0)
	putU128(b[aPoolFeeGrowth1:], p.FeeGrowthGlobal1)
	for i, r := range p.Rewards {
		at := aPoolRewards + aRewardSize*i
		putKey(b, at+aRewardMint, r.Mint)
		putU128(b[at+aRewardEmissions:], r.EmissionsPerSecondX64)
		putU128(b[at+aRewardGrowth:], r.GrowthGlobal)
	}
	return b
}

func (layoutA) DecodePosition(b []byte) (Position, error) {
	if err := aPosSpec.check(b); err != nil {
		return Position{}, err
	}
	p := Position{
		HasBump:          true,
		Bump:             b[aPosBump],
		Mint:             getKey(b, aPosMint),
		Pool:             getKey(b, aPosPool),
		Range:            Range{Lower: getI32(b, aPosTickLower), Upper: getI32(b, aPosTickUpper)},
		Liquidity:        getU128(b[aPosLiquidity:]),
		FeeGrowthInside0: getU128(b[aPosFeeGrowth0:]),
		FeeGrowthInside1: getU128(b[aPosFeeGrowth1:]),
		FeesOwed0:        getU64(b, aPosFeesOwed0),
		FeesOwed1:        getU64(b, aPosFeesOwed1),
		Rewards:          getPositionRewards(b, aPosRewards),
	}
	if err := aPosSpec.validatePosition(p); err != nil {
		return Position{}, err
	}
	return p, nil
}

func (layoutA) EncodePosition(p Position) []byte {
	b := aPosSpec.newAccount()
	b[aPosBump] = p.Bump
	putKey(b, aPosMint, p.Mint)
	putKey(b, aPosPool, p.Pool)
	putI32(b, aPosTickLower, p.Range.Lower)
	putI32(b, aPosTickUpper, p.Range.Upper)
	putU128(b[aPosLiquidity:], p.Liquidity)
	putU128(b[aPosFeeGrowth0:], p.FeeGrowthInside0)
	putU128(b[aPosFeeGrowth1:], p.FeeGrowthInside1)
	putU64(b, aPosFeesOwed0, p.FeesOwed0)
	putU64(b, aPosFeesOwed1, p.FeesOwed1)
	putPositionRewards(b, aPosRewards, p.Rewards)
	return b
}

func (layoutA) GrowthInside(pool Pool, lower, upper Tick) Growths {
	return growthsInside(insideA, pool, lower, upper)
}

func (l layoutA) Owed(pool Pool, pos Position, lower, upper Tick) (Owed, error) {
	return owedA(l.GrowthInside(pool, lower, upper), pos)
}
