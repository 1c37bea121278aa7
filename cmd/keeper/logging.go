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
// auto and w is a terminal, or "text"; JSON otherwise.
func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", level)
	}
	tty := isTerminal(w)
	switch format {
	case "auto", "":
		if tty {
			return slog.New(tint.NewTextHandler(w, &tint.Options{Level: lv, TimeFormat: time.DateTime})), nil
		}
		return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lv})), nil
	case "text":
		return slog.New(tint.NewTextHandler(w, &tint.Options{Level: lv, TimeFormat: time.DateTime, NoColor: !tty})), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lv})), nil
	}
	return nil, fmt.Errorf("log format %q: want auto, text or json", format)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
