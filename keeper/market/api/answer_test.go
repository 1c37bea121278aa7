package api

import (
	"github.com/keeper-project/keeper/keeper/market"
	"strings"
	"testing"
)

// strictReads calls every read of the client once; each returns the error of its decoding.
var strictReads = map[string]func(c *Client, t *testing.T) error{
	"loans": func(c *Client, t *testing.T) error {
		_, err := c.LoansInfo(bg(t), market.LoansQuery{})
		return err
	},
	"vaults": func(c *Client, t *testing.T) error {
		_, err := c.Vaults(bg(t), market.VaultsQuery{})
		return err
	},
	"deposits": func(c *Client, t *testing.T) error {
		_, err := c.VaultDeposits(bg(t), market.VaultDepositsQuery{})
		return err
	},
	"holders": func(c *Client, t *testing.T) error {
		_, err := c.HistoricalHolders(bg(t), market.HoldersRequest{Mint: "M"})
		return err
	},
	"loops": func(c *Client, t *testing.T) error {
		_, err := c.Loops(bg(t), market.LoopsQuery{})
		return err
	},
	"earn position": func(c *Client, t *testing.T) error {
		_, err := c.EarnPosition(bg(t), market.EarnPositionRequest{Address: "A", Wallet: "W"})
		return err
	},
	"withdrawal queue": func(c *Client, t *testing.T) error {
		_, err := c.WithdrawalQueue(bg(t), market.WithdrawalQueueRequest{Address: "A"})
		return err
	},
}

// TestNullAnswerIsADecodeError shows that a read answered with null, or with an object lacking the
// list it must carry, is an error and never an empty result that would silently stop every policy.
func TestNullAnswerIsADecodeError(t *testing.T) {
	bodies := []string{"null", " null\n", "{}", `{"items":null}`, `{"requests":null,"openWithdrawalRequests":null}`}
	for name, call := range strictReads {
		for _, body := range bodies {
			f := &fakeAPI{respond: always(reply{Body: body})}
			err := call(newServer(t, f, nil), t)
			if err == nil {
				t.Errorf("%s answered %q: no error, want a decode error", name, body)
				continue
			}
			if _, ok := isAPIError(err); !ok || !strings.Contains(err.Error(), "decode") {
				t.Errorf("%s answered %q: err = %v, want a decode error", name, body, err)
			}
		}
	}
}

// TestNullElementIsADecodeError shows that a null element of a listing is refused with its position
// instead of becoming an empty record.
func TestNullElementIsADecodeError(t *testing.T) {
	bodies := map[string]string{
		"loans":            `{"items":[null]}`,
		"vaults":           `{"items":[null]}`,
		"deposits":         `[null]`,
		"holders":          `[null]`,
		"loops":            `[null]`,
		"earn position":    `{"openWithdrawalRequests":[null]}`,
		"withdrawal queue": `{"requests":[null]}`,
	}
	for name, body := range bodies {
		f := &fakeAPI{respond: always(reply{Body: body})}
		if err := strictReads[name](newServer(t, f, nil), t); err == nil {
			t.Errorf("%s answered %q: no error, want the null element refused", name, body)
		}
	}
}

// TestEmptyListIsAValidAnswer keeps a genuinely empty answer valid: no targets is a real state.
func TestEmptyListIsAValidAnswer(t *testing.T) {
	bodies := map[string]string{
		"loans":            `{"items":[]}`,
		"vaults":           `{"items":[]}`,
		"deposits":         `[]`,
		"holders":          `[]`,
		"loops":            `[]`,
		"earn position":    `{"openWithdrawalRequests":[]}`,
		"withdrawal queue": `{"requests":[]}`,
	}
	for name, body := range bodies {
		f := &fakeAPI{respond: always(reply{Body: body})}
		if err := strictReads[name](newServer(t, f, nil), t); err != nil {
			t.Errorf("%s answered %q: %v, want an empty answer accepted", name, body, err)
		}
	}
}

// TestObjectWhereArrayIsDue refuses an object in place of a listing.
func TestObjectWhereArrayIsDue(t *testing.T) {
	for name, call := range strictReads {
		f := &fakeAPI{respond: always(reply{Body: `{"items":{},"requests":{},"openWithdrawalRequests":{}}`})}
		if err := call(newServer(t, f, nil), t); err == nil {
			t.Errorf("%s: an object where an array is due was accepted", name)
		}
	}
}
