package postgres_test

import (
	"context"
	"sync"
	"testing"

	"github.com/newsdedup/newscrawl/storage/postgres"
)

// TestConcurrentOpen: processes opening one empty schema at once create it
// once; every Open succeeds.
func TestConcurrentOpen(t *testing.T) {
	for range 5 {
		u, _ := freshSchema(t)
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for k := range errs {
			wg.Go(func() {
				s, err := postgres.Open(context.Background(), u)
				if err == nil {
					err = s.Close()
				}
				errs[k] = err
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}
