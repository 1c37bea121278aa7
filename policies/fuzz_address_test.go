package policies

import (
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// FuzzAddress puts a string where policies name addresses (select's mints and
// a trigger's account) and holds Parse to what the daemon does with the
// address afterwards: it accepts the string exactly when the string is a
// public key (base58 of 32 bytes), so that what `keeper check` passes,
// `keeper run` can watch and select.
func FuzzAddress(f *testing.F) {
	for _, s := range []string{
		"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
		"So11111111111111111111111111111111111111112",
		"11111111111111111111111111111111",
		"not an address",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r > '~' || r == '\'' }) {
			return // not text an address could be; FuzzParse covers what parsing does with it
		}
		_, keyErr := solana.PublicKeyFromBase58(s)
		for _, where := range []string{
			"select: { target: loans, principal_mints: ['" + s + "'] }",
			"triggers: { account: [{address: '" + s + "'}] }",
		} {
			src := policyYAML("name: a", "kind: alert", `schedule: "@every 1m"`, "when: loan.health < 0.1",
				"params: { message: low }", where)
			if where[0] == 't' {
				src = policyYAML("name: a", "kind: alert", `schedule: "@every 1m"`, "select: { target: loans }",
					"when: loan.health < 0.1", "params: { message: low }", where)
			}
			_, err := Parse("fuzz.yaml", []byte(src))
			if (err == nil) != (keyErr == nil) {
				t.Fatalf("%s: Parse err = %v, but as a public key: %v", where, err, keyErr)
			}
		}
	})
}
