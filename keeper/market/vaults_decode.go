package market

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// UnmarshalJSON decodes a vault record and keeps its raw JSON in Raw.
func (v *Vault) UnmarshalJSON(b []byte) error {
	type plain Vault
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("vault record: %w", err)
	}
	p.Raw = append(json.RawMessage(nil), bytes.TrimSpace(b)...)
	*v = Vault(p)
	return nil
}

// UnmarshalJSON decodes a bare array of vault records or an object holding them in items or vaults.
func (p *VaultsPage) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if isNull(b) {
		return errNullAnswer
	}
	if len(b) > 0 && b[0] == '[' {
		var items StrictList[Vault]
		if err := json.Unmarshal(b, &items); err != nil {
			return fmt.Errorf("vault listing array: %w", err)
		}
		*p = VaultsPage{Items: items}
		return nil
	}
	type plain VaultsPage
	var w struct {
		plain
		Vaults []Vault `json:"vaults"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("vault listing: %w", err)
	}
	if w.Items == nil {
		w.Items = w.Vaults
	}
	*p = VaultsPage(w.plain)
	return nil
}

// checkAnswer requires the list of vaults (possibly empty) and an address on every vault.
func (p *VaultsPage) checkAnswer() error {
	if err := requireMember("items", p.Items != nil); err != nil {
		return err
	}
	return requireEach("items", p.Items, "address", func(v *Vault) string { return v.Address })
}
