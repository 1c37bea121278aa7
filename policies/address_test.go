package policies

import (
	"strings"
	"testing"
)

// long33 has an address's form (44 base58 characters) but decodes to 33
// bytes: no account has it, and decoding it to a key must not be left to
// whoever reads it later (`check --online` panicked on it).
const long33 = "VnSuyHPLv3XWRZZCpFxQwumxzecjv5UK2pvXpv6DGvQA"

// TestAddressesDecodeTo32Bytes: every address a policy names is decoded
// when the policy is parsed, and one of the wrong length is an error at
// its position that says so.
func TestAddressesDecodeTo32Bytes(t *testing.T) {
	repay := []string{"name: r", "kind: repay", `schedule: "@every 1m"`, "params: {trigger_health: 0.1, target_health: 0.2, max_amount: 1}"}
	cases := []struct {
		line, want string
	}{
		{"triggers: {account: [{address: " + long33 + "}]}", `test.yaml:6:36: policy "r": triggers.account[0].address: "` + long33 + `" is not a base58 address: it decodes to 33 bytes, an address to 32`},
		{"triggers: {account: [{pool: " + long33 + "}]}", `test.yaml:6:33: policy "r": triggers.account[0].pool: "` + long33 + `" is not a base58 address: it decodes to 33 bytes`},
		{"triggers: {price: [{mint: " + long33 + ", change: 0.1}]}", `test.yaml:6:31: policy "r": triggers.price[0].mint: "` + long33 + `" is not a base58 mint address: it decodes to 33 bytes`},
		{"select: {loans: [" + long33 + "]}", `test.yaml:6:22: policy "r": select.loans[0]: "` + long33 + `" is not a base58 address: it decodes to 33 bytes`},
		{"select: {principal_mints: [" + long33 + "]}", `test.yaml:6:32: policy "r": select.principal_mints[0]: "` + long33 + `" is not a base58 address: it decodes to 33 bytes`},
		{"limits: {daily_caps: {" + long33 + ": 5}}", `test.yaml:6:27: policy "r": limits.daily_caps: "` + long33 + `" is not a base58 mint address: it decodes to 33 bytes`},
		{"select: {loans: [1111111111111111111111111111111]}", `select.loans[0]: "1111111111111111111111111111111" is not a base58 address`},
	}
	for _, c := range cases {
		_, err := Parse("test.yaml", []byte(policyYAML(append(repay, c.line)...)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\nerror %v\nwant  %s", c.line, err, c.want)
		}
	}
	ok := policyYAML(append(repay, "triggers: {account: [{address: 11111111111111111111111111111111}]}")...)
	if _, err := Parse("test.yaml", []byte(ok)); err != nil {
		t.Errorf("the system program's address (32 zero bytes): %v", err)
	}
}
