package apiwire

// Signature is one signature already present on a built transaction. PublicKey is base58; Signature
// is base64 or base58 (integrations differ).
type Signature struct {
	PublicKey string `json:"publicKey"`
	Signature string `json:"signature"`
}

// Transaction is a transaction built by the service: Message is the base64 of a compiled (usually v0)
// message, and Signatures holds the signatures the service has already placed, typically its
// co-signer's. The caller signs the exact message bytes and never modifies them.
type Transaction struct {
	Message    string      `json:"message"`
	Signatures []Signature `json:"signatures"`
}
