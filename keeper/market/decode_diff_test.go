package market

import (
	stdjson "encoding/json"
	"reflect"
	"testing"

	json "github.com/go-json-experiment/json/v1"
)

// wirePages holds every shape a loans or vaults page arrives in, through the wire types the
// decoders use.
type wirePages struct {
	Items      []loanItemWire `json:"items"`
	LoanInfos  []loanItemWire `json:"loanInfos"`
	Vaults     []Vault        `json:"vaults"`
	SnapshotTs int64          `json:"snapshotTs"`
	PageInfo   PageInfo       `json:"pageInfo"`
}

// FuzzDecoderMatchesEncodingJSON checks that the decoder keeper uses for answers (encoding/json/v2's
// mirror with encoding/json's semantics) accepts exactly what encoding/json accepts and decodes it to
// the same values: the answers' meaning does not depend on which of the two decodes them.
func FuzzDecoderMatchesEncodingJSON(f *testing.F) {
	page := loansPageOf(f, 2)
	f.Add(page)
	for _, body := range []string{`{"items":[{"loan":{"address":"L","ADDRESS":"M"}}]}`, `{"items":null}`,
		`{"Items":[{"ledgers":[{"lastInterestUpdateTime":5,"apy":"12"}]}],"snapshotTs":1e3}`,
		`{"items":[{"loan":{"address":"\ud800"}}], "snapshotTs": 9223372036854775808}`,
		`{"vaults":[{"address":"V","vaultStrategy":{}}],"items":[]} `, `{"items":[{"collateral":[{"amount":"-1"}]}]}`,
		`{"items":[],"items":[{}]}`, "{\"items\":[{\"loan\":{\"address\":\"\xff\"}}]}"} {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var want, got wirePages
		wantErr := stdjson.Unmarshal(body, &want)
		gotErr := json.Unmarshal(body, &got)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%q: encoding/json says %v, keeper's decoder %v", body, wantErr, gotErr)
		}
		if wantErr == nil && !reflect.DeepEqual(want, got) {
			t.Fatalf("%q decodes differently:\nencoding/json %+v\nkeeper's      %+v", body, want, got)
		}
	})
}
