package notify

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/keeper-project/keeper/internal/wait"
)

// Sender delivers one message to one destination.
type Sender interface {
	Name() string
	Send(ctx context.Context, m Message) error
}

// Options configure a Dispatcher. Zero values get the defaults noted.
type Options struct {
	Senders     []Sender
	DedupWindow time.Duration // default 1h: the same message for the same target at most once per window
	Retries     int           // further attempts after a failed delivery; default 3
	Backoff     time.Duration // first retry delay, doubling; default 1s
	QueueSize   int           // messages waiting for delivery; default 256
	Now         func() time.Time
	Logger      *slog.Logger
	// Delivered, when set, is called after each delivery attempt series
	// with the notifier's name and the final error (nil on success).
	Delivered func(notifier string, err error)
	// PostDryRun delivers the messages of dry runs (Message.DryRun), which
	// are otherwise dropped: a dry run posts nothing unless asked.
	PostDryRun bool
	// AddressLink, when set, gives a message's target its explorer link.
	AddressLink func(address string) string
}

// Dispatcher routes, deduplicates and delivers messages in the background.
// It is safe for concurrent use.
type Dispatcher struct {
	opts  Options
	queue chan Message

	mu   sync.Mutex
	sent map[string]time.Time // dedup key → last enqueued
}

// New returns a Dispatcher; call Run to deliver.
func New(o Options) *Dispatcher {
	if o.DedupWindow == 0 {
		o.DedupWindow = time.Hour
	}
	if o.Retries == 0 {
		o.Retries = 3
	}
	if o.Backoff == 0 {
		o.Backoff = time.Second
	}
	if o.QueueSize == 0 {
		o.QueueSize = 256
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Dispatcher{opts: o, queue: make(chan Message, o.QueueSize), sent: map[string]time.Time{}}
}

// Notify queues m unless the same message for the same target was queued
// within the dedup window. It never blocks: when the queue is full the
// message is dropped, logged, and Notify returns false.
func (d *Dispatcher) Notify(m Message) bool {
	if m.Time.IsZero() {
		m.Time = d.opts.Now()
	}
	d.mu.Lock()
	k := m.key()
	if last, ok := d.sent[k]; ok && m.Time.Sub(last) < d.opts.DedupWindow {
		d.mu.Unlock()
		return false
	}
	d.sent[k] = m.Time
	d.mu.Unlock()
	return d.enqueue(m)
}

// Page queues m without deduplication: an incident's opening and its
// resolution, which the journal already sends once each. It never blocks:
// when the queue is full the message is dropped, logged, and Page returns
// false.
func (d *Dispatcher) Page(m Message) bool {
	if m.Time.IsZero() {
		m.Time = d.opts.Now()
	}
	return d.enqueue(m)
}

func (d *Dispatcher) enqueue(m Message) bool {
	if m.DryRun && !d.opts.PostDryRun {
		d.opts.Logger.Debug("Dry run: notification not posted", "policy", m.Policy, "target", m.Target, "event", m.Event)
		return false
	}
	if m.TargetLink == "" && d.opts.AddressLink != nil && m.Target != "" {
		m.TargetLink = d.opts.AddressLink(m.Target)
	}
	select {
	case d.queue <- m:
		return true
	default:
		d.opts.Logger.Warn("Notification queue full, dropping message", "policy", m.Policy, "target", m.Target, "event", m.Event)
		return false
	}
}

// Run delivers queued messages until ctx ends, then returns. Messages still
// queued at that point are dropped: notifications are best effort, the
// journal is the record.
func (d *Dispatcher) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-d.queue:
			d.deliver(ctx, m)
		}
	}
}

// Drain delivers the messages queued so far, then returns; ctx bounds it.
// A process that runs once (keeper run --once) calls it before exiting
// instead of running Run.
func (d *Dispatcher) Drain(ctx context.Context) {
	for ctx.Err() == nil {
		select {
		case m := <-d.queue:
			d.deliver(ctx, m)
		default:
			return
		}
	}
}

func (d *Dispatcher) deliver(ctx context.Context, m Message) {
	for _, s := range d.opts.Senders {
		if len(m.To) > 0 && !slices.Contains(m.To, s.Name()) {
			continue
		}
		err := d.sendWithRetry(ctx, s, m)
		if err != nil {
			d.opts.Logger.Warn("Notification not delivered", "notifier", s.Name(), "policy", m.Policy, "event", m.Event, "err", err)
		}
		if d.opts.Delivered != nil {
			d.opts.Delivered(s.Name(), err)
		}
	}
}

// retrier is a Sender with its own retry count (-1: the default).
type retrier interface{ Retries() int }

func (d *Dispatcher) sendWithRetry(ctx context.Context, s Sender, m Message) error {
	delay := d.opts.Backoff
	retries := d.opts.Retries
	if r, ok := s.(retrier); ok && r.Retries() >= 0 {
		retries = r.Retries()
	}
	var err error
	for attempt := 0; attempt <= retries; attempt++ {
		if attempt > 0 {
			if !wait.For(ctx, delay) {
				return err
			}
			delay *= 2
		}
		if err = s.Send(ctx, m); err == nil {
			return nil
		}
	}
	return err
}
