package p11

import (
	"bytes"
	"crypto/ed25519"
	"encoding/asn1"
	"errors"
	"fmt"
)

// module is a loaded PKCS#11 library: the calls a token key makes of it.
// Every call may block for as long as the token takes; the token key bounds
// each (see call). The cgo build implements it over the library
// (cgo.go); tests fake it.
type module interface {
	// slots lists the slots that hold a token, and tokenLabel reads one's
	// label.
	slots() ([]uint, error)
	tokenLabel(slot uint) (string, error)
	// openSession opens a read-only session on the token in slot.
	openSession(slot uint) (session, error)
	// release drops this key's use of the library, finalizing it when no
	// other key uses it.
	release()
}

// session is one PKCS#11 session on the token.
type session interface {
	// login logs the user in with pin; a user already logged in (by
	// another session of the process) is success.
	login(pin []byte) error
	// findKey finds the private keys matching label and id (either may be
	// empty) and the public key of the first one.
	findKey(label string, id []byte) (keyObjects, error)
	// sign signs msg with CKM_EDDSA by the private key findKey found.
	sign(msg []byte) ([]byte, error)
	close()
}

// keyObjects is what findKey read of the key pair's objects.
type keyObjects struct {
	privates   int  // private keys that match
	privType   uint // CKA_KEY_TYPE of the private key
	havePublic bool // a public key object with the private key's id (or label) exists
	pubType    uint // its CKA_KEY_TYPE
	params     []byte
	point      []byte // its CKA_EC_PARAMS and CKA_EC_POINT, when an EC key
}

// PKCS#11 values the token key reads (PKCS#11 3.0, pkcs11t.h).
const (
	ckkECEdwards = 0x40   // CKK_EC_EDWARDS
	ckmEdDSA     = 0x1057 // CKM_EDDSA
)

// ckr is a failure a PKCS#11 call returned (a CK_RV). It prints as its
// number and, for the values the token key tells apart, its name: never
// text from the module.
type ckr uint

// The return values the token key tells apart.
const (
	ckrGeneralError           ckr = 0x05
	ckrFunctionFailed         ckr = 0x06
	ckrDeviceError            ckr = 0x30
	ckrDeviceRemoved          ckr = 0x32
	ckrKeyHandleInvalid       ckr = 0x60
	ckrObjectHandleInvalid    ckr = 0x82
	ckrPINIncorrect           ckr = 0xA0
	ckrPINInvalid             ckr = 0xA1
	ckrPINLenRange            ckr = 0xA2
	ckrPINExpired             ckr = 0xA3
	ckrPINLocked              ckr = 0xA4
	ckrSessionClosed          ckr = 0xB0
	ckrSessionHandleInvalid   ckr = 0xB3
	ckrTokenNotPresent        ckr = 0xE0
	ckrTokenNotRecognized     ckr = 0xE1
	ckrUserAlreadyLoggedIn    ckr = 0x100
	ckrUserNotLoggedIn        ckr = 0x101
	ckrCryptokiNotInitialized ckr = 0x190
)

var ckrNames = map[ckr]string{
	ckrGeneralError: "CKR_GENERAL_ERROR", ckrFunctionFailed: "CKR_FUNCTION_FAILED", ckrDeviceError: "CKR_DEVICE_ERROR", ckrDeviceRemoved: "CKR_DEVICE_REMOVED",
	ckrKeyHandleInvalid: "CKR_KEY_HANDLE_INVALID", ckrObjectHandleInvalid: "CKR_OBJECT_HANDLE_INVALID",
	ckrPINIncorrect: "CKR_PIN_INCORRECT", ckrPINInvalid: "CKR_PIN_INVALID", ckrPINLenRange: "CKR_PIN_LEN_RANGE",
	ckrPINExpired: "CKR_PIN_EXPIRED", ckrPINLocked: "CKR_PIN_LOCKED",
	ckrSessionClosed: "CKR_SESSION_CLOSED", ckrSessionHandleInvalid: "CKR_SESSION_HANDLE_INVALID",
	ckrTokenNotPresent: "CKR_TOKEN_NOT_PRESENT", ckrTokenNotRecognized: "CKR_TOKEN_NOT_RECOGNIZED",
	ckrUserAlreadyLoggedIn: "CKR_USER_ALREADY_LOGGED_IN", ckrUserNotLoggedIn: "CKR_USER_NOT_LOGGED_IN",
	ckrCryptokiNotInitialized: "CKR_CRYPTOKI_NOT_INITIALIZED",
}

// Error names the return value.
func (c ckr) Error() string {
	if name, ok := ckrNames[c]; ok {
		return fmt.Sprintf("PKCS#11 %s (%#x)", name, uint(c))
	}
	return fmt.Sprintf("PKCS#11 error %#x", uint(c))
}

// sessionLost reports whether err says the session is gone but the token
// may answer a new one: the session was closed or invalidated, the login
// ended, the device was reset, or the key's handle went stale (a token
// re-initialized or re-connected hands out new ones). Re-opening, which
// finds the token and the key again, and retrying once is safe: Ed25519
// signs the same message to the same signature.
func sessionLost(err error) bool {
	c, ok := errors.AsType[ckr](err)
	if !ok {
		return false
	}
	switch c {
	case ckrSessionClosed, ckrSessionHandleInvalid, ckrUserNotLoggedIn, ckrDeviceRemoved, ckrTokenNotPresent,
		ckrDeviceError, ckrCryptokiNotInitialized, ckrKeyHandleInvalid, ckrObjectHandleInvalid:
		return true
	}
	return false
}

// loginError says what a failed login means: a PIN problem is named as
// such (and never retried: tokens lock the PIN after a few wrong ones).
func loginError(err error) error {
	c, _ := errors.AsType[ckr](err)
	switch c {
	case ckrPINIncorrect, ckrPINInvalid, ckrPINLenRange:
		return fmt.Errorf("%w (%w): check the PIN; a few more wrong ones lock it", ErrPIN, err)
	case ckrPINLocked, ckrPINExpired:
		return fmt.Errorf("%w (%w): the PIN is locked or expired; the token's security officer must reset it", ErrPIN, err)
	case ckrTokenNotPresent, ckrDeviceRemoved, ckrTokenNotRecognized:
		return fmt.Errorf("%w (%w)", ErrAbsent, err)
	}
	return fmt.Errorf("log in: %w", err)
}

// OIDs and names of the edwards25519 curve that CKA_EC_PARAMS may hold
// (PKCS#11 3.0 allows the OID, 1.3.101.112, or the printable curve name).
var (
	oidEd25519      = asn1.ObjectIdentifier{1, 3, 101, 112}
	curveEd25519    = "edwards25519"
	errNotEdwards25 = fmt.Errorf("%w: the curve is not edwards25519", ErrNotEd25519)
)

// publicKey checks that o is one Ed25519 key pair and returns its public key.
func (o keyObjects) publicKey() (ed25519.PublicKey, error) {
	switch {
	case o.privates == 0:
		return nil, fmt.Errorf("%w: no private key has this label and id", ErrKeyNotFound)
	case o.privates > 1:
		return nil, fmt.Errorf("%w: %d private keys match; set the key id too", ErrKeyNotFound, o.privates)
	case o.privType != ckkECEdwards:
		return nil, fmt.Errorf("%w: the private key's type is %#x, want CKK_EC_EDWARDS", ErrNotEd25519, o.privType)
	case !o.havePublic:
		return nil, fmt.Errorf("%w: the private key has no public key object with its id (or label)", ErrKeyNotFound)
	case o.pubType != ckkECEdwards:
		return nil, fmt.Errorf("%w: the public key's type is %#x, want CKK_EC_EDWARDS", ErrNotEd25519, o.pubType)
	}
	if !isEd25519Params(o.params) {
		return nil, errNotEdwards25
	}
	return ed25519Point(o.point)
}

// isEd25519Params reports whether params (CKA_EC_PARAMS, DER) name the
// edwards25519 curve.
func isEd25519Params(params []byte) bool {
	var oid asn1.ObjectIdentifier
	if rest, err := asn1.Unmarshal(params, &oid); err == nil && len(rest) == 0 {
		return oid.Equal(oidEd25519)
	}
	var name string
	rest, err := asn1.UnmarshalWithParams(params, &name, "printable")
	return err == nil && len(rest) == 0 && name == curveEd25519
}

// ed25519Point decodes CKA_EC_POINT: the 32-byte point in a DER OCTET
// STRING, as PKCS#11 3.0 says, or bare, as some tokens return it.
func ed25519Point(point []byte) (ed25519.PublicKey, error) {
	if len(point) == ed25519.PublicKeySize+2 && point[0] == asn1.TagOctetString && point[1] == ed25519.PublicKeySize {
		point = point[2:]
	}
	if len(point) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: its public point has %d bytes, want %d", ErrNotEd25519, len(point), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(bytes.Clone(point)), nil
}
