package config

import (
	"encoding/hex"
	"regexp"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// DefaultTokenTimeout bounds each call to a PKCS#11 token when
// signer.pkcs11.timeout is not set, and MaxTokenTimeout is the longest
// accepted: a signature waits for it while an action's blockhash ages.
const (
	DefaultTokenTimeout = 5 * time.Second
	MaxTokenTimeout     = time.Minute
)

// envRef matches a value that is one reference to an environment variable
// and nothing else.
var envRef = regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]*\}$`)

// pinWrittenInline reports whether the config file root writes
// signer.pkcs11.pin as anything but one ${NAME}: a PIN in the file itself.
// It must look before decoding, which expands the reference in place.
func pinWrittenInline(root *yaml.Node) bool {
	path := []any{"signer", "pkcs11", "pin"}
	if !(&validator{root: root}).written("signer", "pkcs11", "pin") {
		return false
	}
	n := strictyaml.Find(root, path...)
	return n.Kind != yaml.ScalarNode || !envRef.MatchString(n.Value)
}

// validate checks the PKCS#11 key source: a module, one of token_label and
// slot, a key label or a hex id, the PIN from the environment or a file, a
// sane timeout; paths resolve against the config's folder.
func (p *PKCS11) validate(v *validator) {
	at := func(key string) []any { return []any{"signer", "pkcs11", key} }
	if p.Module == "" {
		v.fail(at("module"), "signer.pkcs11.module is required: the path of the token's PKCS#11 library")
	}
	if (p.TokenLabel == "") == (p.Slot == nil) {
		v.fail([]any{"signer", "pkcs11"}, "signer.pkcs11: set exactly one of token_label and slot")
	}
	if p.KeyLabel == "" && p.KeyID == "" {
		v.fail([]any{"signer", "pkcs11"}, "signer.pkcs11: set key_label, key_id or both")
	}
	if _, err := hex.DecodeString(p.KeyID); err != nil {
		v.fail(at("key_id"), "signer.pkcs11.key_id must be hex digits (the CKA_ID, as pkcs11-tool --id takes it), got %s", strictyaml.Excerpt(p.KeyID))
	}
	switch {
	case v.inlinePIN:
		v.fail(at("pin"), "signer.pkcs11.pin must be an environment variable written as ${NAME}, never the PIN itself; or use pin_file")
	case (p.PIN == "") == (p.PINFile == ""):
		v.fail([]any{"signer", "pkcs11"}, "signer.pkcs11: set exactly one of pin (as ${NAME}) and pin_file")
	}
	if p.Timeout == 0 {
		p.Timeout = DefaultTokenTimeout
	}
	if p.Timeout < 0 || p.Timeout > MaxTokenTimeout {
		v.fail(at("timeout"), "signer.pkcs11.timeout must be positive and at most %s, got %s", MaxTokenTimeout, p.Timeout)
	}
	p.Module = resolvePath(v.dir, p.Module)
	p.PINFile = resolvePath(v.dir, p.PINFile)
}

// KeyIDBytes returns key_id as bytes (checked when the config loaded).
func (p *PKCS11) KeyIDBytes() []byte {
	b, _ := hex.DecodeString(p.KeyID)
	return b
}
