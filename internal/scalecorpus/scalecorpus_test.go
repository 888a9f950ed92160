package scalecorpus

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/newsdedup/newscrawl/dedup"
	"github.com/newsdedup/newscrawl/spotsigs"
)

func randomFP(rng *rand.Rand, n int) *dedup.Fingerprint {
	fp := &dedup.Fingerprint{Simhash: rng.Uint64(), Words: 10 * n, Signature: make(spotsigs.Signature, n), Title: []uint64{rng.Uint64() % 1000}}
	for i := range fp.Signature {
		fp.Signature[i] = uint64(rng.IntN(5000))
	}
	slices.Sort(fp.Signature)
	fp.Hash[3] = byte(n)
	return fp
}

func TestWriteRead(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var want []*dedup.Fingerprint
	var buf bytes.Buffer
	w, err := NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		fp := randomFP(rng, i%7*10)
		if i%7 == 0 {
			fp.Signature, fp.Title = nil, nil
		}
		want = append(want, fp)
		if err := w.Write(fp); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	var got []*dedup.Fingerprint
	if err := Read(bytes.NewReader(data), func(fp *dedup.Fingerprint) bool { got = append(got, fp); return true }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("fingerprints changed in the round trip")
	}
	for _, tc := range []struct {
		name, wantErr string
		data          []byte
	}{
		{"bad magic", "bad magic", append([]byte("NCFP9999"), data[8:]...)},
		{"truncated", "record 49", data[:len(data)-3]},
		{"empty", "header", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Read(bytes.NewReader(tc.data), func(*dedup.Fingerprint) bool { return true })
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.wantErr)
			}
		})
	}
}

func TestModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	if _, err := Fit([]*dedup.Fingerprint{randomFP(rng, 5)}); err == nil {
		t.Fatal("fit on one fingerprint accepted")
	}
	var fps []*dedup.Fingerprint
	for range 2000 {
		fps = append(fps, randomFP(rng, 20+rng.IntN(40)))
	}
	m, err := Fit(fps)
	if err != nil {
		t.Fatal(err)
	}
	sumJ := 0.0
	for i := range 100 {
		fp := m.Synth(rng, 1000000+i)
		if len(fp.Signature) < 20 || len(fp.Signature) >= 60 || !slices.IsSorted(fp.Signature) {
			t.Fatalf("synthetic signature of %d spots (real ones have 20-59), sorted %v", len(fp.Signature), slices.IsSorted(fp.Signature))
		}
		nd := m.NearDuplicate(rng, fp, 0.2)
		sumJ += spotsigs.Jaccard(fp.Signature, nd.Signature)
		if nd.Hash == fp.Hash {
			t.Fatal("near-duplicate has the same text hash")
		}
	}
	// 20 % of the spots replaced: Jaccard about 0.8/1.2.
	if j := sumJ / 100; j < 0.55 || j > 0.8 {
		t.Fatalf("near-duplicates at 20 %% have mean Jaccard %.2f", j)
	}
}

func TestReadTexts(t *testing.T) {
	in := "{\"id\":\"s0\",\"title\":\"t\",\"text\":\"x\"}\n{\"id\":\"s1\",\"text\":\"\"}\n"
	n := 0
	err := ReadTexts(strings.NewReader(in), func(Text) bool { n++; return true })
	if n != 1 || err == nil || !strings.Contains(err.Error(), "line 2: no text") {
		t.Fatalf("%d texts, error %v", n, err)
	}
}

// FuzzRead: a corrupt fingerprint file is an error, never a panic or a
// huge allocation.
func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf)
	w.Write(randomFP(rand.New(rand.NewPCG(1, 1)), 5))
	w.Flush()
	f.Add(buf.Bytes())
	f.Add([]byte(magic))
	f.Add(append([]byte(magic), make([]byte, 36)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		err := Read(bytes.NewReader(data), func(fp *dedup.Fingerprint) bool {
			n++
			return n < 1000
		})
		if err == nil && !bytes.HasPrefix(data, []byte(magic)) {
			t.Fatal("a file without the magic was accepted")
		}
	})
}
