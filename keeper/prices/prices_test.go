package prices

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
)

// Feed ids and their shard-0 sponsored accounts as Pyth lists them
// (pyth-crosschain apps/developer-hub push-feeds/data/svm/solana-mainnet.json).
var knownFeeds = []struct{ name, feed, account string }{
	{"SOL/USD", "ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d", "7UVimffxr9ow1uXYxsr4LHAcV58mLzhmwaeKvJ1pjLiE"},
	{"USDC/USD", "0xeaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a", "Dpw1EAVrSB1ibxiDQyTAW6Zip3J4Btk2x4SgApQCeFbX"},
	{"USDT/USD", "2b89b9dc8fdf9f34709a5b106b472f0f39bb6ca9ce04b0fd7f2e971688e2e53b", "HT2PLQBcG5EiCcNSaMHAjSgd9F98ecpATbk4Sk5oYuM"},
}

func TestFeedAccountMatchesPythsList(t *testing.T) {
	for _, f := range knownFeeds {
		id, err := ParseFeedID(f.feed)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		got, err := FeedAccount(id, 0)
		if err != nil || got.String() != f.account {
			t.Errorf("%s: feed account %s (%v), want %s", f.name, got, err, f.account)
		}
	}
}

func TestParseFeedIDRefusesBadIDs(t *testing.T) {
	for _, s := range []string{"", "ef0d", strings.Repeat("z", 64), "0x" + strings.Repeat("a", 63)} {
		if _, err := ParseFeedID(s); err == nil {
			t.Errorf("ParseFeedID(%q) accepted it", s)
		}
	}
}

var (
	solFeed, _ = ParseFeedID(knownFeeds[0].feed)
	t0         = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	limits     = Limits{MaxAge: time.Minute, MaxConfidence: 0.01}
)

// partialUpdate lays out a Partial{num_signatures: 5} PriceUpdateV2 by the
// offsets of price_update.rs, where every field after the verification
// level sits one byte later than in a Full one.
func partialUpdate(price int64, conf uint64, expo int32, publish time.Time) []byte {
	data := make([]byte, PriceUpdateLen)
	copy(data, priceUpdateDiscriminator)
	data[40], data[41] = 0, 5
	copy(data[42:], solFeed[:])
	le := binary.LittleEndian
	le.PutUint64(data[74:], uint64(price))
	le.PutUint64(data[82:], conf)
	le.PutUint32(data[90:], uint32(expo))
	le.PutUint64(data[94:], uint64(publish.Unix()))
	le.PutUint64(data[126:], 300_000_000)
	return data
}

func TestDecodeUpdateReadsBothVerificationLevels(t *testing.T) {
	full := EncodeUpdate(Update{Feed: solFeed, Price: 12276250, Conf: 1250, Exponent: -5, PublishTime: t0, PostedSlot: 300_000_000})
	for name, data := range map[string][]byte{"full": full, "partial": partialUpdate(12276250, 1250, -5, t0)} {
		u, err := DecodeUpdate(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if u.Feed != solFeed || u.Price != 12276250 || u.Conf != 1250 || u.Exponent != -5 || !u.PublishTime.Equal(t0) || u.PostedSlot != 300_000_000 {
			t.Errorf("%s: decoded %+v", name, u)
		}
		if u.Full != (name == "full") {
			t.Errorf("%s: Full = %v", name, u.Full)
		}
		// The docs' example: 12276250 at exponent −5 is 122.7625.
		if v := u.Value(); math.Abs(v-122.7625) > 1e-9 {
			t.Errorf("%s: value %v, want 122.7625", name, v)
		}
	}
	for name, data := range map[string][]byte{
		"empty": nil, "other discriminator": append([]byte{1, 2, 3, 4, 5, 6, 7, 8}, full[8:]...),
		"short": full[:100], "bad level": append(append(append([]byte{}, full[:40]...), 7), full[41:]...),
	} {
		if _, err := DecodeUpdate(data); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

func TestCheckRefusesWhatCannotBeTrusted(t *testing.T) {
	good := Update{Full: true, Feed: solFeed, Price: 15_000_000_000, Conf: 10_000_000, Exponent: -8, PublishTime: t0}
	if v, err := good.Check(solFeed, t0.Add(time.Minute), limits); err != nil || v != 150 {
		t.Fatalf("a good price a minute old: %v, %v", v, err)
	}
	other, _ := ParseFeedID(knownFeeds[1].feed)
	cases := map[string]struct {
		edit func(*Update)
		now  time.Time
		want string
	}{
		"stale":        {func(*Update) {}, t0.Add(61 * time.Second), "stale"},
		"uncertain":    {func(u *Update) { u.Conf = 200_000_000 }, t0, "uncertain"},
		"partial":      {func(u *Update) { u.Full = false }, t0, "partially verified"},
		"other feed":   {func(u *Update) { u.Feed = other }, t0, "not " + solFeed.String()},
		"not positive": {func(u *Update) { u.Price = 0 }, t0, "not positive"},
	}
	for name, c := range cases {
		u := good
		c.edit(&u)
		if _, err := u.Check(solFeed, c.now, limits); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}

func TestBookPricesEachMintOrSaysWhyNot(t *testing.T) {
	sol, err := PythSource(solFeed, solana.PublicKey{})
	if err != nil {
		t.Fatal(err)
	}
	usdcFeed, _ := ParseFeedID(knownFeeds[1].feed)
	usdc, _ := PythSource(usdcFeed, solana.PublicKey{})
	usdtFeed, _ := ParseFeedID(knownFeeds[2].feed)
	usdt, _ := PythSource(usdtFeed, solana.PublicKey{})
	fresh := EncodeUpdate(Update{Feed: solFeed, Price: 15_000_000_000, Conf: 1, Exponent: -8, PublishTime: t0})
	stale := EncodeUpdate(Update{Feed: usdcFeed, Price: 100_000_000, Conf: 1, Exponent: -8, PublishTime: t0.Add(-time.Hour)})
	accounts := map[solana.PublicKey]*Account{
		sol.Account:  {Owner: ReceiverProgram, Data: fresh},
		usdc.Account: {Owner: ReceiverProgram, Data: stale},
	}
	reads := 0
	read := func(_ context.Context, keys []solana.PublicKey) ([]*Account, error) {
		reads++
		out := make([]*Account, len(keys))
		for i, k := range keys {
			out[i] = accounts[k]
		}
		return out, nil
	}
	b := NewBook(map[string]Source{"SOL": sol, "USDC": usdc, "USDT": usdt, "JTO": {USD: 2.5}}, limits, read)
	res := b.Prices(context.Background(), []string{"SOL", "USDC", "USDT", "JTO", "BONK"}, t0)
	got, unknown := res.USD, res.Unknown
	if reads != 1 {
		t.Errorf("%d reads, want the three Pyth accounts in one", reads)
	}
	if got["SOL"] != 150 || got["JTO"] != 2.5 || len(got) != 2 {
		t.Errorf("prices %v, want SOL 150 from Pyth and JTO 2.5 static", got)
	}
	for mint, want := range map[string]struct{ text, reason string }{
		"USDC": {"stale", "stale"}, "USDT": {"does not exist", "bad_account"}, "BONK": {ErrNoSource.Error(), "no_source"},
	} {
		if err := unknown[mint]; err == nil || !strings.Contains(err.Error(), want.text) || Reason(err) != want.reason {
			t.Errorf("%s: %v (%s), want an error saying %q (%s)", mint, err, Reason(err), want.text, want.reason)
		}
	}
	if !res.ChainTime.IsZero() {
		t.Errorf("chain time %s without a Clock account", res.ChainTime)
	}
	// The chain's clock, two hours on: SOL's fresh price is stale by it, whatever the local clock says.
	accounts[ClockSysvar] = clockAt(t0.Add(2 * time.Hour))
	res = b.Prices(context.Background(), []string{"SOL"}, t0)
	if !res.ChainTime.Equal(t0.Add(2*time.Hour)) || Reason(res.Unknown["SOL"]) != "stale" {
		t.Errorf("with the chain two hours on: chain time %s, SOL %v", res.ChainTime, res.Unknown["SOL"])
	}
	delete(accounts, ClockSysvar)
	accounts[sol.Account] = &Account{Owner: solana.SystemProgramID, Data: fresh}
	if u := b.Prices(context.Background(), []string{"SOL"}, t0).Unknown; u["SOL"] == nil || !strings.Contains(u["SOL"].Error(), "not the Pyth receiver") {
		t.Errorf("an account not owned by the receiver: %v", u["SOL"])
	}
	failing := NewBook(map[string]Source{"SOL": sol}, limits, func(context.Context, []solana.PublicKey) ([]*Account, error) {
		return nil, errors.New("503")
	})
	if u := failing.Prices(context.Background(), []string{"SOL"}, t0).Unknown; u["SOL"] == nil ||
		!strings.Contains(u["SOL"].Error(), "503") || Reason(u["SOL"]) != "read" {
		t.Errorf("a failed read: %v", u["SOL"])
	}
}

// clockAt is a Clock sysvar account whose unix_timestamp is at.
func clockAt(at time.Time) *Account {
	data := make([]byte, 40)
	binary.LittleEndian.PutUint64(data[32:], uint64(at.Unix()))
	return &Account{Owner: sysvarOwner, Data: data}
}
