package notify

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"math/big"
	"net"
	"net/textproto"
	"strings"
	"testing"
	"time"
)

// testCert is a self-signed certificate for 127.0.0.1, and a pool
// trusting it.
func testCert(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// smtpServer accepts one session on ln, offering STARTTLS (when cert is
// set) and AUTH PLAIN, and sends what it heard on the channel.
type smtpSession struct {
	auth, from string
	to         []string
	data       string
	tls        bool
}

func serveSMTP(t *testing.T, ln net.Listener, cert *tls.Certificate, got chan<- smtpSession) {
	conn, err := ln.Accept()
	if err != nil {
		return
	}
	defer conn.Close()
	var s smtpSession
	tp := textproto.NewConn(conn)
	tp.PrintfLine("220 test ESMTP")
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		cmd, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(cmd) {
		case "EHLO":
			if cert != nil && !s.tls {
				tp.PrintfLine("250-test\r\n250-STARTTLS\r\n250 AUTH PLAIN")
			} else {
				tp.PrintfLine("250-test\r\n250 AUTH PLAIN")
			}
		case "STARTTLS":
			tp.PrintfLine("220 go ahead")
			tc := tls.Server(conn, &tls.Config{Certificates: []tls.Certificate{*cert}})
			if err := tc.Handshake(); err != nil {
				return
			}
			conn, s.tls = tc, true
			tp = textproto.NewConn(tc)
		case "AUTH":
			_, b64, _ := strings.Cut(arg, " ")
			dec, _ := base64.StdEncoding.DecodeString(b64)
			s.auth = string(dec)
			tp.PrintfLine("235 ok")
		case "MAIL":
			s.from = arg
			tp.PrintfLine("250 ok")
		case "RCPT":
			s.to = append(s.to, arg)
			tp.PrintfLine("250 ok")
		case "DATA":
			tp.PrintfLine("354 go")
			lines, _ := tp.ReadDotLines()
			s.data = strings.Join(lines, "\n")
			tp.PrintfLine("250 queued")
		case "QUIT":
			tp.PrintfLine("221 bye")
			got <- s
			return
		default:
			tp.PrintfLine("502 unknown")
		}
	}
}

func TestEmailSendsOverSTARTTLS(t *testing.T) {
	cert, pool := testCert(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan smtpSession, 1)
	go serveSMTP(t, ln, &cert, got)
	e, err := NewEmail("mail", EmailOptions{URL: "smtp://" + ln.Addr().String(), From: "keeper@example.com",
		To: []string{"ops@example.com"}, Username: "keeper", Password: "pw-SECRET", Timeout: 5 * time.Second,
		TLS: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	m := Message{Event: Landed, Policy: "auto-repay", Target: "Loan1", Reason: "health low", Links: []string{"https://x/tx/5sig"},
		Time: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
	if err := e.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	s := <-got
	if !s.tls || s.auth != "\x00keeper\x00pw-SECRET" || !strings.Contains(s.from, "keeper@example.com") ||
		len(s.to) != 1 || !strings.Contains(s.to[0], "ops@example.com") {
		t.Errorf("session %+v", s)
	}
	for _, want := range []string{"Subject: [keeper] LANDED auto-repay on Loan1", "health low", "https://x/tx/5sig"} {
		if !strings.Contains(s.data, want) {
			t.Errorf("email lacks %q:\n%s", want, s.data)
		}
	}
}

func TestEmailRefusesAServerWithoutTLS(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go serveSMTP(t, ln, nil, make(chan smtpSession, 1))
	e, err := NewEmail("mail", EmailOptions{URL: "smtp://" + ln.Addr().String(), From: "keeper@example.com",
		To: []string{"ops@example.com"}, Username: "keeper", Password: "pw-SECRET", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = e.Send(context.Background(), Message{Event: Failed})
	if err == nil || !strings.Contains(err.Error(), "no STARTTLS") || strings.Contains(err.Error(), "pw-SECRET") {
		t.Errorf("Send to a plain server = %v, want a refusal without the password", err)
	}
}
