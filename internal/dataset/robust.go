package dataset

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// RobustDoc is one line of bench/dev/robust.jsonl.
type RobustDoc struct {
	ID    string `json:"id"`
	Group string `json:"group"`
	Text  string `json:"text"`
	Op    string `json:"op"`
	Pct   int    `json:"pct"`
}

// LoadRobust reads a robustness set.
func LoadRobust(path string) ([]RobustDoc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var docs []RobustDoc
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var d RobustDoc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		docs = append(docs, d)
	}
	return docs, sc.Err()
}
