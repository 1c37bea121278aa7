package clmm

import "github.com/gagliardetto/solana-go"

// Pool is the part of a CLMM pool account that keeper uses. Token 0 and token
// 1 are layout A's token_mint_0/1 and layout B's token_mint_a/b.
type Pool struct {
	// Config is the pool's config account (amm_config or whirlpools_config).
	Config solana.PublicKey
	// Bump is the pool PDA's bump seed.
	Bump uint8
	// Mint0 and Mint1 are the token mints; Mint0 < Mint1 bytewise.
	Mint0, Mint1 solana.PublicKey
	// Vault0 and Vault1 are the pool's token accounts for Mint0 and Mint1.
	Vault0, Vault1 solana.PublicKey
	// HasDecimals reports whether the account stores the mints' decimals
	// (layout A does, layout B does not).
	HasDecimals bool
	// Decimals0 and Decimals1 are the mints' decimals when HasDecimals.
	Decimals0, Decimals1 uint8
	// TickSpacing is the distance between usable ticks; never zero once
	// decoded.
	TickSpacing uint16
	// HasFeeRate reports whether the account stores the swap fee rate
	// (layout B does; layout A keeps it in its config account, not read).
	HasFeeRate bool
	// FeeRate is the swap fee in millionths (hundredths of a basis point)
	// when HasFeeRate.
	FeeRate uint32
	// Liquidity is the liquidity active at the current tick.
	Liquidity U128
	// SqrtPriceX64 is sqrt(price) as a Q64.64 fixed-point number, price
	// being token 1 per token 0 in base units.
	SqrtPriceX64 U128
	// TickCurrent is the pool's current tick.
	TickCurrent int32
	// FeeGrowthGlobal0 and FeeGrowthGlobal1 are the Q64.64 fees earned per
	// unit of liquidity over the pool's life, per token; they wrap modulo
	// 2^128.
	FeeGrowthGlobal0, FeeGrowthGlobal1 U128
	// Rewards are the pool's reward slots.
	Rewards [NumRewards]PoolReward
	// RewardLastUpdated is the unix time the reward growth was last brought
	// up to date (layout B; layout A keeps one time per reward, not read).
	RewardLastUpdated uint64
}

// PoolReward is one reward slot of a pool.
type PoolReward struct {
	// Mint is the reward token; the zero key marks an unused slot.
	Mint solana.PublicKey
	// EmissionsPerSecondX64 is the Q64.64 amount emitted per second to the
	// liquidity in range.
	EmissionsPerSecondX64 U128
	// GrowthGlobal is the Q64.64 reward earned per unit of liquidity, as of
	// the pool's last reward update.
	GrowthGlobal U128
}

// Initialized reports whether the slot holds a reward (both programs test
// the mint against the zero key).
func (r PoolReward) Initialized() bool { return !r.Mint.IsZero() }

// RawPrice returns the pool price in base units of token 1 per base unit of
// token 0.
func (p Pool) RawPrice() float64 { return RawPriceFromSqrtX64(p.SqrtPriceX64) }

// Price returns the pool price in whole tokens of token 1 per whole token 0,
// and false when the account does not carry the decimals (use
// [PriceFromSqrtX64] with decimals from elsewhere).
func (p Pool) Price() (float64, bool) {
	if !p.HasDecimals {
		return 0, false
	}
	return PriceFromSqrtX64(p.SqrtPriceX64, p.Decimals0, p.Decimals1), true
}

// Position is the part of a CLMM position account that keeper uses.
type Position struct {
	// Pool is the pool the position provides liquidity to.
	Pool solana.PublicKey
	// Mint is the position (NFT) mint; the account address is derived
	// from it.
	Mint solana.PublicKey
	// HasBump reports whether the account stores its PDA bump (layout A).
	HasBump bool
	// Bump is the position PDA's bump seed when HasBump.
	Bump uint8
	// Range is the position's tick range.
	Range Range
	// Liquidity is the liquidity the position provides inside its range.
	Liquidity U128
	// FeeGrowthInside0 and FeeGrowthInside1 are the Q64.64 fee growth
	// checkpoints from the last time the position was touched.
	FeeGrowthInside0, FeeGrowthInside1 U128
	// FeesOwed0 and FeesOwed1 are the fees stored in the account, in base
	// units of token 0 and token 1; see [Position.FeesOwed].
	FeesOwed0, FeesOwed1 uint64
	// Rewards are the position's reward checkpoints and stored amounts, one
	// per pool reward slot.
	Rewards [NumRewards]PositionReward
}

// PositionReward is one reward slot of a position.
type PositionReward struct {
	// GrowthInside is the Q64.64 reward growth checkpoint.
	GrowthInside U128
	// Owed is the reward amount stored in the account, in base units.
	Owed uint64
}

// FeesOwed returns the fees stored in the position account, in base units of
// token 0 and token 1. The figure is a lower bound: the programs update it
// only when the position is touched; [Layout.Owed] computes what a claim
// made now pays.
func (p Position) FeesOwed() (token0, token1 uint64) { return p.FeesOwed0, p.FeesOwed1 }

// InRange reports whether the pool's current tick lies in the position's
// range (lower <= current < upper).
func (p Position) InRange(pool Pool) bool { return p.Range.Contains(pool.TickCurrent) }
