package policies

// checkSubmit validates submit and fills its defaults: the mode by kind
// (bundle for claim-withdrawals, rpc otherwise) and the rent allowance.
func (b *builder) checkSubmit(p *Policy) {
	s := &p.Submit
	switch s.Mode {
	case "":
		s.Mode = ModeRPC
		if p.Kind == KindClaimWithdrawals {
			s.Mode = ModeBundle
		}
	case ModeRPC, ModeBundle:
	default:
		b.fail([]any{"submit", "mode"}, "submit.mode must be rpc or bundle, got %q", s.Mode)
	}
	if p.Kind == KindClaimWithdrawals && s.Mode == ModeRPC {
		b.fail([]any{"submit", "mode"}, "submit.mode must be bundle for claim-withdrawals: the claim transactions land in order as one bundle")
	}
	if s.TipLamports > 0 && s.Mode != ModeBundle {
		b.fail([]any{"submit", "tip_lamports"}, "submit.tip_lamports applies to mode bundle only")
	}
	if s.MaxFeeLamports == 0 {
		b.fail([]any{"submit", "max_fee_lamports"}, "submit.max_fee_lamports must be positive")
	}
	if !b.has("submit", "max_rent_lamports") {
		s.MaxRentLamports = defaultRent(p.Kind)
	}
	if p.Kind == KindAlert && b.has("submit") {
		b.fail([]any{"submit"}, "submit does not apply to alerts: they build no transaction")
	}
}
