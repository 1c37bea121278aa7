package market

import "testing"

func TestWithdrawalState(t *testing.T) {
	tests := []struct {
		name      string
		r         WithdrawalRequest
		want      WithdrawalState
		claimable bool
	}{
		{"open", WithdrawalRequest{RequestedAmount: 500}, WithdrawalOpen, false},
		{"partially filled", WithdrawalRequest{RequestedAmount: 500, FilledAmount: 499}, WithdrawalPartiallyFilled, false},
		{"filled", WithdrawalRequest{RequestedAmount: 500, FilledAmount: 500}, WithdrawalFilled, true},
		{"over-filled counts as filled", WithdrawalRequest{RequestedAmount: 500, FilledAmount: 501}, WithdrawalFilled, true},
		{"claimed", WithdrawalRequest{RequestedAmount: 500, FilledAmount: 500, ClaimedAmount: 500}, WithdrawalClaimed, false},
		{"cancelled", WithdrawalRequest{RequestedAmount: 500, FilledAmount: 100, Cancelled: true}, WithdrawalCancelled, false},
		{"zero request is open", WithdrawalRequest{}, WithdrawalOpen, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.State(); got != tc.want {
				t.Errorf("State() = %v, want %v", got, tc.want)
			}
			if got := tc.r.Claimable(); got != tc.claimable {
				t.Errorf("Claimable() = %v, want %v", got, tc.claimable)
			}
		})
	}
	names := map[WithdrawalState]string{WithdrawalOpen: "open", WithdrawalPartiallyFilled: "partially-filled",
		WithdrawalFilled: "filled", WithdrawalClaimed: "claimed", WithdrawalCancelled: "cancelled", 9: "withdrawalState(9)"}
	for s, want := range names {
		if s.String() != want {
			t.Errorf("String(%d) = %q, want %q", int(s), s.String(), want)
		}
	}
}
