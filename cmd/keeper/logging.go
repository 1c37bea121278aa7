package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/lmittmann/tint"
	"golang.org/x/term"
)

// newLogger builds the daemon's logger: coloured text (tint) when format is
// auto and w is a terminal, or "text"; JSON otherwise. NO_COLOR, set to
// anything but "" (no-color.org), turns the colours off on a terminal too.
func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	return newLoggerFor(w, level, format, isTerminal(w), colourAllowed())
}

// colourAllowed reports whether NO_COLOR leaves colours on: it is unset or
// empty.
func colourAllowed() bool { return os.Getenv("NO_COLOR") == "" }

// newLoggerFor is newLogger for a writer that is a terminal or not, with
// colours allowed or not.
func newLoggerFor(w io.Writer, level, format string, tty, colour bool) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", level)
	}
	text := slog.New(tint.NewTextHandler(w, &tint.Options{Level: lv, TimeFormat: time.DateTime, NoColor: !tty || !colour}))
	switch format {
	case "auto", "":
		if tty {
			return text, nil
		}
		return jsonLogger(w, lv), nil
	case "text":
		return text, nil
	case "json":
		return jsonLogger(w, lv), nil
	}
	return nil, fmt.Errorf("log format %q: want auto, text or json", format)
}

// jsonLogger writes JSON lines, with every duration in seconds, as a
// number ("open_for":5.5), not slog's integer nanoseconds.
func jsonLogger(w io.Writer, lv slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lv, ReplaceAttr: durationSeconds}))
}

// durationSeconds replaces a duration attribute's value by its seconds.
func durationSeconds(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		a.Value = slog.Float64Value(a.Value.Duration().Seconds())
	}
	return a
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
