package policies

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// actionIDVersion changes when the ID's contents change meaning.
const actionIDVersion = 1

// actionID returns the sha256 (hex) of the canonical JSON of the action's
// identity: policy, kind, target, the decision's inputs, the request, the
// guard bounds and the alert. encoding/json writes struct fields in order
// and map keys sorted, so equal inputs always give equal bytes.
func actionID(a *Action, inputs any) string {
	h := sha256.New()
	id := struct {
		V       int     `json:"v"`
		Policy  string  `json:"policy"`
		Kind    Kind    `json:"kind"`
		Target  string  `json:"target"`
		Inputs  any     `json:"inputs"`
		Request Request `json:"request"`
		Bounds  Bounds  `json:"bounds"`
		Submit  Submit  `json:"submit"`
		Alert   *Alert  `json:"alert,omitempty"`
	}{actionIDVersion, a.Policy, a.Kind, a.Target, inputs, a.Request, a.Bounds, a.Submit, a.Alert}
	if err := json.NewEncoder(h).Encode(id); err != nil {
		// Only a non-finite float in inputs can fail; hash its text instead.
		id.Inputs = fmt.Sprintf("%v", inputs)
		h.Reset()
		_ = json.NewEncoder(h).Encode(id)
	}
	return hex.EncodeToString(h.Sum(nil))
}
