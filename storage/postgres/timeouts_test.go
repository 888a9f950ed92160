package postgres_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/newsdedup/newscrawl/storage/postgres"
)

// silentListener accepts connections and never answers: a host whose
// port is open but whose server is wedged.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var conns []net.Conn
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// TestOpenSilentServer: a server that accepts and answers nothing fails
// Open after the URL's connect_timeout instead of hanging (the default,
// DefaultConnectTimeout, applies when the URL sets none).
func TestOpenSilentServer(t *testing.T) {
	addr := silentListener(t)
	start := time.Now()
	_, err := postgres.Open(context.Background(), "postgres://u:secret@"+addr+"/db?sslmode=disable&connect_timeout=1")
	if err == nil {
		t.Fatal("open of a silent server succeeded")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("open failed after %s, want about the 1 s connect_timeout", d)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("error %q shows the password", err)
	}
}

// TestTimeoutDefaults: a URL without timeouts gets DefaultConnectTimeout
// and DefaultStatementTimeout; a URL's own values are kept.
func TestTimeoutDefaults(t *testing.T) {
	for _, tc := range []struct {
		name, query       string
		connect           time.Duration
		statement, server string
	}{
		{"defaults", "", postgres.DefaultConnectTimeout, "600000", "10min"},
		{"url values kept", "connect_timeout=3&statement_timeout=2500", 3 * time.Second, "2500", "2500ms"},
		{"statement timeout off", "statement_timeout=0", postgres.DefaultConnectTimeout, "0", "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := postgres.ParseConfig("postgres://u@127.0.0.1:1/db?" + tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.ConnConfig.ConnectTimeout; got != tc.connect {
				t.Errorf("connect timeout %s, want %s", got, tc.connect)
			}
			if got := cfg.ConnConfig.RuntimeParams["statement_timeout"]; got != tc.statement {
				t.Errorf("statement_timeout %q, want %q", got, tc.statement)
			}
			// The server applies the value to the store's connections.
			base, _ := freshSchema(t)
			sep := "?"
			if strings.Contains(base, "?") {
				sep = "&"
			}
			u := base
			if tc.query != "" {
				u += sep + tc.query
			}
			s, err := postgres.Open(context.Background(), u)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			got, err := s.StatementTimeout(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.server {
				t.Errorf("server statement_timeout %q, want %q", got, tc.server)
			}
		})
	}
}
