package api

import "testing"

// TestWarmBuildDecodes checks that Warm's canned build goes through the client and decodes whole
// into the answer every build's transactions take: a member the canned answer misses would leave
// its decoder unbuilt until an action needs it.
func TestWarmBuildDecodes(t *testing.T) {
	got, err := warmBuild()
	if err != nil {
		t.Fatal(err)
	}
	if got.Loan != warmKey || len(got.Transactions) != 1 || got.Transactions[0].Message != "AQ==" ||
		len(got.Transactions[0].Signatures) != 1 || got.Transactions[0].Signatures[0].PublicKey != warmKey ||
		got.Transactions[0].Signatures[0].Signature != "1" {
		t.Errorf("warm build answered %+v", got)
	}
}
