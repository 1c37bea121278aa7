package clmm

// Layout B ("dex-b"). Offsets are from the account start (after the 8-byte
// discriminator at 0) and were checked against the program's own Anchor
// structs Whirlpool (size 653) and Position (size 216).
var accountsB = accountLayout{
	name:     DexB,
	poolSpec: newSpec(DexB, AccountPool, "Whirlpool", 653),
	posSpec:  newSpec(DexB, AccountPosition, "Position", 216),
	pool: poolOffsets{
		config:      8,   // whirlpools_config
		bump:        40,  // [u8; 1]
		tickSpacing: 41,  // u16 (fee tier index seed at 43)
		feeRate:     45,  // u16, hundredths of a basis point
		liquidity:   49,  // u128 (protocol_fee_rate u16 at 47)
		sqrtPrice:   65,  // sqrt_price u128, Q64.64
		tickCurrent: 81,  // tick_current_index i32
		mint0:       101, // token_mint_a (protocol fees owed at 85, 93)
		vault0:      133, // token_vault_a
		feeGrowth0:  165, // fee_growth_global_a u128
		mint1:       181, // token_mint_b
		vault1:      213, // token_vault_b
		feeGrowth1:  245, // fee_growth_global_b u128
		rewardTime:  261, // reward_last_updated_timestamp u64
		// reward_infos: 3 × 128 bytes: mint at 0, emissions_per_second_x64
		// u128 at 96, growth_global_x64 u128 at 112 from each one's start.
		rewards: rewardOffsets{start: 269, size: 128, mint: 0, emissions: 96, growth: 112},
	},
	pos: positionOffsets{
		pool:       8,   // whirlpool
		mint:       40,  // position_mint
		liquidity:  72,  // u128
		tickLower:  88,  // i32
		tickUpper:  92,  // i32
		feeGrowth0: 96,  // fee_growth_checkpoint_a u128
		feesOwed0:  112, // fee_owed_a u64
		feeGrowth1: 120, // fee_growth_checkpoint_b u128
		feesOwed1:  136, // fee_owed_b u64
		rewards:    144, // reward_infos: 3 × (growth_inside_checkpoint u128, amount_owed u64)
	},
}
