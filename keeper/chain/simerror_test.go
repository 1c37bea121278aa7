package chain

import (
	"encoding/json"
	"testing"
)

func TestSimErrorInstruction(t *testing.T) {
	tests := []struct {
		json string
		want int
		ok   bool
	}{
		{`{"InstructionError":[2,{"Custom":1}]}`, 2, true},
		{`{"InstructionError":[0,"InvalidAccountData"]}`, 0, true},
		{`"BlockhashNotFound"`, 0, false},
		{`{"InstructionError":[-1,"X"]}`, 0, false},
		{`{"InstructionError":["a","X"]}`, 0, false},
		{`{"InsufficientFundsForRent":{"account_index":1}}`, 0, false},
	}
	for _, tt := range tests {
		var v any
		if err := json.Unmarshal([]byte(tt.json), &v); err != nil {
			t.Fatal(err)
		}
		got, ok := (&SimError{Err: v}).Instruction()
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: %d %v, want %d %v", tt.json, got, ok, tt.want, tt.ok)
		}
	}
	if got, ok := (&SimError{Err: map[string]any{"InstructionError": []any{3, "X"}}}).Instruction(); got != 3 || !ok {
		t.Errorf("int index: %d %v", got, ok)
	}
}

// TestSimErrorRentAccount reads the account a rent refusal names, and
// nothing else.
func TestSimErrorRentAccount(t *testing.T) {
	for _, tc := range []struct {
		err  any
		want int
		ok   bool
	}{
		{map[string]any{"InsufficientFundsForRent": map[string]any{"account_index": float64(0)}}, 0, true},
		{map[string]any{"InsufficientFundsForRent": map[string]any{"account_index": float64(3)}}, 3, true},
		{map[string]any{"InsufficientFundsForRent": map[string]any{"account_index": 1.5}}, 0, false},
		{map[string]any{"InstructionError": []any{float64(0), "Custom"}}, 0, false},
		{"BlockhashNotFound", 0, false},
	} {
		got, ok := (&SimError{Err: tc.err}).RentAccount()
		if got != tc.want || ok != tc.ok {
			t.Errorf("RentAccount of %v = %d, %v; want %d, %v", tc.err, got, ok, tc.want, tc.ok)
		}
	}
}
