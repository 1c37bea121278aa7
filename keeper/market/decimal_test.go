package market

import (
	"encoding/json"
	"math/big"
	"testing"
)

func TestDecimalKeepsTheLiteral(t *testing.T) {
	var m map[string]Decimal
	if err := json.Unmarshal([]byte(`{"a": 123456789012345678901.5, "b": "86400.25", "c": null, "d": 1e3}`), &m); err != nil {
		t.Fatal(err)
	}
	want, _ := new(big.Rat).SetString("123456789012345678901.5")
	if m["a"].Rat().Cmp(want) != 0 {
		t.Errorf("a = %s, want exactly 123456789012345678901.5", m["a"].Rat().FloatString(2))
	}
	if m["b"].Float64() != 86400.25 || m["c"].String() != "0" || m["d"].Float64() != 1000 {
		t.Errorf("b, c, d = %v, %v, %v", m["b"], m["c"], m["d"])
	}
	out, err := json.Marshal(m["a"])
	if err != nil || string(out) != "123456789012345678901.5" {
		t.Errorf("marshal: %s, %v", out, err)
	}
}

func TestDecimalRefuses(t *testing.T) {
	for _, in := range []string{`"1/3"`, `"NaN"`, `"Inf"`, `"+1"`, `"1,5"`, `true`, `{}`, `"0x10"`} {
		var d Decimal
		if err := json.Unmarshal([]byte(in), &d); err == nil {
			t.Errorf("%s decoded as %s", in, d)
		}
	}
}
