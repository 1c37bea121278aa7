package config

import (
	"strings"
	"testing"
)

// marketReadsYAML is the minimal config with extra lines in market:.
func marketReadsYAML(lines string) []byte {
	return []byte("market:\n  program_id: SimMarket1111111111111111111111111111111111\n" + lines +
		"chain:\n  dex_a_program: SimDexA111111111111111111111111111111111111\n  dex_b_program: SimDexB111111111111111111111111111111111111\npolicies: [\"policies/*.yaml\"]\n")
}

// TestMarketReadSettings: the loans walk's page size and pages in flight
// default to 500 and 4 and are bounded; market.shared_walk_max_loans, which
// no longer has a meaning, is still accepted (keeper warns that it ignores
// it), so that an upgrade does not stop a daemon over a tuning key.
func TestMarketReadSettings(t *testing.T) {
	c, err := Load("keeper.yaml", t.TempDir(), marketReadsYAML(""), lookup)
	if err != nil {
		t.Fatal(err)
	}
	if c.Market.PageSize != 500 || c.Market.PagesInFlight != 4 || c.Market.SharedWalkMaxLoans != nil {
		t.Errorf("defaults: page_size %d, pages_in_flight %d, shared_walk_max_loans %v", c.Market.PageSize, c.Market.PagesInFlight, c.Market.SharedWalkMaxLoans)
	}
	c, err = Load("keeper.yaml", t.TempDir(), marketReadsYAML("  shared_walk_max_loans: 15000\n  page_size: 1000\n  pages_in_flight: 8\n"), lookup)
	if err != nil {
		t.Fatalf("the deprecated key: %v", err)
	}
	if c.Market.SharedWalkMaxLoans == nil || *c.Market.SharedWalkMaxLoans != 15000 || c.Market.PageSize != 1000 || c.Market.PagesInFlight != 8 {
		t.Errorf("values not decoded: %+v", c.Market)
	}
	for lines, want := range map[string]string{
		"  page_size: 0\n":        "market.page_size must be 1 to 5000, got 0",
		"  page_size: 6000\n":     "market.page_size must be 1 to 5000, got 6000",
		"  pages_in_flight: 0\n":  "market.pages_in_flight must be 1 to 32, got 0",
		"  pages_in_flight: 64\n": "market.pages_in_flight must be 1 to 32, got 64",
	} {
		if _, err := Load("keeper.yaml", t.TempDir(), marketReadsYAML(lines), lookup); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", lines, err, want)
		}
	}
}
