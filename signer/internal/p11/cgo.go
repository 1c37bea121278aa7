//go:build cgo

package p11

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/miekg/pkcs11"
)

// Cgo reports whether this build can load a PKCS#11 library.
const Cgo = true

// libraries are the PKCS#11 libraries loaded, by path, with how many keys
// use each: a library is initialized once per process (C_Initialize is
// process-wide) and finalized when its last key is closed.
var libraries = struct {
	sync.Mutex
	m map[string]*library
}{m: map[string]*library{}}

// library is one loaded PKCS#11 library.
type library struct {
	path string
	ctx  *pkcs11.Ctx
	refs int
}

// loadModule loads and initializes the library at path, or takes another
// reference to it when it is loaded already.
func loadModule(path string) (module, error) {
	libraries.Lock()
	defer libraries.Unlock()
	if l, ok := libraries.m[path]; ok {
		l.refs++
		return l, nil
	}
	ctx := pkcs11.New(path)
	if ctx == nil {
		return nil, errors.New("module: cannot load it as a PKCS#11 library (dlopen failed or it has no C_GetFunctionList)")
	}
	if err := ctx.Initialize(); err != nil && !errors.Is(err, pkcs11.Error(pkcs11.CKR_CRYPTOKI_ALREADY_INITIALIZED)) {
		ctx.Destroy()
		return nil, fmt.Errorf("module: initialize: %w", moduleError(err))
	}
	l := &library{path: path, ctx: ctx, refs: 1}
	libraries.m[path] = l
	return l, nil
}

// release implements module.
func (l *library) release() {
	libraries.Lock()
	defer libraries.Unlock()
	if l.refs--; l.refs > 0 {
		return
	}
	delete(libraries.m, l.path)
	_ = l.ctx.Finalize()
	l.ctx.Destroy()
}

// slots implements module.
func (l *library) slots() ([]uint, error) {
	s, err := l.ctx.GetSlotList(true)
	return s, moduleError(err)
}

// tokenLabel implements module.
func (l *library) tokenLabel(slot uint) (string, error) {
	info, err := l.ctx.GetTokenInfo(slot)
	return info.Label, moduleError(err)
}

// openSession implements module.
func (l *library) openSession(slot uint) (session, error) {
	h, err := l.ctx.OpenSession(slot, pkcs11.CKF_SERIAL_SESSION)
	if err != nil {
		return nil, moduleError(err)
	}
	return &cgoSession{ctx: l.ctx, h: h}, nil
}

// cgoSession is a session of a loaded library.
type cgoSession struct {
	ctx  *pkcs11.Ctx
	h    pkcs11.SessionHandle
	priv pkcs11.ObjectHandle // found by findKey
}

// login implements session.
func (s *cgoSession) login(pin []byte) error {
	err := s.ctx.Login(s.h, pkcs11.CKU_USER, string(pin))
	if errors.Is(err, pkcs11.Error(pkcs11.CKR_USER_ALREADY_LOGGED_IN)) {
		return nil
	}
	return moduleError(err)
}

// findKey implements session.
func (s *cgoSession) findKey(label string, id []byte) (keyObjects, error) {
	var o keyObjects
	privs, err := s.find(pkcs11.CKO_PRIVATE_KEY, label, id)
	if err != nil || len(privs) == 0 {
		return o, err
	}
	o.privates, s.priv = len(privs), privs[0]
	attrs, err := s.attributes(s.priv, pkcs11.CKA_KEY_TYPE, pkcs11.CKA_ID, pkcs11.CKA_LABEL)
	if err != nil {
		return o, err
	}
	o.privType = ulong(attrs[pkcs11.CKA_KEY_TYPE])
	// The public key shares the private key's id; by label when it has none.
	pubLabel, pubID := "", attrs[pkcs11.CKA_ID]
	if len(pubID) == 0 {
		pubLabel = string(attrs[pkcs11.CKA_LABEL])
	}
	pubs, err := s.find(pkcs11.CKO_PUBLIC_KEY, pubLabel, pubID)
	if err != nil || len(pubs) == 0 {
		return o, err
	}
	o.havePublic = true
	if attrs, err = s.attributes(pubs[0], pkcs11.CKA_KEY_TYPE); err != nil {
		return o, err
	}
	if o.pubType = ulong(attrs[pkcs11.CKA_KEY_TYPE]); o.pubType != ckkECEdwards {
		return o, nil // no EC attributes to read
	}
	if attrs, err = s.attributes(pubs[0], pkcs11.CKA_EC_PARAMS, pkcs11.CKA_EC_POINT); err != nil {
		return o, err
	}
	o.params, o.point = attrs[pkcs11.CKA_EC_PARAMS], attrs[pkcs11.CKA_EC_POINT]
	return o, nil
}

// maxMatches bounds how many matching objects find reads: two are enough to
// tell one from several.
const maxMatches = 2

// find returns the objects of class with label and id (each when set).
func (s *cgoSession) find(class uint, label string, id []byte) ([]pkcs11.ObjectHandle, error) {
	tmpl := []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_CLASS, class)}
	if label != "" {
		tmpl = append(tmpl, pkcs11.NewAttribute(pkcs11.CKA_LABEL, label))
	}
	if len(id) > 0 {
		tmpl = append(tmpl, pkcs11.NewAttribute(pkcs11.CKA_ID, id))
	}
	if err := s.ctx.FindObjectsInit(s.h, tmpl); err != nil {
		return nil, moduleError(err)
	}
	found, _, err := s.ctx.FindObjects(s.h, maxMatches)
	if ferr := s.ctx.FindObjectsFinal(s.h); err == nil {
		err = ferr
	}
	return found, moduleError(err)
}

// attributes reads the attributes types of object h.
func (s *cgoSession) attributes(h pkcs11.ObjectHandle, types ...uint) (map[uint][]byte, error) {
	tmpl := make([]*pkcs11.Attribute, len(types))
	for i, t := range types {
		tmpl[i] = pkcs11.NewAttribute(t, nil)
	}
	attrs, err := s.ctx.GetAttributeValue(s.h, h, tmpl)
	if err != nil {
		return nil, moduleError(err)
	}
	out := make(map[uint][]byte, len(attrs))
	for _, a := range attrs {
		out[a.Type] = a.Value
	}
	return out, nil
}

// ulong decodes a CK_ULONG attribute value (native byte order, 4 or 8
// bytes); any other length decodes to a value no key type has.
func ulong(b []byte) uint {
	switch len(b) {
	case 4:
		return uint(binary.NativeEndian.Uint32(b))
	case 8:
		return uint(binary.NativeEndian.Uint64(b))
	}
	return ^uint(0)
}

// sign implements session.
func (s *cgoSession) sign(msg []byte) ([]byte, error) {
	if err := s.ctx.SignInit(s.h, []*pkcs11.Mechanism{pkcs11.NewMechanism(ckmEdDSA, nil)}, s.priv); err != nil {
		return nil, moduleError(err)
	}
	sig, err := s.ctx.Sign(s.h, msg)
	return sig, moduleError(err)
}

// close implements session.
func (s *cgoSession) close() { _ = s.ctx.CloseSession(s.h) }

// moduleError turns the library's error into a ckr, which names the return
// value only; nil stays nil.
func moduleError(err error) error {
	if err == nil {
		return nil
	}
	if e, ok := errors.AsType[pkcs11.Error](err); ok {
		return ckr(e)
	}
	return errors.New("the PKCS#11 library failed")
}
