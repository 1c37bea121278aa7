package clmm

// Layout A ("dex-a"). Offsets are from the account start (after the 8-byte
// discriminator at 0) and were checked against the program's own Anchor
// structs PoolState (size 1544) and PersonalPositionState (size 281).
var accountsA = accountLayout{
	name:     DexA,
	poolSpec: newSpec(DexA, AccountPool, "PoolState", 1544),
	posSpec:  newSpec(DexA, AccountPosition, "PersonalPositionState", 281),
	pool: poolOffsets{
		bump:        8,   // [u8; 1]
		config:      9,   // amm_config
		mint0:       73,  // token_mint_0 (owner sits at 41)
		mint1:       105, // token_mint_1
		vault0:      137, // token_vault_0
		vault1:      169, // token_vault_1 (observation_key at 201)
		decimals0:   233, // mint_decimals_0 u8
		decimals1:   234, // mint_decimals_1 u8
		tickSpacing: 235,
		liquidity:   237,
		sqrtPrice:   253, // sqrt_price_x64
		tickCurrent: 269,
		feeGrowth0:  277, // fee_growth_global_0_x64
		feeGrowth1:  293, // fee_growth_global_1_x64
		// reward_infos: 3 × 169 bytes, packed: emissions_per_second_x64
		// u128 at 25, token_mint at 57, reward_growth_global_x64 u128 at
		// 153 from each one's start.
		rewards: rewardOffsets{start: 397, size: 169, mint: 57, emissions: 25, growth: 153},
	},
	pos: positionOffsets{
		bump:       8,   // [u8; 1]
		mint:       9,   // nft_mint
		pool:       41,  // pool_id
		tickLower:  73,  // i32
		tickUpper:  77,  // i32
		liquidity:  81,  // u128
		feeGrowth0: 97,  // fee_growth_inside_0_last_x64
		feeGrowth1: 113, // fee_growth_inside_1_last_x64
		feesOwed0:  129, // token_fees_owed_0
		feesOwed1:  137, // token_fees_owed_1
		rewards:    145, // reward_infos: 3 × (growth_inside_last_x64 u128, reward_amount_owed u64)
	},
}
