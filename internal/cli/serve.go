package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/newsdedup/newscrawl/internal/logging"
	"github.com/newsdedup/newscrawl/internal/pipeline"
	"github.com/newsdedup/newscrawl/internal/serve"
)

func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", stderr)
	db := fs.String("db", "data/news.db", "store to read: a SQLite file or a postgres:// URL")
	addr := fs.String("addr", serve.DefaultAddr, "address to listen on; the view has no authentication, keep it on loopback")
	th := addThresholdFlags(fs)
	logFlags := logging.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("serve: unexpected arguments %q", fs.Args())
	}
	log, err := logFlags.Logger(recordsOf(stderr))
	if err != nil {
		return usageError{fmt.Errorf("serve: --%w", err)}
	}
	store, err := pipeline.OpenExisting(ctx, *db)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer store.Close()
	thr, err := th.resolve()
	if err != nil {
		return err
	}
	h, err := serve.New(store, thr, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return usageError{fmt.Errorf("serve: --addr: %w", err)}
	}
	if host, _, err := net.SplitHostPort(ln.Addr().String()); err == nil {
		if ip := net.ParseIP(host); ip != nil && !ip.IsLoopback() {
			fmt.Fprintf(stderr, "serve: warning: listening on %s, not loopback: anyone who can reach it can read the corpus\n", ln.Addr())
		}
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second}
	fmt.Fprintf(stdout, "serving %s read-only at http://%s/ (Ctrl-C stops)\n", pipeline.StoreName(*db), ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return ctx.Err()
}
