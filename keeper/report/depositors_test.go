package report

import (
	"testing"

	"github.com/keeper-project/keeper/keeper/market"
)

func TestDepositorsMergesPages(t *testing.T) {
	recs := []market.VaultDeposits{
		{VaultAddress: "V1", UserDeposits: []market.UserDeposit{{AmountSupplied: 600, UserAddress: "alice"}}},
		{VaultAddress: "V2", UserDeposits: []market.UserDeposit{{AmountSupplied: 50, UserAddress: "carol"}}},
		// The next page continues V1, and lists alice again for another position.
		{VaultAddress: "V1", UserDeposits: []market.UserDeposit{{AmountSupplied: 300, UserAddress: "bob"}, {AmountSupplied: 100, UserAddress: "alice"}}},
	}
	got, err := Depositors(recs, map[string]string{"V1": "USDC"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Vault != "V1" || got[0].Total != 1000 || got[0].PrincipalMint != "USDC" || got[1].Total != 50 || got[1].PrincipalMint != "" {
		t.Fatalf("vaults %+v", got)
	}
	users := got[0].Users
	if len(users) != 2 || users[0] != (Depositor{"alice", 700, 0.7}) || users[1] != (Depositor{"bob", 300, 0.3}) {
		t.Errorf("V1 users %+v, want alice 700 (0.7) then bob 300 (0.3)", users)
	}
}

func TestDepositorsRefusesOverflow(t *testing.T) {
	recs := []market.VaultDeposits{{VaultAddress: "V", UserDeposits: []market.UserDeposit{
		{AmountSupplied: 1<<64 - 1, UserAddress: "a"}, {AmountSupplied: 1, UserAddress: "b"}}}}
	if _, err := Depositors(recs, nil); err == nil {
		t.Error("a total over 64 bits was accepted")
	}
}
