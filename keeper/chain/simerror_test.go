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
