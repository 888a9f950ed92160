// Package pgtest gives tests a PostgreSQL server to run against: the URL in
// NEWSCRAWL_TEST_POSTGRES (.ci/services.sh starts a server and prints it),
// and fresh schemas on it that are dropped when the test ends. Without the
// variable a test skips with a message, or fails when CI is set.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the variable holding the test server's URL.
const EnvURL = "NEWSCRAWL_TEST_POSTGRES"

// ServerURL returns the test server's URL; without one the test skips, or
// fails when the environment variable CI is set.
func ServerURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		msg := EnvURL + " is not set: no PostgreSQL server to test against (start one with `eval \"$(.ci/services.sh)\"`)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return u
}

// Schema creates an empty schema named prefix plus random hex on the test
// server, dropped (with everything in it) at the end of the test, and
// returns a URL whose search_path selects it, and the schema's name.
// Stores opened on it must be closed by cleanups registered after Schema's
// (they run first).
func Schema(t testing.TB, prefix string) (schemaURL, schema string) {
	t.Helper()
	base := ServerURL(t)
	ctx := context.Background()
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	schema = prefix + hex.EncodeToString(rnd[:])
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", EnvURL, err)
	}
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close(ctx)
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		admin.Close(context.Background())
	})
	return WithSearchPath(t, base, schema), schema
}

// WithSearchPath returns base (a URL or a key=value connection string)
// selecting schema.
func WithSearchPath(t testing.TB, base, schema string) string {
	t.Helper()
	if !strings.HasPrefix(base, "postgres://") && !strings.HasPrefix(base, "postgresql://") {
		return base + " search_path=" + schema
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s is not a URL", EnvURL)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
