package notify

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/mail"
	"net/smtp"
	"net/url"
	"strings"
	"time"
)

// Email sends messages by SMTP, with STARTTLS when the server offers it
// (smtp://, port 587 by default) or over TLS from the start (smtps://, port
// 465). The standard library's net/smtp does the protocol; keeper adds the
// timeout, TLS and the message.
type Email struct {
	retries  int
	name     string
	host     string // host:port
	implicit bool   // TLS from the first byte (smtps)
	from     string
	to       []string
	username string
	password string // a secret: never printed
	timeout  time.Duration
	tls      *tls.Config
}

// EmailOptions configure an Email notifier.
type EmailOptions struct {
	// URL is smtp://host[:port] or smtps://host[:port].
	URL                string
	From               string
	To                 []string
	Username, Password string
	Timeout            time.Duration
	// TLS, when set, replaces the default TLS settings (tests use it to
	// trust their own server).
	TLS *tls.Config
}

// NewEmail returns an Email notifier called name.
func NewEmail(name string, o EmailOptions) (*Email, error) {
	u, err := url.Parse(o.URL)
	if err != nil || u.Host == "" || (u.Scheme != "smtp" && u.Scheme != "smtps") {
		return nil, fmt.Errorf("notifier %s: the url must be smtp://host[:port] or smtps://host[:port]", name)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), map[string]string{"smtp": "587", "smtps": "465"}[u.Scheme])
	}
	if _, err := mail.ParseAddress(o.From); err != nil {
		return nil, fmt.Errorf("notifier %s: from is not an email address", name)
	}
	if len(o.To) == 0 {
		return nil, fmt.Errorf("notifier %s: no recipient (to)", name)
	}
	for _, to := range o.To {
		if _, err := mail.ParseAddress(to); err != nil {
			return nil, fmt.Errorf("notifier %s: recipient %q is not an email address", name, to)
		}
	}
	tc := o.TLS
	if tc == nil {
		tc = &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}
	}
	return &Email{retries: -1, name: name, host: host, implicit: u.Scheme == "smtps", from: o.From, to: o.To,
		username: o.Username, password: o.Password, timeout: o.Timeout, tls: tc}, nil
}

// Name returns the notifier's name from config.
func (e *Email) Name() string { return e.name }

// Retries reports e's own retry count, or -1 for the dispatcher's default.
func (e *Email) Retries() int { return e.retries }

// WithRetries sets how many times a failed delivery is tried again.
func (e *Email) WithRetries(n int) *Email {
	e.retries = max(n, 0)
	return e
}

// Send delivers m as one email. Errors name the notifier and the SMTP step,
// never the password.
func (e *Email) Send(ctx context.Context, m Message) error {
	if e.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.timeout)
		defer cancel()
	}
	c, err := e.dial(ctx)
	if err != nil {
		return fmt.Errorf("notifier %s: %w", e.name, err)
	}
	defer c.Close()
	if err := e.deliver(c, m); err != nil {
		return fmt.Errorf("notifier %s: %w", e.name, err)
	}
	return nil
}

// dial connects, with TLS from the start or after STARTTLS; a server that
// offers neither is refused rather than sent credentials in the clear.
func (e *Email) dial(ctx context.Context) (*smtp.Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", e.host)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if e.implicit {
		conn = tls.Client(conn, e.tls)
	}
	host, _, _ := net.SplitHostPort(e.host)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("greeting: %w", err)
	}
	if !e.implicit {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			c.Close()
			return nil, errors.New("the server offers no STARTTLS: not sending in the clear")
		}
		if err := c.StartTLS(e.tls); err != nil {
			c.Close()
			return nil, fmt.Errorf("starttls: %w", err)
		}
	}
	return c, nil
}

// deliver authenticates when a username is set and sends m.
func (e *Email) deliver(c *smtp.Client, m Message) error {
	if e.username != "" {
		host, _, _ := net.SplitHostPort(e.host)
		if err := c.Auth(smtp.PlainAuth("", e.username, e.password, host)); err != nil {
			return errors.New("authentication refused")
		}
	}
	if err := c.Mail(e.from); err != nil {
		return fmt.Errorf("mail from: %w", err)
	}
	for _, to := range e.to {
		if err := c.Rcpt(to); err != nil {
			return fmt.Errorf("rcpt to: %w", err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if _, err := w.Write(e.compose(m)); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	return c.Quit()
}

// compose writes m as a plain-text email.
func (e *Email) compose(m Message) []byte {
	var b strings.Builder
	subject := fmt.Sprintf("[keeper] %s %s on %s", strings.ToUpper(string(m.Event)), m.Policy, m.Target)
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n",
		e.from, strings.Join(e.to, ", "), mimeHeader(subject), m.Time.UTC().Format(time.RFC1123Z))
	b.WriteString(m.Text() + "\r\n")
	for _, l := range m.Links {
		b.WriteString("\r\n" + l)
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}

// mimeHeader encodes a header value that is not plain ASCII.
func mimeHeader(s string) string {
	for _, r := range s {
		if r > 127 || r < 32 {
			return mime.QEncoding.Encode("utf-8", s)
		}
	}
	return s
}
