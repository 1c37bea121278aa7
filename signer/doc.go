// Package signer holds keeper's key material, decodes the transactions the
// lending market's API builds, guards them and signs them.
//
// It is the only package that touches the private key, and it does no network
// I/O: it imports the standard library, solana-go and, in a cgo build,
// miekg/pkcs11 to talk to a hardware token.
//
// # Keys
//
// [Load] reads a Solana CLI keypair file (a JSON array of 64 bytes) or a base58
// secret, from a file or from an environment variable. Key files readable by
// group or others are refused unless [KeySource].AllowInsecurePermissions is
// set. [Generate] makes an ephemeral key for simulations, and
// [Signer.WriteKeypairFile] saves it as a CLI keypair file with mode 0600. A
// [Signer] never prints its secret: fmt verbs, slog handlers, JSON and text
// marshalling all show the public key only, and no error quotes key material.
//
// [LoadToken] instead uses an Ed25519 key held in a PKCS#11 token (an HSM,
// PKCS#11 3.0: CKK_EC_EDWARDS, CKM_EDDSA): it reads the public key at start
// and has the token sign every message, the guard having passed first, and
// checks each signature against the public key. Every call to the token has a
// deadline ([TokenSource].Timeout); a call past it is abandoned and its
// session dropped; a session lost mid-run is re-opened and the signature
// tried once more. Loading a PKCS#11 library takes cgo: a build without it
// refuses the token with [ErrTokenNeedsCgo]. Errors never carry the PIN, and
// name the module's failures by their PKCS#11 return value only.
//
// # Decoding
//
// [DecodeAPITransaction] takes the API's transaction object (a base64 message,
// base58 accepted as a fallback, and the co-signatures the API already made).
// [DecodeWire] takes one entry of an earn claim's txBase64s, which may be a
// full wire transaction or a bare message. Both parse the message strictly (the
// same sanitize rules the chain applies, no trailing bytes, canonical
// lengths), verify every signature they are given over the exact message bytes,
// and keep the original bytes: a [Tx] is inspected, never re-serialized.
//
// # Guard and signing
//
// [Signer.WithGuard] attaches a [GuardConfig]. [Signer.Sign] runs the guard for
// an action [Kind] and its [Bounds] and signs only when every rule passes; a
// refusal is a [*Refusal] naming the rule, the instruction and the program.
// [CheckOutflows] is the second check, over the outflows a simulation reports.
// [Signer.SignTip] signs keeper's own Jito tip transaction.
//
// The guard corpus in testdata/guard is produced by the generator under
// internal/fixture:
//
//go:generate go run ./internal/fixture/cmd/genfixtures -out testdata/guard
package signer
